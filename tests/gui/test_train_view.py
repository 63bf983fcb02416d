"""The Train tab driven through its real widgets (pytest-qt), on small settings (seconds each).

Start → the loss falls and the curves and heads update; Pause / Step / Reset; the scrubber
changes the heads shown; save → load gives identical attention; the snapshot export and the
PNG sequence are written and their pixels read back; a missing CUDA device is one message and
the tab keeps working.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

pytest.importorskip("torch")
pytest.importorskip("safetensors")

from explorer.core.training import TrainConfig  # noqa: E402
from explorer.gui.heads.grid import HeadsGrid  # noqa: E402
from explorer.gui.training import TrainView  # noqa: E402
from numeric import close  # noqa: E402
from qt_settle import run_posted_events  # noqa: E402

# Small and quick: 120 steps at batch 16, d_model 16, 2 heads (about 2 ms a step here).
SMALL = TrainConfig(steps=120, batch=16, d_model=16, n_heads=2, seed=1, log_every=10, snapshot_every=20,
                    lr=3e-3)
WAIT_MS = 60_000


@pytest.fixture
def view(qtbot):
    v = TrainView(HeadsGrid, SMALL)
    qtbot.addWidget(v)
    v.resize(1200, 800)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.shutdown()
    v.close()


def click(qtbot, button):
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def run_to_end(qtbot, view):
    click(qtbot, view.controls.start_button)
    qtbot.waitUntil(lambda: view.session.status == "done", timeout=WAIT_MS)


def test_start_trains_the_loss_falls_and_curves_and_heads_update(qtbot, view):
    click(qtbot, view.controls.start_button)
    assert view.session.status == "running"
    assert not view.controls.seed.isEnabled()  # a run's settings are fixed
    qtbot.waitUntil(lambda: view.heads.shown_step() is not None, timeout=WAIT_MS)
    first = view.heads.head_image(0, 0).copy()
    qtbot.waitUntil(lambda: view.session.status == "done", timeout=WAIT_MS)
    held = view.curves.loss_curves["heldout"].getData()[1]
    assert len(held) == SMALL.steps // SMALL.log_every + 1
    assert held[-1] < held[0] - 0.3  # the held-out loss fell
    assert len(view.curves.role_curves) == 2 * SMALL.n_layers * SMALL.n_heads
    assert view.heads.shown_step() == SMALL.steps  # followed the newest snapshot
    assert view.heads.grid.visible_heads() == list(range(SMALL.n_layers * SMALL.n_heads))
    assert not close(view.heads.head_image(0, 0), first)  # the heads were redrawn
    assert view.scrubber.maximum() == len(view.session.snapshots) - 1
    assert "done" in view.controls.status.text()


def test_pause_step_and_reset(qtbot, view):
    view.session.config  # the settings become the run's config at Start
    steps = 5000
    view.controls.steps.setValue(steps)
    click(qtbot, view.controls.start_button)
    qtbot.waitUntil(lambda: view.session.trainer is not None and view.session.trainer.step_count > 10,
                    timeout=WAIT_MS)
    click(qtbot, view.controls.pause_button)
    assert view.session.status == "paused"
    # idle: the chunk in flight has finished and been handed over; a running session submits
    # the next chunk in that hand-over, a paused one none (nothing is left that could train)
    qtbot.waitUntil(view.session.is_idle, timeout=WAIT_MS)
    paused_at = view.session.trainer.step_count
    run_posted_events()
    assert view.session.is_idle() and view.session.status == "paused"
    assert view.session.trainer.step_count == paused_at < steps  # nothing trains while paused
    click(qtbot, view.controls.step_button)
    qtbot.waitUntil(lambda: view.session.trainer.step_count == paused_at + SMALL.log_every, timeout=WAIT_MS)
    assert view.session.status == "paused"
    click(qtbot, view.controls.reset_button)
    assert view.session.status == "idle" and view.session.trainer is None
    assert view.controls.seed.isEnabled()
    # nothing left that could draw the old run: no chunk in flight or handed over, and the
    # curves' redraw timer (CURVES_MS) stopped
    qtbot.waitUntil(view.session.is_idle, timeout=WAIT_MS)
    run_posted_events()
    assert not view._curves_timer.isActive()
    assert view.curves.loss_curves["heldout"].getData()[0] is None, view.curves.loss_curves["heldout"].getData()


def test_the_scrubber_shows_an_earlier_snapshot_and_marks_its_step(qtbot, view):
    run_to_end(qtbot, view)
    last = view.heads.head_image(1, 0).copy()
    view.scrubber.setValue(0)  # as a drag to the left end does
    assert view.heads.shown_step() == 0
    assert not close(view.heads.head_image(1, 0), last)
    np.testing.assert_array_equal(view.heads.head_image(1, 0),  # the snapshot's own numbers
                                  view.session.snapshots[0].attention[1, 0])
    assert all(line.isVisible() and line.value() == 0 for line in view.curves.step_lines)
    view.scrubber.setValue(view.scrubber.maximum())
    assert view.heads.shown_step() == SMALL.steps
    assert not any(line.isVisible() for line in view.curves.step_lines)


def test_save_then_load_gives_identical_attention(qtbot, view, tmp_path):
    run_to_end(qtbot, view)
    trained = view.session.snapshots[-1].attention
    path = tmp_path / "model.safetensors"
    view.save(path)
    assert path.exists()
    click(qtbot, view.controls.reset_button)
    view.controls.seed.setValue(7)
    view.load(path)
    qtbot.waitUntil(lambda: bool(view.session.snapshots), timeout=WAIT_MS)
    assert view.controls.seed.value() == SMALL.seed  # the loaded model's settings are shown
    np.testing.assert_array_equal(view.session.snapshots[0].attention, trained)
    np.testing.assert_array_equal(view.heads.head_image(0, 1), trained[0, 1])


def test_a_bad_model_file_is_one_message_and_nothing_changes(qtbot, view, tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a model")
    messages = []
    view.message.connect(messages.append)
    view.load(bad)
    qtbot.waitUntil(lambda: bool(messages), timeout=WAIT_MS)
    assert "bad.safetensors" in messages[-1] and view.session.status == "idle"


def test_missing_cuda_is_a_clear_message_and_the_tab_keeps_working(qtbot, view):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    messages = []
    view.message.connect(messages.append)
    view.set_device("cuda")
    click(qtbot, view.controls.start_button)
    qtbot.waitUntil(lambda: any("CUDA" in m for m in messages), timeout=WAIT_MS)
    assert view.session.status == "idle" and view.controls.start_button.isEnabled()
    view.set_device("cpu")
    click(qtbot, view.controls.step_button)
    qtbot.waitUntil(lambda: view.session.trainer is not None, timeout=WAIT_MS)
    assert view.session.config.device == "cpu"


def test_fixed_offset_task_puts_its_explanation_first(qtbot, view):
    view.controls.task.setCurrentIndex(view.controls.task.findData("induction-fixed"))
    text = view.explanation.toPlainText()
    assert text.startswith("Pitfall: a fixed offset") and "no previous-token or induction head" in text
    view.controls.task.setCurrentIndex(view.controls.task.findData("induction"))
    assert view.explanation.toPlainText().startswith("Loss and accuracy")


def _png(path) -> QImage:
    image = QImage(str(path))
    assert not image.isNull(), path
    return image


def test_snapshot_export_and_png_sequence_read_back(qtbot, view, tmp_path):
    from explorer.gui.window.exports.training_export import export_all_snapshots, export_shown_snapshot
    run_to_end(qtbot, view)
    view.scrubber.setValue(2)
    path = export_shown_snapshot(view, tmp_path / "snap.png")
    image = _png(path)
    assert image.width() > 1000 and image.height() > 600
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert len(colours) > 20  # heatmaps and curves, not a blank page
    written = export_all_snapshots(view, tmp_path / "frames")
    pngs = sorted(p for p in written if p.suffix == ".png")
    assert [p.name for p in pngs][:2] == ["heads_step_00000.png", "heads_step_00020.png"]
    assert len(pngs) == len(view.session.snapshots)
    first, last = _png(pngs[0]), _png(pngs[-1])
    assert first.size() == last.size() and first != last  # the heads changed over training


def test_the_window_has_the_train_tab_and_its_device_follows_the_backend_switch(make_window):
    window = make_window()
    tabs = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert "Train" in tabs
    assert window.train_view.device == window.state.config.device == "cpu"
    window.state.update(backend="torch", device="cuda")  # refused or accepted: the tab follows the state
    assert window.train_view.device == window.state.config.device


def test_the_app_closes_with_exit_0_while_training_runs(tmp_path):
    """The real app in a subprocess: training starts at once and the window closes mid-run."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    script = ("from PySide6.QtCore import QTimer\n"
              "from explorer.gui.training import view\n"
              "init = view.TrainView.__init__\n"
              "def started(self, *a, **k):\n"
              "    init(self, *a, **k)\n"
              "    self.controls.steps.setValue(100000)\n"
              "    QTimer.singleShot(0, self.start)\n"
              "view.TrainView.__init__ = started\n"
              "from explorer.gui.window.app import run_app\n"
              "raise SystemExit(run_app())\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_DEBUG="1",
               ATTENTION_EXPLORER_QUIT_AFTER_MS="2500", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2], env=env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    noise = [line for line in proc.stderr.splitlines()
             if line.strip() and "propagateSizeHints" not in line]
    assert noise == []
    assert "torch imported: yes" in proc.stdout  # training did start before the close


