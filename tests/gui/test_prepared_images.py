"""The heads grid draws images pooled and colour-mapped on the compute thread (gui/heads/prepared.py),
pixel for pixel what it would make itself, and still recolours when the colormap changes."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtGui import QImage

import explorer.gui.plotting.heatmap_item as heatmap_item
from explorer.app.course.compute import ComputeWorker
from explorer.core import AttentionConfig, forward
from explorer.app.pictures import CoursePicture
from qt_settle import painted

WORDS = ("나는", "학교에", "버스로", "갔다", "the", "cat", "sat", "on")


def make_result(n_tokens, n_heads=4, seed=1):
    tokens = tuple((WORDS * 200)[:n_tokens])
    return forward(AttentionConfig(tokens=tokens, d_model=4 * n_heads, n_heads=n_heads, seed=seed))


@pytest.fixture
def grid_size():
    """The shared `grid` fixture at 900 × 700: 600 tokens are more cells than pixels."""
    return (900, 700)


def paint(qtbot, grid) -> QImage:
    return painted(grid)  # laid out and painted now: no waiting


def prepare_on_a_thread(grid, result) -> None:
    """Run the preparer as the compute thread would: on another thread."""
    thread = threading.Thread(target=grid.preparer, args=(result,))
    thread.start()
    thread.join()


class CountingPool:
    """Counts max_pool calls made on the calling (GUI) thread."""

    def __init__(self, monkeypatch):
        self.calls, self._real = 0, heatmap_item.max_pool
        self._gui = threading.current_thread()
        monkeypatch.setattr(heatmap_item, "max_pool", self)

    def __call__(self, *args):
        if threading.current_thread() is self._gui:
            self.calls += 1
        return self._real(*args)


def unprepared_pixels(qtbot, grid) -> QImage:
    """The same picture with every item pooling and colour-mapping on the GUI thread."""
    for head in grid.visible_heads():
        item = grid.panel(head).image
        item.set_prepared({})
        item._pooled = None
        item.updateImage()  # forget the rendered image too
    return paint(qtbot, grid)


@pytest.mark.parametrize("n_tokens", [600, 24])  # pooled (more cells than pixels) and not
def test_grid_draws_the_prepared_images_with_the_same_pixels(grid, qtbot, monkeypatch, n_tokens):
    grid.set_result(CoursePicture(make_result(n_tokens, seed=1)))
    paint(qtbot, grid)  # the first paint tells the preparer the pixels, table and levels
    result = make_result(n_tokens, seed=2)
    prepare_on_a_thread(grid, result)
    pooling = CountingPool(monkeypatch)
    grid.set_result(CoursePicture(result))
    prepared = paint(qtbot, grid)
    item = grid.panel(0).image
    assert item._prepared is not None and item._prepared[0] is item.image
    factors = next(iter(item._prepared[1]))
    assert (factors != (1, 1)) == (n_tokens == 600)
    if n_tokens == 600:
        assert pooling.calls == 0  # nothing pooled on the GUI thread
    assert prepared == unprepared_pixels(qtbot, grid)
    if n_tokens == 600:
        assert pooling.calls == len(grid.visible_heads())  # the fallback pools on the GUI thread


def test_colormap_change_recolours_a_prepared_picture(grid, qtbot, monkeypatch):
    grid.set_result(CoursePicture(make_result(600, seed=1)))
    paint(qtbot, grid)
    result = make_result(600, seed=2)
    prepare_on_a_thread(grid, result)
    grid.set_result(CoursePicture(result))
    viridis = paint(qtbot, grid)
    pooling = CountingPool(monkeypatch)
    grid.set_colormap("magma")
    magma = paint(qtbot, grid)
    assert magma != viridis
    assert pooling.calls == len(grid.visible_heads())  # recoloured on the GUI thread
    assert magma == unprepared_pixels(qtbot, grid)
    # the paint in magma told the preparer: the next result is prepared in the new colours
    result = make_result(600, seed=3)
    prepare_on_a_thread(grid, result)
    pooling.calls = 0
    grid.set_result(CoursePicture(result))
    shown = paint(qtbot, grid)
    assert pooling.calls == 0
    assert shown == unprepared_pixels(qtbot, grid)


def test_prepared_images_are_only_used_for_their_own_result(grid, qtbot):
    grid.set_result(CoursePicture(make_result(600, seed=1)))
    paint(qtbot, grid)
    prepare_on_a_thread(grid, make_result(600, seed=2))
    other = make_result(600, seed=3)  # never prepared
    grid.set_result(CoursePicture(other))
    assert grid.panel(0).image._prepared is None
    assert paint(qtbot, grid) == unprepared_pixels(qtbot, grid)


def test_worker_calls_the_hook_on_its_thread_and_survives_its_failure(qtbot):
    from explorer.app.course.state import AppState
    seen = []

    def hook(result):
        seen.append((threading.current_thread().name, result))
        raise RuntimeError("broken hook")

    worker = ComputeWorker()
    worker.after_forward = hook
    state = AppState(worker=worker)
    try:
        state.update(seed=5)
        qtbot.waitUntil(lambda: state.result is not None and state.result.config.seed == 5)
        assert seen and seen[-1][0] == "attention-compute"
        assert seen[-1][1] is state.result  # the picture still came
    finally:
        worker.stop(0)


def test_main_window_installs_the_preparer(qtbot):
    from explorer.app.course.state import AppState
    from explorer.gui.window.main_window import MainWindow
    state = AppState()
    window = MainWindow(state)
    qtbot.addWidget(window)
    try:
        assert state.worker.after_forward is window.heads_grid.preparer
    finally:
        window.close()
        state.worker.stop(0)


def test_several_results_prepared_before_one_is_shown(grid, qtbot):
    """During a drag the compute thread may finish a few results before the GUI takes one."""
    grid.set_result(CoursePicture(make_result(600, seed=1)))
    paint(qtbot, grid)
    first, second = make_result(600, seed=2), make_result(600, seed=3)
    prepare_on_a_thread(grid, first)
    prepare_on_a_thread(grid, first)  # the same result again replaces its entry
    prepare_on_a_thread(grid, second)
    assert grid.preparer.prepared == 3
    assert set(grid.preparer.take(second.weights)) == set(grid.visible_heads())
    assert grid.preparer.take(first.weights) == {}  # older than the one shown: dropped
