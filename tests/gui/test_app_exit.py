"""The real app as a subprocess: shows a window before torch is imported, closes with exit code 0."""

import json
import os
import subprocess
import sys
from pathlib import Path

from explorer.core import AttentionConfig, forward
from explorer.app.settings import Settings, save_settings

REPO = Path(__file__).resolve().parents[2]
# Qt's offscreen platform says this about every top-level window; it is not ours.
HARMLESS = ("This plugin does not support propagateSizeHints()",)
ALARMING = ("Traceback", "Error", "error", "Fatal", "Segmentation", "abort", "QObject", "Warning",
            "warning", "leak", "Exception")


def run_app(settings_dir: Path, *args: str, quit_after_ms: int = 0, timeout: float = 120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_DEBUG="1",
               ATTENTION_EXPLORER_QUIT_AFTER_MS=str(quit_after_ms),
               ATTENTION_EXPLORER_SETTINGS_DIR=str(settings_dir))
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def alarming_lines(stderr: str) -> list[str]:
    lines = [line for line in stderr.splitlines() if line.strip() and line.strip() not in HARMLESS]
    return [line for line in lines if any(word in line for word in ALARMING)] or lines


def debug_line(stdout: str, what: str) -> str:
    lines = [line for line in stdout.splitlines() if line.startswith(f"attention-explorer: {what}")]
    assert lines, f"no '{what}' line in:\n{stdout}"
    return lines[0]


def test_app_starts_without_torch_and_exits_0(tmp_path):
    proc = run_app(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert alarming_lines(proc.stderr) == []
    assert debug_line(proc.stdout, "window shown").endswith("(torch imported: no)")
    assert debug_line(proc.stdout, "first paint").endswith("(torch imported: no)")
    saved = json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))
    assert AttentionConfig.from_dict(saved["config"]) == AttentionConfig()


def test_corrupt_settings_still_start_and_are_replaced(tmp_path):
    (tmp_path / "settings.json").write_bytes(b"\x00garbage{{{")
    proc = run_app(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert alarming_lines(proc.stderr) == []
    json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))  # valid JSON again


def test_saved_settings_are_restored_and_a_torch_choice_survives_an_early_quit(tmp_path):
    config = AttentionConfig(tokens=("a", "b", "c"), d_model=12, n_heads=3, seed=4294967295,
                             causal=True, backend="torch", device="cpu")
    save_settings(Settings(config=config, colormap="magma", show_values="on", presentation=True),
                  tmp_path / "settings.json")
    proc = run_app(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert debug_line(proc.stdout, "first paint").endswith("(torch imported: no)")
    saved = json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))
    assert AttentionConfig.from_dict(saved["config"]) == config
    assert (saved["colormap"], saved["show_values"], saved["presentation"]) == ("magma", "on", True)


def numpy_forward(config):
    """forward() without importing torch (this test is about the switch, not torch)."""
    return forward(config.replace(backend="numpy", device="cpu"))


def test_saved_torch_backend_is_switched_on_once_devices_are_listed(qtbot):
    """In-process: the start-up glue restores the saved backend when the device list says so."""
    from explorer.core import DeviceInfo
    from explorer.gui.window.app import _Startup
    from explorer.gui.window.main_window import MainWindow
    from explorer.app.course.state import AppState
    from explorer.app.course.compute import ComputeWorker

    for available, expected in ((True, "torch"), (False, "numpy")):
        devices = [DeviceInfo("numpy", "cpu", "numpy (CPU)", True),
                   DeviceInfo("torch", "cpu", "torch CPU", available, "" if available else "no")]
        state = AppState(worker=ComputeWorker(devices=lambda devices=devices: devices,
                                              compute=numpy_forward))
        window = MainWindow(state)
        qtbot.addWidget(window)
        startup = _Startup(window, ("torch", "cpu"), 0.0)
        assert startup.config_to_save().backend == "torch"  # quit now: the choice is kept
        with qtbot.waitSignal(state.devices_changed, timeout=10_000):
            state.request_devices()
        assert state.config.backend == expected
        if not available:
            assert "not available" in window.statusBar().currentMessage()
            # kept for a later run where the device is back, until the user picks another one
            assert startup.config_to_save().backend == "torch"
            state.update(seed=7)
            assert startup.config_to_save().backend == "torch"
            state.update(backend="torch", device="cpu")  # disabled in the combo; direct here
            qtbot.waitUntil(lambda: state.config.backend == "torch", timeout=5000)
            state.update(backend="numpy", device="cpu")
            assert startup.config_to_save().backend == "numpy"
        window.close()
        state.shutdown()


def test_settings_option_names_a_file(tmp_path):
    path = tmp_path / "elsewhere.json"
    proc = run_app(tmp_path / "unused", "gui", "--settings", str(path))
    assert proc.returncode == 0, proc.stderr
    assert path.is_file()
    assert not (tmp_path / "unused" / "settings.json").exists()


def test_debug_log_into_a_closed_pipe_neither_hangs_nor_fails(tmp_path):
    """A reader that stops after the first line (`| head -1`, the start-up benchmark) closed
    stdout; the next debug line raised BrokenPipeError inside a Qt slot, so the timed close
    never started and the app hung."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_DEBUG="1",
               ATTENTION_EXPLORER_QUIT_AFTER_MS="0", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "explorer"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("attention-explorer: window shown")
    proc.stdout.close()  # like `head -1`
    try:
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    assert "Traceback" not in proc.stderr.read()
