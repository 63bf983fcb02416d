"""Closing the window never waits for a compute: the process exits at once with code 0.

The real app runs as a subprocess. A small launcher makes the compute of one marked seed, and
one topic job, block for an hour once the first picture is painted; the window is then closed.
The process can only end within the subprocess timeout if the close abandons both jobs, so the
test needs no timed assertion. A second test does the same with a real maximum-size config
whose torch import and forward are in flight at the close.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from explorer.core import MAX_D_MODEL, MAX_TOKENS, AttentionConfig
from explorer.app.settings import Settings, save_settings

REPO = Path(__file__).resolve().parents[2]
HANG_S = 3600  # a blocked job sleeps this long: far past the subprocess timeout
TIMEOUT_S = 90  # generous: start-up plus the first compute on a busy 2-core machine

LAUNCHER = textwrap.dedent(f"""
    import sys, threading, time
    sys.path.insert(0, {str(REPO)!r})
    from explorer.core import forward
    from explorer.app.course import state
    from explorer.gui.window import app
    from explorer.gui.topics.runner import TopicRunner
    from explorer.app.course.compute import ComputeWorker

    BLOCKED_SEED = 7

    def compute(config):
        if config.seed == BLOCKED_SEED:
            print("blocked compute started", flush=True)
            time.sleep({HANG_S})
        return forward(config)

    def topic_job():
        print("blocked topic job started", flush=True)
        time.sleep({HANG_S})

    class BlockingWorker(ComputeWorker):
        def __init__(self):
            super().__init__(compute=compute)

    state.ComputeWorker = BlockingWorker
    first_paint = app._Startup.on_first_paint

    def on_first_paint(self):
        self.runner = TopicRunner()
        self.runner.submit(topic_job)
        self.window.state.update(seed=BLOCKED_SEED)
        first_paint(self)

    app._Startup.on_first_paint = on_first_paint
    sys.exit(app.run_app())
""")


def launch(settings_dir: Path, argv: list[str], quit_after_ms: int):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_DEBUG="1",
               ATTENTION_EXPLORER_QUIT_AFTER_MS=str(quit_after_ms),
               ATTENTION_EXPLORER_SETTINGS_DIR=str(settings_dir))
    return subprocess.run([sys.executable, *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


def stderr_problems(stderr: str) -> list[str]:
    harmless = ("This plugin does not support propagateSizeHints()",)
    return [line for line in stderr.splitlines() if line.strip() and line.strip() not in harmless]


def test_close_abandons_a_running_compute_and_topic_job(tmp_path):
    launcher = tmp_path / "launch.py"
    launcher.write_text(LAUNCHER, encoding="utf-8")
    proc = launch(tmp_path, [str(launcher)], quit_after_ms=300)
    assert proc.returncode == 0, proc.stderr
    assert "blocked compute started" in proc.stdout
    assert "blocked topic job started" in proc.stdout
    assert stderr_problems(proc.stderr) == []
    assert (tmp_path / "settings.json").is_file()  # settings are still saved


def test_close_during_a_maximum_size_torch_start_exits_0(tmp_path):
    """1024 tokens, d_model 2048, 16 heads saved with torch: at the close torch is being imported
    (device listing) and a torch forward follows; neither may hold the exit or abort it."""
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(MAX_TOKENS)), d_model=MAX_D_MODEL,
                             n_heads=16, backend="torch", device="cpu")
    save_settings(Settings(config=config), tmp_path / "settings.json")
    proc = launch(tmp_path, ["-m", "explorer"], quit_after_ms=0)
    assert proc.returncode == 0, proc.stderr
    assert stderr_problems(proc.stderr) == []
    assert "first paint" in proc.stdout