def test_refusals_are_one_message_and_leave_nothing_behind(qtbot, view, tmp_path):
    from explorer.gui.window.exports.training_export import export_all_snapshots, export_shown_snapshot
    messages = []
    view.message.connect(messages.append)
    view.controls.heads.setValue(3)  # d_model 16 is not divisible by 3
    click(qtbot, view.controls.start_button)
    assert view.session.status == "idle" and "divisible" in messages[-1]
    assert export_shown_snapshot(view, tmp_path / "none.png") is None and "nothing to export" in messages[-1]
    view.controls.heads.setValue(2)
    view.controls.steps.setValue(100000)
    click(qtbot, view.controls.start_button)
    qtbot.waitUntil(lambda: len(view.session.snapshots) >= 1, timeout=WAIT_MS)
    view.save(tmp_path / "running.safetensors")  # refused while a chunk may be running
    assert "pause" in messages[-1] and not (tmp_path / "running.safetensors").exists()
    click(qtbot, view.controls.pause_button)
    blocker = tmp_path / "a_file"
    blocker.write_text("in the way")
    assert export_all_snapshots(view, blocker / "frames") == []
    assert "not exported" in messages[-1] and blocker.read_text() == "in the way"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_presentation_sizes_only_where_the_heatmaps_keep_room(qtbot, view):
    """Projector sizes (large axes and titles) left 8 heads as ~15 px slivers in a small tab:
    there the grid keeps its normal sizes; given room, it takes the presentation ones."""
    from explorer.gui.training.heads import MIN_PRESENTATION_SIDE_PX
    view.heads.prepare(2, 4, np.arange(20))
    view.set_presentation(True)
    view.resize(1000, 420)
    qtbot.waitUntil(lambda: view.heads.grid.height() < 260)
    run_posted_events()  # the heads decide on their resize: laid out, they have
    assert not view.heads.uses_presentation_sizes()
    assert view.heads.grid.heatmap_side(True, 8) < MIN_PRESENTATION_SIDE_PX
    view.resize(1900, 1400)
    qtbot.waitUntil(lambda: view.heads.grid.heatmap_side(True, 8) >= MIN_PRESENTATION_SIDE_PX, timeout=5000)
    qtbot.waitUntil(view.heads.uses_presentation_sizes, timeout=5000)  # decided on the resize
    view.set_presentation(False)
    assert not view.heads.uses_presentation_sizes()


