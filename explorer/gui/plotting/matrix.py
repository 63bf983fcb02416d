"""The one labelled-matrix primitive every heatmap starts from (heads, PE, KV, topic matrices).

`matrix_view(plot)` turns a PlotItem into a matrix display: row 0 at the top, a fixed view (no
mouse panning, context menu or auto-range button), cell axes without SI prefixes (one position
once read 'position (x0.001)'). `matrix_image(plot)` adds the row-major ImageItem (cell (r, c)
at x = c, y = r). The views add their own layers on top: HeadPanel its mask, values and argmax
marks, MatrixPlot its band, outlined rows and values, axes.setup_heatmap a title and labels.
"""

from __future__ import annotations

import pyqtgraph as pg

from .colormaps import resolve_colormap


def matrix_view(plot: pg.PlotItem, padding: float | None = 0.0) -> pg.PlotItem:
    """Make `plot` a fixed, row-0-on-top matrix display; `padding` its view's default padding
    around the matrix (None: pyqtgraph's default)."""
    plot.setMenuEnabled(False)
    plot.hideButtons()
    view = plot.getViewBox()
    view.setMouseEnabled(False, False)
    view.invertY(True)  # row 0 (query 0) at the top
    if padding is not None:
        view.setDefaultPadding(padding)
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)
    return plot


def matrix_image(plot: pg.PlotItem, colormap=None, image: pg.ImageItem | None = None) -> pg.ImageItem:
    """Add a row-major ImageItem (or `image`) to `plot`, in `colormap` (a name or ColorMap)."""
    item = image if image is not None else pg.ImageItem(axisOrder="row-major")
    if colormap is not None:
        item.setColorMap(resolve_colormap(colormap))
    plot.addItem(item)
    return item
