"""The Train tab with hostile model files and outputs (issue 21, rows 2c, 3, 7 and 8).

Load model… on a FIFO is refused at once (the window froze); every model the app can save loads
as saved (a seed of 2³² − 1 overflowed the seed box, a learning rate of 1e-5 was clamped);
non-finite weights are refused in one line; Save model… never replaces a FIFO or a symlink and
follows the umask; Export animation… asks before replacing heads.gif, streams its frames (drawn
one at a time, written on a thread as they come), shows progress and can be cancelled, leaving
nothing behind.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

pytest.importorskip("torch")
pytest.importorskip("safetensors")

from explorer.core.config import SEED_MAX  # noqa: E402
from explorer.core.training import TrainConfig  # noqa: E402
from explorer.core.training.checkpoint import model_bytes  # noqa: E402
from explorer.gui.heads.grid import HeadsGrid  # noqa: E402
from explorer.gui.training import TrainView  # noqa: E402
from explorer.gui.training.heads import SnapshotHeads  # noqa: E402

# One layer, every step a snapshot: 25 frames of the animation in a few seconds.
SMALL = TrainConfig(steps=24, batch=8, d_model=16, n_heads=2, n_layers=1, seed=1, log_every=4,
                    snapshot_every=1, lr=3e-3)
WAIT_MS = 60_000
RELEASE_S = 20


@pytest.fixture
def view(qtbot):
    v = TrainView(HeadsGrid, SMALL)
    qtbot.addWidget(v)
    v.resize(1000, 700)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.shutdown()
    v.close()


@pytest.fixture
def messages(view):
    said: list[str] = []
    view.message.connect(said.append)
    return said


def trained(qtbot, view):
    qtbot.mouseClick(view.controls.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.session.status == "done", timeout=WAIT_MS)
    return view


def saved_model(path, config: TrainConfig, poison=None):
    """A model file as the app writes it (poison: a value put into one weight)."""
    from explorer.core.training.model import TinyTransformer
    model = TinyTransformer(config)
    if poison is not None:
        import torch
        with torch.no_grad():
            model.layers[0].out.weight[0, 0] = poison
    path.write_bytes(model_bytes(model, 3))
    return path


# ----- Load model… (rows 2c and 7) ---------------------------------------------------------------
def test_load_model_on_a_fifo_is_refused_at_once(qtbot, view, messages, tmp_path):
    """The old loader blocked in open() holding the interpreter lock: the whole window froze. A
    helper process opens the FIFO for writing after RELEASE_S, so the old code fails the timing."""
    fifo = tmp_path / "model.safetensors"
    os.mkfifo(fifo)
    helper = subprocess.Popen([sys.executable, "-c",
                               f"import time; time.sleep({RELEASE_S}); open({str(fifo)!r}, 'wb').close()"])
    try:
        start = time.monotonic()
        view.load(fifo)
        qtbot.waitUntil(lambda: bool(messages), timeout=2 * RELEASE_S * 1000)
        assert time.monotonic() - start < RELEASE_S / 4
    finally:
        helper.kill()
        helper.wait()
    assert "is not a regular file (a FIFO)" in messages[-1] and "\n" not in messages[-1]
    assert view.session.status == "idle" and view.session.trainer is None


def test_a_model_saved_with_the_largest_seed_and_a_small_lr_loads_as_saved(qtbot, view, messages, tmp_path):
    config = SMALL.replace(seed=SEED_MAX, lr=1e-5)  # both legal: `train --seed 4294967295 --lr 1e-5`
    view.load(saved_model(tmp_path / "m.safetensors", config))
    qtbot.waitUntil(lambda: bool(view.session.snapshots), timeout=WAIT_MS)
    assert view.controls.seed.value() == SEED_MAX  # the seed box stopped at 2^31 - 1 (OverflowError)
    assert view.controls.lr.value() == 1e-5  # a 4-decimal spin box showed 0.0001
    assert view.controls.config("cpu") == config
    assert view.session.config.lr == 1e-5 and "loaded" in messages[-1]
    view.reset()
    assert view.controls.config("cpu") == config  # the next fresh run uses what was shown


@pytest.mark.parametrize("poison", [float("nan"), float("inf")])
def test_a_model_with_non_finite_weights_is_refused_in_one_line(qtbot, view, messages, tmp_path, poison):
    view.load(saved_model(tmp_path / "nan.safetensors", SMALL, poison))
    qtbot.waitUntil(lambda: bool(messages), timeout=WAIT_MS)
    assert "nan.safetensors: tensor layers.0.out.weight holds NaN or infinite weights" in messages[-1]
    assert view.session.status == "idle" and not view.session.snapshots


def test_a_refused_model_is_said_in_korean_in_the_korean_ui(qtbot, korean_ui, tmp_path):
    v = TrainView(HeadsGrid, SMALL)
    qtbot.addWidget(v)
    said: list[str] = []
    v.message.connect(said.append)
    try:
        bad = tmp_path / "foreign.safetensors"
        from safetensors.torch import save
        bad.write_bytes(save({"x": __import__("torch").zeros(1)}, metadata={"format": "other"}))
        v.load(bad)
        qtbot.waitUntil(lambda: bool(said), timeout=WAIT_MS)
        assert "foreign.safetensors" in said[-1] and "attention-explorer train" in said[-1]
        assert "is not a model saved by" not in said[-1], said[-1]  # the Korean line, not the English
    finally:
        v.shutdown()
        v.close()


# ----- Save model… (row 3) -----------------------------------------------------------------------
def test_save_model_never_replaces_a_fifo_or_a_symlink_and_follows_the_umask(qtbot, view, messages, tmp_path):
    """Save model… writes through the one output writer, core.output_files."""
    trained(qtbot, view)
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    view.save(fifo)
    assert "not saved:" in messages[-1] and "\n" not in messages[-1]
    assert "is not a regular file (a FIFO); it is never replaced" in messages[-1]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    (tmp_path / "real").write_bytes(b"keep me")
    (tmp_path / "link.safetensors").symlink_to(tmp_path / "real")
    view.save(tmp_path / "link.safetensors")
    assert "not saved:" in messages[-1] and (tmp_path / "real").read_bytes() == b"keep me"
    assert (tmp_path / "link.safetensors").is_symlink()
    old = os.umask(0o022)
    try:
        view.save(tmp_path / "m.safetensors")
    finally:
        os.umask(old)
    assert "model saved to" in messages[-1]
    assert stat.S_IMODE(os.stat(tmp_path / "m.safetensors").st_mode) == 0o644  # was always 0600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.safetensors", "link.safetensors",
                                                         "m.safetensors", "real"]


# ----- Export animation… (row 8) -----------------------------------------------------------------
def _press_export_animation(view, folder, monkeypatch):
    """What the button does in the window: the folder dialog (answered), then the export."""
    from explorer.gui.window.exports import training_export
    monkeypatch.setattr(training_export.QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    window = QWidget(view)  # the dialogs' parent (a child of the view: it lives as long)
    window.train_view = view
    training_export._ask(window, "animation")
    return window


def test_export_animation_asks_before_replacing_heads_gif(qtbot, view, messages, tmp_path, monkeypatch):
    from explorer.gui.window.exports import training_animation as animation
    trained(qtbot, view)
    gif = tmp_path / "heads.gif"
    gif.write_bytes(b"my own animation")
    asked = []
    monkeypatch.setattr(animation, "_confirm_replace", lambda parent, folder, existing: asked.append(existing) or False)
    _press_export_animation(view, tmp_path, monkeypatch)
    assert asked and gif in asked[0]
    assert gif.read_bytes() == b"my own animation" and sorted(os.listdir(tmp_path)) == ["heads.gif"]
    assert "kept" in messages[-1]
    monkeypatch.setattr(animation, "_confirm_replace", lambda parent, folder, existing: True)
    _press_export_animation(view, tmp_path, monkeypatch)
    qtbot.waitUntil(lambda: messages[-1].startswith("exported"), timeout=WAIT_MS)
    from PIL import Image
    with Image.open(gif) as image:
        assert image.n_frames == len(view.session.snapshots) and image.info.get("loop") == 0


def _count_frames_and_writes(monkeypatch):
    """(events): ("draw", n drawn so far) at each snapshot drawn, ("write", thread) at each file staged."""
    from explorer.core.files import output_files as files
    events, drawn = [], [0]
    real_set, real_stage = SnapshotHeads.set_snapshot, files._stage

    def set_snapshot(self, snapshot, probe):
        drawn[0] += 1
        events.append(("draw", drawn[0]))
        return real_set(self, snapshot, probe)

    def stage(folder, name, data):
        events.append(("write", drawn[0], threading.current_thread() is threading.main_thread()))
        return real_stage(folder, name, data)

    monkeypatch.setattr(SnapshotHeads, "set_snapshot", set_snapshot)
    monkeypatch.setattr(files, "_stage", stage)
    return events


def test_the_animation_is_streamed_frame_by_frame(qtbot, view, tmp_path, monkeypatch):
    """Each frame's PNG is written before the next few are drawn: memory holds a few frames,
    whatever the count (every frame was drawn, and kept, before the first file was written)."""
    from explorer.gui.window.exports.training_export import export_all_snapshots
    trained(qtbot, view)
    events = _count_frames_and_writes(monkeypatch)
    written = export_all_snapshots(view, tmp_path / "frames")
    count = len(view.session.snapshots)
    writes = [drawn for kind, drawn, *_ in events if kind == "write"][:count]  # the PNGs, in order
    lead = max(drawn - index for index, drawn in enumerate(writes))
    assert lead <= 3, writes  # the first draw (the frame's layout) + this frame; never all of them
    assert len(written) == count + 1 and len(writes) == count  # and heads.gif


def test_the_window_export_writes_off_the_gui_thread_with_progress(qtbot, view, messages, tmp_path, monkeypatch):
    from explorer.gui.window.exports import training_animation as animation
    trained(qtbot, view)
    events = _count_frames_and_writes(monkeypatch)
    progress = []
    real_start = animation.AnimationExport.start

    def start(job):
        job.progress.connect(lambda done, total: progress.append((done, total)))
        real_start(job)

    monkeypatch.setattr(animation.AnimationExport, "start", start)
    _press_export_animation(view, tmp_path / "new" / "frames", monkeypatch)
    qtbot.waitUntil(lambda: bool(messages) and messages[-1].startswith("exported"), timeout=WAIT_MS)
    count = len(view.session.snapshots)
    writes = [event for event in events if event[0] == "write"]
    assert len(writes) == count and not any(on_main for _, _, on_main in writes)
    assert max(drawn - i for i, (_, drawn, _) in enumerate(writes)) <= animation.QUEUE_FRAMES + 3
    assert progress[-1] == (count, count) and [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert len(os.listdir(tmp_path / "new" / "frames")) == count + 1


def test_cancel_leaves_nothing_behind_not_even_the_folders_it_made(qtbot, view, messages, tmp_path, monkeypatch):
    from explorer.gui.window.exports import training_animation as animation
    trained(qtbot, view)
    jobs = []
    real_start = animation.AnimationExport.start
    monkeypatch.setattr(animation.AnimationExport, "start", lambda job: (jobs.append(job), real_start(job)))
    _press_export_animation(view, tmp_path / "new" / "frames", monkeypatch)
    job = jobs[0]
    qtbot.waitUntil(lambda: job._written >= 2, timeout=WAIT_MS)
    with qtbot.waitSignal(job.cancelled, timeout=WAIT_MS):
        job.cancel()
    assert os.listdir(tmp_path) == [] and "cancelled" in messages[-1]


def test_an_export_running_when_the_tab_shuts_down_is_discarded(qtbot, view, tmp_path, monkeypatch):
    from explorer.gui.window.exports import training_animation as animation
    trained(qtbot, view)
    job = animation.start_export(view, tmp_path / "frames", view)
    qtbot.waitUntil(lambda: job._written >= 1, timeout=WAIT_MS)
    view.shutdown()
    assert not job._thread.is_alive()
    qtbot.waitUntil(lambda: not job.running, timeout=WAIT_MS)
    assert not (tmp_path / "frames").exists()


def test_saved_choices_core_accepts_are_shown_as_saved(qtbot):
    """A seed of 3e9 (< 2³², over QSpinBox's 2³¹ − 1) and a learning rate of 1e-5 (under the
    old 4-decimal box) are valid: restored as saved, no note (they were ignored, with a note)."""
    from explorer.app.settings import Settings
    from explorer.app.course.state import AppState
    from explorer.gui.window.main_window import MainWindow
    settings = Settings(training={"seed": 3_000_000_000, "lr": 1e-5})
    state = AppState(settings.config)
    window = MainWindow(state, settings, defer_learned=True)
    qtbot.addWidget(window)
    try:
        window.install_training()
        assert window.statusBar().currentMessage() == ""
        assert window.train_view.controls.config("cpu") == TrainConfig(seed=3_000_000_000, lr=1e-5)
        assert window.settings_snapshot().training["seed"] == 3_000_000_000
    finally:
        window.close()
        state.shutdown()


def test_an_animation_export_that_cannot_write_is_one_line_and_leaves_nothing(qtbot, view, messages, tmp_path,
                                                                               monkeypatch):
    from explorer.gui.window.exports import training_animation as animation
    trained(qtbot, view)
    blocker = tmp_path / "a_file"
    blocker.write_text("in the way")
    _press_export_animation(view, blocker / "frames", monkeypatch)
    qtbot.waitUntil(lambda: bool(messages) and messages[-1].startswith("not exported:"), timeout=WAIT_MS)
    assert "\n" not in messages[-1] and sorted(os.listdir(tmp_path)) == ["a_file"]
    frames = tmp_path / "frames"
    frames.mkdir()
    os.mkfifo(frames / "heads.gif")
    monkeypatch.setattr(animation, "_confirm_replace", lambda parent, folder, existing: True)
    messages.clear()
    _press_export_animation(view, frames, monkeypatch)
    qtbot.waitUntil(lambda: bool(messages), timeout=WAIT_MS)
    assert "heads.gif is not a regular file (a FIFO); it is never replaced" in messages[-1]
    assert os.listdir(frames) == ["heads.gif"] and stat.S_ISFIFO(os.lstat(frames / "heads.gif").st_mode)