def test_a_bad_setting_is_said_in_the_ui_language(qtbot, korean_ui):
    """core.training's refusals keep a template (ConfigError.of): the Korean tab says them in Korean."""
    v = TrainView(HeadsGrid, SMALL)
    qtbot.addWidget(v)
    try:
        v.controls.d_model.setValue(30)
        v.controls.heads.setValue(4)
        said = []
        v.message.connect(said.append)
        click(qtbot, v.controls.start_button)
        assert v.session.status == "idle"
        assert said and "나누어떨어져야" in said[-1] and "30" in said[-1], said
    finally:
        v.shutdown()
        v.close()


def _window_with(qtbot, settings):
    from explorer.app.course.state import AppState
    from explorer.gui.window.main_window import MainWindow
    state = AppState(settings.config)
    window = MainWindow(state, settings, defer_learned=True)
    qtbot.addWidget(window)
    window.install_training()
    return window, state


def test_the_train_tabs_choices_are_saved_and_restored(qtbot):
    """Task, size, seed, learning rate and steps survive a restart (Settings.training, through
    the JSON the settings file holds); the device stays the backend switch's."""
    from explorer.app.settings import Settings, settings_from_dict
    window, state = _window_with(qtbot, Settings())
    controls = window.train_view.controls
    controls.task.setCurrentIndex(controls.task.findData("reverse"))
    controls.layers.setValue(1)
    controls.heads.setValue(2)
    controls.seed.setValue(42)
    controls.steps.setValue(300)
    saved = window.settings_snapshot().to_dict()
    window.close()
    state.shutdown()
    assert saved["training"] == {"task": "reverse", "n_layers": 1, "n_heads": 2, "d_model": 64,
                                 "seed": 42, "lr": 0.003, "steps": 300}
    restored, problems = settings_from_dict(saved)
    assert problems == []
    window, state = _window_with(qtbot, restored)
    config = window.train_view.controls.config("cpu")
    assert (config.task, config.n_layers, config.n_heads, config.seed, config.steps) == ("reverse", 1, 2, 42, 300)
    assert window.settings_snapshot().training == saved["training"]  # unchanged, saved again
    window.close()
    state.shutdown()


