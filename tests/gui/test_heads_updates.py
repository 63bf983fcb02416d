"""An update at the same size only swaps data: no view box resizes, no axis rebuilds its ticks.

A title's text width used to set its column's share of the grid: a new entropy with a wider
digit moved the column edges by a pixel, which reset both axes of that head and rebuilt all
their tick labels on every seed change (most of the GUI thread's time at 32 x 256 x 8).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QGraphicsWidget

from explorer.core import AttentionConfig, forward
from explorer.gui.plotting.token_axis import TokenAxis
from explorer.app.pictures import CoursePicture
from qt_settle import run_posted_events


def _result(seed: int, entropy: float | None = None, n: int = 32, heads: int = 8):
    """A forward result; `entropy`: every query row of heads 0 and 1 gets this entropy (so
    their titles read 'H̄ entropy' while the other heads keep theirs)."""
    result = forward(AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=8 * heads,
                                     n_heads=heads, seed=seed))
    if entropy is None:
        return result
    values = result.stats.entropy.copy()
    values[:2] = entropy
    return dataclasses.replace(result, stats=dataclasses.replace(result.stats, entropy=values))


@pytest.fixture
def grid_size():
    return (1200, 800)


def _painted(qtbot, grid) -> None:
    run_posted_events()  # the layout passes the update asked for
    grid.graphics_view().grab()  # paints every axis that must repaint


def test_same_size_update_resizes_nothing_and_keeps_axis_ticks(grid, qtbot, monkeypatch):
    grid.set_result(CoursePicture(_result(1, entropy=1.11)))
    _painted(qtbot, grid)
    rebuilt, resized = [], []
    original = TokenAxis.generateDrawSpecs

    def counting(axis, painter):
        rebuilt.append(axis)
        return original(axis, painter)

    monkeypatch.setattr(TokenAxis, "generateDrawSpecs", counting)
    boxes = [plot.getViewBox() for plot in grid.plot_items()]
    ranges = [box.viewRange() for box in boxes]
    for box in boxes:
        box.sigResized.connect(resized.append)
    for seed, entropy in ((2, 4.44), (3, None), (4, 1.11), (5, 0.44)):
        grid.set_result(CoursePicture(_result(seed, entropy)))
        _painted(qtbot, grid)
    assert grid.panel(0).plot.titleLabel.text.endswith("H̄ 0.44")  # the titles did change
    assert resized == []
    assert rebuilt == []
    assert [box.viewRange() for box in boxes] == ranges


def test_a_new_size_still_rebuilds_the_ticks(grid, qtbot, monkeypatch):
    """The counter above can see a rebuild: a new token count is one."""
    grid.set_result(CoursePicture(_result(1)))
    _painted(qtbot, grid)
    rebuilt = []
    original = TokenAxis.generateDrawSpecs
    monkeypatch.setattr(TokenAxis, "generateDrawSpecs",
                        lambda axis, p: rebuilt.append(axis) or original(axis, p))
    grid.set_result(CoursePicture(_result(1, n=40)))
    _painted(qtbot, grid)
    assert len(rebuilt) >= 16
    assert np.array_equal(grid.head_image(0), _result(1, n=40).weights[0])


# -- more cells than pixels ----------------------------------------------------------------------
def _painted_factors(grid, qtbot, head=0):
    """The pooling factors the head's image used at its last paint on the screen."""
    seen = []
    panel = grid.panel(head)
    original = type(panel.image).pool_factors

    def spy(item, painter):
        factors = original(item, painter)
        if item is panel.image:
            seen.append(factors)
        return factors

    type(panel.image).pool_factors = spy
    try:
        grid.graphics_view().viewport().repaint()  # synchronous: the spy has seen the paint
    finally:
        type(panel.image).pool_factors = original
    return seen[-1]


def test_large_matrix_is_drawn_pooled_and_keeps_every_rows_peak(grid, qtbot):
    """512 keys in a ~250-pixel panel: blocks of 2 or 3 cells, each row's peak still shown."""
    result = _result(1, n=512, heads=4)
    weights = result.weights.copy()  # one sharp peak per row, as a trained head would have
    rng = np.random.default_rng(0)
    peaks = rng.integers(0, 512, 512)
    weights[0] = 1e-4
    weights[0, np.arange(512), peaks] = 1.0
    result = dataclasses.replace(result, weights=weights)
    grid.set_result(CoursePicture(result))
    _painted(qtbot, grid)
    rows, cols = _painted_factors(grid, qtbot)
    assert rows > 1 and cols > 1
    item = grid.panel(0).image
    assert item.image is grid.head_image(0) and item.image.shape == (512, 512)  # hover: real cells
    image = grid.grab().toImage()
    low = tuple(int(v) for v in item.lut[0][:3])
    view = grid.graphics_view()
    missed = []
    for row in range(0, 512, 7):
        scene = grid.panel(0).cell_scene_pos(row, int(peaks[row]))
        centre = view.mapTo(grid, view.mapFromScene(scene))
        around = {image.pixelColor(centre.x() + dx, centre.y() + dy).getRgb()[:3]
                  for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        if around == {low}:  # nothing but the background weight near the peak: it was dropped
            missed.append(row)
    assert missed == []


class _LayoutRequests(QObject):
    """Counts the layout passes asked of graphics widgets (QGraphicsLayout::invalidate posts a
    LayoutRequest to the widget at the top of the invalidated layouts)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.LayoutRequest and isinstance(watched, QGraphicsWidget):
            self.count += 1
        return False


def test_a_new_entropy_retitles_without_a_layout_pass(grid, qtbot):
    """Only the value in the titles changes: the text is replaced in place (each title's
    geometry update re-laid out the whole grid, ~0.3 ms a head at every slider move)."""
    grid.set_result(CoursePicture(_result(1, entropy=1.11)))
    _painted(qtbot, grid)
    title = grid.panel(0).plot.titleLabel
    centre = title.mapRectToScene(title.itemRect()).center().x()
    requests = _LayoutRequests()
    QApplication.instance().installEventFilter(requests)
    try:
        for seed, entropy in ((2, 4.44), (3, 0.5), (4, 2.25)):
            grid.set_result(CoursePicture(_result(seed, entropy)))
            _painted(qtbot, grid)
    finally:
        QApplication.instance().removeEventFilter(requests)
    assert title.text.endswith("H̄ 2.25") and "2.25" in title.item.toPlainText()
    assert requests.count == 0
    assert title.mapRectToScene(title.itemRect()).center().x() == pytest.approx(centre, abs=1.0)
