"""Small plotting helpers shared by the positional-encoding and KV-cache panels.

Heatmaps follow pyqtgraph's MatrixDisplayExample: row-major ImageItem, cell (r, c)
centred on (c, r), y axis pointing down so row 0 is at the top like a printed matrix.
Text uses the bundled Hangul font (fonts.ui_font). Signed data (PE, X, K, V) use a
diverging map centred on zero; the app's colormaps module holds the maps for weights.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from .matrix import free_title_width  # noqa: F401 (its old home)
from .matrix import MatrixHeatmap, style_cell_axes
from .fonts import css_pt, ui_font
from .token_ticks import tick_levels

SIGNED_COLORMAP = "CET-D1"        # diverging blue - white - red: zero is white, sign is hue
WEIGHTS_COLORMAP = "viridis"
MAX_TICK_LABELS = 40              # above this many rows, numeric ticks instead of token names
LABEL_ALL_MAX = 8                 # up to this many, every row named in one level


def heatmap_plot(title: str, x_label: str, y_label: str, colormap: str = SIGNED_COLORMAP):
    """A PlotWidget holding one row-major ImageItem; returns (widget, image_item)."""
    widget = pg.PlotWidget()
    widget.setBackground("w")
    item = setup_heatmap(widget.getPlotItem(), title, x_label, y_label, colormap)
    return widget, item


def setup_heatmap(plot: pg.PlotItem, title: str, x_label: str, y_label: str,
                  colormap: str = SIGNED_COLORMAP) -> pg.ImageItem:
    """Turn `plot` into a matrix display (row 0 on top, fixed view); returns its ImageItem."""
    heatmap = MatrixHeatmap(plot, colormap, padding=None)
    heatmap.set_title(title, color="k")
    item = heatmap.image
    item.setPos(-0.5, -0.5)  # the panels frame it with show_cells
    if x_label:
        plot.setLabel("bottom", x_label)
    if y_label:
        plot.setLabel("left", y_label)
    style_axes(plot, presentation=False)
    return item


def color_bar(item: pg.ImageItem, plot: pg.PlotItem) -> pg.ColorBarItem:
    """A read-only colour scale at the right of `plot`, in the image's colormap."""
    bar = pg.ColorBarItem(colorMap=item.getColorMap(), interactive=False, width=12)
    bar.setImageItem(item, insert_in=plot)
    return bar


def style_axes(plot: pg.PlotItem, presentation: bool) -> None:
    """Readable axes in the bundled font; bigger on a projector."""
    size = 13 if presentation else 9
    style_cell_axes(plot, "k", size)
    for name in ("left", "bottom"):
        plot.getAxis(name).label.setFont(ui_font(size + 1))
    title = plot.titleLabel
    title.item.setFont(ui_font(size + 2, bold=True))
    title.opts.update(size=css_pt(size + 2), bold=True)  # the title's html names its own size
    if title.text:
        title.setText(title.text)


def set_title(plot: pg.PlotItem, text: str, color: str = "k") -> None:
    """Change a title's text or colour; size and font stay those style_axes gave it."""
    plot.setTitle(text, color=color)


def set_index_ticks(axis: pg.AxisItem, labels) -> None:
    """Tick i at cell i labelled with labels[i]. Above LABEL_ALL_MAX, coarse-to-fine levels
    (tick_levels), so pyqtgraph leaves out a finer level where its labels would overlap (SmolLM2's
    21 cached tokens in a 110 px panel were written over each other); automatic numeric ticks
    above MAX_TICK_LABELS."""
    labels = list(labels)
    if 0 < len(labels) <= LABEL_ALL_MAX:
        axis.setTicks([[(i, str(t)) for i, t in enumerate(labels)]])
    elif 0 < len(labels) <= MAX_TICK_LABELS:
        axis.setTicks(tick_levels([str(t) for t in labels], max_chars=10))
    else:
        axis.setTicks(None)


def fraction_ticks(high: float) -> list[list[tuple[float, str]]]:
    """Levels for an axis from 0 to `high`: the middle first, then the ends, then the quarters;
    pyqtgraph leaves out a finer level (and labels at the very ends of a short axis) where they
    would not fit, where automatic ticks wrote 0.2 … 0.8 over each other on a projector."""
    def tick(v: float) -> tuple[float, str]:
        return (v, f"{v:g}")
    return [[tick(high / 2)], [tick(0.0), tick(high)], [tick(high / 4), tick(3 * high / 4)]]


def set_count_ticks(axis: pg.AxisItem, count: int, max_labels: int = 16) -> None:
    """Integer ticks 0 .. count-1 for a cell axis: every cell when few, automatic when many."""
    if count <= max_labels:
        axis.setTicks([[(i, str(i)) for i in range(count)]])
    else:
        axis.setTicks(None)


def set_stride_ticks(axis: pg.AxisItem, count: int, max_labels: int) -> None:
    """Integer ticks 0, s, 2s, … below `count`, s in 1, 2, 5, 10, 20, 50, …: at most about
    `max_labels` labels (pyqtgraph's automatic ticks numbered all 14 steps in 200 px)."""
    stride, factors = 1, (2, 2.5, 2)  # 1 → 2 → 5 → 10 → 20 → 50 …
    while count > max_labels * stride:
        stride = round(stride * factors[0])
        factors = factors[1:] + factors[:1]
    axis.setTicks([[(i, str(i)) for i in range(0, count, stride)]])


def show_cells(plot: pg.PlotItem, n_rows: int, n_cols: int) -> None:
    """Frame exactly the n_rows x n_cols cells."""
    plot.setRange(xRange=(-0.5, n_cols - 0.5), yRange=(-0.5, n_rows - 0.5), padding=0)


def set_legend_size(legend: pg.LegendItem, size: str) -> None:
    """LegendItem.setLabelTextSize only affects later entries; re-render the existing ones."""
    legend.setLabelTextSize(size)
    for _, label in legend.items:
        label.setText(label.text, size=size)
