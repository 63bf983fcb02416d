"""Hostile text in the window's own inputs, environment variables and settings paths:
refused with a message inside the window, never an exception inside a Qt slot."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from explorer.core import AttentionConfig, forward
from explorer.gui.window.app import MAX_TIMER_MS, quit_after_ms
from explorer.gui.pe.panel import HINT, PEPanel
from hostile_inputs import SOME_CONTROLS, SOME_DIGITS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def pe_panel(qtbot):
    widget = PEPanel()
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    widget.set_result(forward(AttentionConfig(d_model=16, n_heads=2, positional=True)))
    yield widget
    widget.close()


def type_dims(panel, text):  # (QLineEdit keeps at most 32767 characters, drops lone surrogates)
    panel.dims_edit.setText(text)
    panel.dims_edit.editingFinished.emit()  # a ValueError in this slot was printed and lost


@pytest.mark.parametrize("text", [f"1{d}" for d in SOME_DIGITS] + ["9" * 4301, "9" * 30_000,
                                                                  "1e3", "0x1f", "١", "16", "-1"]
                         + [f"2{c}" for c in SOME_CONTROLS if not "\ud800" <= c <= "\udfff"])
def test_any_bad_dim_is_refused_with_a_message_and_the_good_ones_drawn(pe_panel, text):
    errors = []
    sys_hook, sys.excepthook = sys.excepthook, lambda *exc: errors.append(exc)
    try:
        type_dims(pe_panel, f"3, {text}, 5")
    finally:
        sys.excepthook = sys_hook
    assert not errors
    assert pe_panel.dims_edit.text() == "3, 5"
    assert pe_panel.hint.text().startswith("ignored") and len(pe_panel.hint.text()) < 120
    type_dims(pe_panel, "0 1")
    assert pe_panel.hint.text() == HINT  # a good entry clears the message


@pytest.mark.parametrize("text, expected", [("0", 0), ("250", 250), ("-5", 0), ("", 0), ("x", 0),
                                            ("2147483647", MAX_TIMER_MS),
                                            ("2147483648", MAX_TIMER_MS),
                                            ("9" * 5000, MAX_TIMER_MS), ("²", 0), ("1e3", 0)])
def test_quit_after_ms_is_always_a_valid_timer_interval(qapp, text, expected):
    ms = quit_after_ms(text)
    assert ms == expected
    timer = QTimer()
    timer.setInterval(ms)  # OverflowError here was the bug: the window never quit
    assert timer.interval() == ms


def run_gui(settings_arg, tmp_path, timeout=120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_QUIT_AFTER_MS="0",
               ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path / "unused"))
    return subprocess.run([sys.executable, "-m", "explorer", "gui", "--settings", settings_arg],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_app_leaves_someone_elses_file_alone(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("buy milk\n")
    proc = run_gui(str(notes), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert notes.read_text() == "buy milk\n" and [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_the_app_starts_and_quits_with_a_fifo_or_device_as_settings(tmp_path, kind):
    path = tmp_path / "settings.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)
    proc = run_gui(str(path), tmp_path, timeout=60)  # used to hang in open() / read 6.9 GB
    assert proc.returncode == 0, proc.stderr
    assert os.path.lexists(path) and not path.is_file()


@pytest.mark.parametrize("text", [f"a{c}b cd" for c in SOME_CONTROLS if c < "\ud800"]
                         + ["x" * 101, " ".join(["w"] * 1025)])
def test_a_hostile_sentence_in_the_window_is_refused_with_a_message(qtbot, window, text):
    from window_support import settle
    before = window.state.config
    errors = []
    window.state.error.connect(errors.append)
    window.controls.sentence.set_text(text)
    settle(qtbot, window)
    assert window.state.config == before and errors and len(errors[-1]) < 200


@pytest.mark.parametrize("name", [".png", " .png", "a\x01.png", "a\u202egnp.png", "a/b.png",
                                  "\x7f", "x" * 300])
def test_the_export_dialog_refuses_a_bad_name_and_writes_nothing(window, tmp_path, name):
    from explorer.gui.window.exports.export_dialog import open_export_dialog
    dialog = open_export_dialog(window)
    dialog.folder.setText(str(tmp_path))
    dialog.name.setText(name)
    assert dialog.export() == []
    assert dialog.message.text().startswith("invalid file name") and not any(tmp_path.iterdir())
    dialog.close()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_termination_signal_closes_the_window_as_the_close_button_does(tmp_path, signame):
    import signal
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_DEBUG="1",
               ATTENTION_EXPLORER_QUIT_AFTER_MS="600000",
               ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "explorer"], cwd=REPO, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in proc.stdout:  # wait until the window has painted
            if "first paint" in line:
                break
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert (tmp_path / "settings.json").is_file()  # saved, as on a normal close
