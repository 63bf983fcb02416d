"""The one labelled-matrix heatmap every matrix view draws with (heads, PE, KV, topic matrices).

`MatrixHeatmap` owns a PlotItem made a matrix display by `matrix_view` (row 0 at the top, a fixed
view: no mouse panning, context menu or auto-range button; cell axes without SI prefixes, one
position once read 'position (x0.001)') and its row-major ImageItem from `matrix_image` (cell
(r, c) centred at x = c, y = r). It draws what every matrix has: the image at given levels in a
colormap, framed on its cells; tick labels (token names through the one tick rule,
`token_ticks.tick_levels`); the title (never forcing the layout wider, `free_title_width`); the
axes' pens and tick font; and which cell values get dark text (the one contrast rule,
`colormaps.dark_text_on`). The views build on it: `HeadPanel` (gui/heads) adds its mask, values
and argmax marks, `MatrixPlot` (gui/topics) its band, outlined rows and values, and
`axes.setup_heatmap` gives the PE and KV panels one with a title and axis labels.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt

from .colormaps import dark_text_on, resolve_colormap
from .fonts import ui_font
from .token_ticks import tick_levels


def matrix_view(plot: pg.PlotItem, padding: float | None = 0.0) -> pg.PlotItem:
    """Make `plot` a fixed, row-0-on-top matrix display; `padding` its view's default padding
    around the matrix (None: pyqtgraph's default)."""
    plot.setMenuEnabled(False)
    plot.hideButtons()
    keep_auto_button_off_views(plot)
    view = plot.getViewBox()
    view.setMouseEnabled(False, False)
    view.invertY(True)  # row 0 (query 0) at the top
    if padding is not None:
        view.setDefaultPadding(padding)
    for name in ("left", "bottom"):
        plot.getAxis(name).enableAutoSIPrefix(False)
    return plot


def keep_auto_button_off_views(plot: pg.PlotItem) -> None:
    """Stop `plot`'s hidden auto-range button from following its plot into and out of views.

    pyqtgraph reconnects an item's view signals whenever its scene changes, so a layout that
    removes and re-adds `plot` (the heads grid refocused or reflowed) reconnects the button
    twice, and PySide6 6.11.3 keeps the weak reference of every connection it disconnects: 2
    per remove and add, ~15,000 in the 10,000-action soak (tests/gui/test_leaks.py). The button
    needs no view (its view callbacks are GraphicsItem's empty ones), so it never looks for
    one. Plot items lay out and hide it as before."""
    plot.autoBtn._updateView = _no_view


def _no_view() -> None:
    """A view-less item's _updateView (keep_auto_button_off_views)."""


def matrix_image(plot: pg.PlotItem, colormap=None, image: pg.ImageItem | None = None) -> pg.ImageItem:
    """Add a row-major ImageItem (or `image`) to `plot`, in `colormap` (a name or ColorMap)."""
    item = image if image is not None else pg.ImageItem(axisOrder="row-major")
    if colormap is not None:
        item.setColorMap(resolve_colormap(colormap))
    plot.addItem(item)
    return item


MIN_TITLE_SCALE = 0.75  # smaller than this is hard to read: cut instead


def free_title_width(plot: pg.PlotItem) -> None:
    """Let `plot`'s title be narrower than its text. pyqtgraph makes a title's text width its
    minimum width; a long title then holds the whole GraphicsLayout wider than its view, and
    the plots beside it are cut off at the view's edge instead of shrinking. A title wider than
    the room it gets is drawn smaller (down to MIN_TITLE_SCALE) rather than cut at the view's
    right edge (an English "head 1: weights (4 × 8)" beside a wider plot at 1024 px)."""
    label = plot.titleLabel
    if getattr(label, "_width_freed", False):
        return

    def update_min() -> None:  # setText and resizeEvent call it
        natural = label.item.boundingRect()  # the text's own size, whatever it is drawn at
        label.setMinimumWidth(0)
        label.setMinimumHeight(natural.height())
        label._sizeHint = {Qt.SizeHint.MinimumSize: (0, natural.height()),
                           Qt.SizeHint.PreferredSize: (natural.width(), natural.height()),
                           Qt.SizeHint.MaximumSize: (-1, -1), Qt.SizeHint.MinimumDescent: (0, 0)}
        label.updateGeometry()

    def resize(event) -> None:
        natural, room = label.item.boundingRect().width(), label.rect().width()
        scale = 1.0 if natural <= room or room <= 0 else max(MIN_TITLE_SCALE, room / natural)
        if label.item.scale() != scale:
            label.item.setScale(scale)
        pg.LabelItem.resizeEvent(label, event)  # centres the (scaled) text

    label.updateMin = update_min
    label.resizeEvent = resize
    label._width_freed = True


def style_cell_axes(plot: pg.PlotItem, colour, pt: float, width: float = 1, **style) -> None:
    """Both cell axes of `plot`: pen `colour` `width` px, tick labels in the bundled font at `pt`;
    `style` goes to ``AxisItem.setStyle`` (a dict value keyed by axis name is per axis)."""
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(pg.mkPen(colour, width=width))
        axis.setTextPen(pg.mkPen(colour))
        axis.setStyle(tickFont=ui_font(pt), **{k: v[name] if isinstance(v, dict) else v
                                              for k, v in style.items()})


class MatrixHeatmap:
    """A PlotItem showing one matrix (see the module docstring). `plot` and `image` may be given
    (custom axis or image items); `padding` as in `matrix_view`."""

    def __init__(self, plot: pg.PlotItem | None = None, colormap=None,
                 image: pg.ImageItem | None = None, padding: float | None = 0.0):
        self.plot = matrix_view(plot if plot is not None else pg.PlotItem(), padding)
        self.image = matrix_image(self.plot, colormap, image)
        self.shape: tuple[int, int] = (0, 0)  # (rows, cols) the view is framed on

    # -- data -------------------------------------------------------------------------------
    def set_image(self, array: np.ndarray, levels: tuple[float, float], colormap=None) -> bool:
        """Show `array` (rows, cols) at `levels`, in `colormap` when given (a name or ColorMap),
        framed on its cells; True when the shape changed (the view was framed anew)."""
        self.image.setImage(array, autoLevels=False, levels=levels)
        if colormap is not None:
            self.image.setColorMap(resolve_colormap(colormap))
        shape = tuple(array.shape[:2])
        if shape == self.shape:
            return False
        self.shape = shape
        rect = QRectF(-0.5, -0.5, shape[1], shape[0])
        self.image.setRect(rect)
        self.plot.getViewBox().setRange(rect, padding=0.0)
        return True

    def cells_rect(self) -> QRectF:
        """The rectangle the cells cover, in view coordinates."""
        rows, cols = self.shape
        return QRectF(-0.5, -0.5, cols, rows)

    def set_ticks(self, name: str, levels) -> None:
        """Tick levels (``[[(pos, text), ...], ...]``, None: automatic) on axis `name`."""
        self.plot.getAxis(name).setTicks(levels)

    def set_token_ticks(self, name: str, labels, max_chars: int, literal: bool = False) -> None:
        """Cell i labelled with labels[i] by the one tick rule (shortened, thinned when many)."""
        self.set_ticks(name, tick_levels([str(x) for x in labels], max_chars, literal))

    def set_title(self, text: str, **opts) -> None:
        """The title (``opts``: LabelItem's size, color, bold), never wider than the plot."""
        free_title_width(self.plot)
        self.plot.setTitle(text, **opts)

    # -- looks ------------------------------------------------------------------------------
    def style_axes(self, colour, pt: float, width: float = 1, **style) -> None:
        """Both cell axes styled by `style_cell_axes`."""
        style_cell_axes(self.plot, colour, pt, width, **style)

    @staticmethod
    def dark_text(array: np.ndarray, levels: tuple[float, float], colormap) -> np.ndarray:
        """Which cells get dark value text (bool, array's shape): the one contrast rule."""
        lo, hi = levels
        span = (hi - lo) or 1.0
        fractions = (np.asarray(array, dtype=float) - lo) / span
        return dark_text_on(resolve_colormap(colormap), fractions.ravel()).reshape(np.shape(array))
