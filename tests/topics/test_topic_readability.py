"""QA pass: topic pictures stay readable when space is short (presentation mode, small windows)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from explorer.gui.topics.widgets import MatrixPlot


def _matrix_widget(qtbot, width, height, presentation=False):
    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    plot = MatrixPlot("weights")
    widget.ci.addItem(plot.plot)
    plot.set_presentation(presentation)
    plot.set_matrix(np.full((4, 8), 0.25), (0.0, 1.0), "viridis", values=True)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    settle_layout(widget)
    return widget, plot


def settle_layout(widget) -> None:
    """The plot's final geometry: its axes size themselves to their tick labels while painting,
    so paint once (grab), then run the layout requests that posted."""
    widget.grab()
    QApplication.sendPostedEvents()
    widget.ci.layout.activate()


def _cell_px(plot):
    rows, cols = plot.matrix().shape
    view = plot.plot.getViewBox()
    return view.width() / cols, view.height() / rows


def _label_px(plot) -> int:
    """The pixel size the values are painted at in cells this large (0: not painted)."""
    return plot.values.font_px_for(*_cell_px(plot))


def test_cell_values_hide_when_cells_are_narrower_than_the_numbers(qtbot):
    """In presentation mode at 1400 px the cross-attention heads printed '0.92 0.06 …' into
    30 px cells: the numbers ran into each other. The labels shrink to fit, down to a
    minimum, and below it are not painted."""
    widget, plot = _matrix_widget(qtbot, 260, 200, presentation=True)
    assert plot.value_labels()  # still there (tests, export) ...
    assert _label_px(plot) == 0  # ... but not drawn over each other
    widget.resize(1200, 500)  # room again: they come back
    qtbot.waitUntil(lambda: _label_px(plot) > 0, timeout=2000)


def test_cell_values_shown_when_they_fit(qtbot):
    widget, plot = _matrix_widget(qtbot, 900, 400)
    assert _label_px(plot) >= 12  # the full 9 pt (12 px) size: nothing to shrink for


def test_explanation_never_cut_off_when_the_window_is_short(qtbot, korean_ui):
    """Presentation mode, 1400 x 900 with the controls shown: the √d_head explanation got 82 of
    the 175 px its Korean paragraph needs, cut mid-line with no way to read the rest (Korean UI:
    the paragraph shown is the Korean one)."""
    from explorer.core import get_preset
    from explorer.app.course.state import AppState
    from explorer.gui.topics.scaling_view import ScalingView

    state = AppState(get_preset("saturated-softmax").config)
    view = ScalingView(state)
    qtbot.addWidget(view)
    view.set_presentation(True)
    view.resize(1000, 560)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: not view.runner.is_busy(), timeout=60_000)
    box = view.explanation
    qtbot.waitUntil(lambda: box.body.verticalScrollBar().maximum() > 0, timeout=2000)  # scrolls
    for label in (box.paragraph,):  # the whole paragraph
        assert label.height() >= label.heightForWidth(label.width())
    assert box.height() < view.height() / 2  # the plots keep room too
    view.resize(1000, 1400)  # room for everything: no scrolling
    qtbot.waitUntil(lambda: box.body.verticalScrollBar().maximum() == 0, timeout=2000)
    box.toggle.setChecked(False)  # folded: only the title line
    assert not box.body.isVisible()
    state.shutdown()
