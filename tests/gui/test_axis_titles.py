"""QA pass: a one-token sentence. Axis titles read 'query (x0.001)', 'key (x0.001)',
'position (x0.001)': pyqtgraph's automatic SI prefix saw a cell axis of range -0.5 … 0.5."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from explorer.core import AttentionConfig, forward, run_kv_cache
from explorer.gui.heads.grid import HeadsGrid
from explorer.gui.kv.panel import KVPanel
from explorer.gui.pe.panel import PEPanel
from explorer.gui.topics.widgets import MatrixPlot
from explorer.app.pictures import CoursePicture
from qt_settle import painted

ONE = AttentionConfig(tokens=("안녕",), d_model=8, n_heads=2, seed=1)


def _labels(*plots: pg.PlotItem) -> list[str]:
    return [plot.getAxis(name).label.toPlainText().strip() for plot in plots
            for name in ("left", "bottom")
            if plot.getAxis(name).label.toPlainText()]


def _shown(qtbot, widget):
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    qtbot.waitExposed(widget)
    painted(widget)  # laid out (the axes' ranges, hence any SI prefix, are set) and painted


def test_heads_grid_axis_titles_have_no_si_prefix(qtbot):
    grid = HeadsGrid()
    grid.set_result(CoursePicture(forward(ONE)))
    _shown(qtbot, grid)
    labels = _labels(*grid.plot_items())
    assert labels and all("x0.001" not in t and "(m" not in t for t in labels), labels


def test_pe_and_kv_axis_titles_have_no_si_prefix(qtbot):
    pe = PEPanel()
    pe.set_result(forward(ONE))
    _shown(qtbot, pe)
    kv = KVPanel()
    kv.set_trace(run_kv_cache(ONE))
    _shown(qtbot, kv)
    plots = [pe.table_widget.getPlotItem(), pe.similarity_widget.getPlotItem(), pe.inputs.x_plot,
             kv.cache_view.k_plot, kv.cache_view.w_plot]
    labels = _labels(*plots)
    assert len(labels) >= 8 and all("x0.001" not in t for t in labels), labels


def test_topic_matrix_axis_titles_have_no_si_prefix(qtbot):
    widget = pg.GraphicsLayoutWidget()
    plot = MatrixPlot("one")
    widget.ci.addItem(plot.plot)
    plot.set_axis_labels("query", "key")
    plot.set_matrix(np.ones((1, 1)), (0.0, 1.0), "viridis", values=True)
    _shown(qtbot, widget)
    assert _labels(plot.plot) == ["query", "key"]


def test_a_title_wider_than_its_plot_is_drawn_smaller_inside_the_view(qtbot):
    """The right-hand plot's long title was cut at the view's edge (English titles at 1024 px):
    it is drawn smaller, whole, and never below MIN_TITLE_SCALE; a short title keeps its size."""
    from explorer.gui.plotting.matrix import MIN_TITLE_SCALE, free_title_width
    view = pg.GraphicsLayoutWidget()
    short, long = view.addPlot(row=0, col=0), view.addPlot(row=0, col=1)
    for plot, text in ((short, "X"), (long, "head 1: weights (rows sum to 1, masked = 0)")):
        free_title_width(plot)
        plot.setTitle(text, size="14pt")
    _shown(qtbot, view)
    view.resize(520, 300)
    title = long.titleLabel
    qtbot.waitUntil(lambda: title.item.scale() < 1, timeout=5000)  # the layout settles
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert MIN_TITLE_SCALE <= title.item.scale() < 1
    assert title.item.sceneBoundingRect().right() <= shown.right() + 1
    assert short.titleLabel.item.scale() == 1
    view.resize(1400, 300)  # room again: full size
    qtbot.waitUntil(lambda: title.item.scale() == 1, timeout=5000)