def test_bad_saved_training_choices_are_a_note_and_the_defaults(qtbot):
    from explorer.app.settings import Settings, settings_from_dict
    restored, problems = settings_from_dict({"version": 1, "training": [1, 2]})
    assert [str(p) for p in problems] == ["saved training settings ignored"] and restored.training == {}
    window, state = _window_with(qtbot, Settings(training={"n_heads": 3, "d_model": 64, "seed": -1}))
    assert window.statusBar().currentMessage().startswith("saved training settings ignored: ")
    assert window.train_view.controls.config("cpu") == TrainConfig()  # the defaults, untouched
    assert window.settings_snapshot().training == window.train_view.choices()
    window.close()
    state.shutdown()


def test_the_animation_export_writes_a_looping_gif_of_every_snapshot(qtbot, view, tmp_path):
    """heads.gif has one frame per snapshot, each the PNG of that step (up to the GIF's
    256-colour palette), and loops."""
    from PIL import Image, ImageSequence
    from explorer.gui.window.exports.training_export import export_all_snapshots
    run_to_end(qtbot, view)
    written = export_all_snapshots(view, tmp_path / "frames")
    gif = tmp_path / "frames" / "heads.gif"
    assert gif in written and "Pillow" not in view.controls.status.text()
    pngs = sorted(p for p in written if p.suffix == ".png")
    with Image.open(gif) as animation:
        assert animation.info.get("loop") == 0
        frames = [np.asarray(frame.convert("RGB"), dtype=float) for frame in ImageSequence.Iterator(animation)]
    assert len(frames) == len(pngs) == len(view.session.snapshots)
    for index in (0, len(pngs) - 1):
        with Image.open(pngs[index]) as png:
            expected = np.asarray(png.convert("RGB"), dtype=float)
        assert frames[index].shape == expected.shape
        assert np.abs(frames[index] - expected).mean() < 2.0
    assert np.abs(frames[0] - frames[-1]).mean() > 1.0  # the heads changed over training


def test_a_saved_seed_over_2_31_is_shown_as_saved(qtbot):
    """A seed of 3e9 is a valid core seed (< 2^32): the spin box stopped at 2^31 - 1, setValue
    raised OverflowError and the Train tab was never added; then it was dropped with a note. The
    seed box now holds every seed the core accepts."""
    from explorer.app.settings import Settings
    window, state = _window_with(qtbot, Settings(training={"seed": 3_000_000_000}))
    assert window.tabs.indexOf(window.train_view) >= 0
    assert window.statusBar().currentMessage() == ""
    assert window.train_view.controls.config("cpu") == TrainConfig(seed=3_000_000_000)
    window.close()
    state.shutdown()


def test_the_step_axes_span_the_run_from_its_first_records(qtbot, view):
    """The curves grow across a 0 … steps axis fixed from the first redraw (not re-laid out at
    each redraw); Reset gives the auto-range back."""
    click(qtbot, view.controls.start_button)
    qtbot.waitUntil(lambda: view.curves._x_end is not None, timeout=WAIT_MS)
    for plot in view.curves.plots:
        low, high = plot.viewRange()[0]
        assert low <= 0 < SMALL.steps <= high < SMALL.steps * 1.1, (low, high)
        assert not plot.getViewBox().autoRangeEnabled()[0]
    qtbot.waitUntil(lambda: view.session.status == "done", timeout=WAIT_MS)
    assert view.curves._x_end == SMALL.steps
    assert view.curves.loss_curves["heldout"].getData()[0][-1] == SMALL.steps  # the last point, at the end
    click(qtbot, view.controls.reset_button)
    assert view.curves._x_end is None
    assert all(plot.getViewBox().autoRangeEnabled()[0] for plot in view.curves.plots)
