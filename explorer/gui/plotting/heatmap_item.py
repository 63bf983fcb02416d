"""A head's weight image and the outlines drawn over it (mask_item.py draws masked cells).

Fully masked query rows get a dashed outline; the most-attended key of each row gets a two-tone
box (visible on any colour). All coordinates are cell units: cell (row r, col c) is centred at
(x=c, y=r).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pyqtgraph as pg
from pyqtgraph.functions_qimage import try_make_qimage
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

_RASTER_DEVICES = (1, 2, 3)  # QInternal.Widget, Pixmap, Image (not Printer, Picture)
EMPTY_ROW_COLOUR = QColor(200, 40, 40)
ARGMAX_MIN_CELL_PX = 9  # smaller cells: the boxes would hide the colours they mark


class HeatmapImageItem(pg.ImageItem):
    """ImageItem whose rendered QImage is in the format Qt's raster engine scales fastest.

    An 8-bit indexed 16x16 image blown up to 200x200 px costs ~0.3 ms per paint, premultiplied
    ARGB ~0.08 ms, opaque RGB32 less. The conversion runs once per new image, not per paint.
    """

    def __init__(self, opaque: bool, **kwargs):
        super().__init__(**kwargs)
        self._fast = (QImage.Format.Format_RGB32 if opaque
                      else QImage.Format.Format_ARGB32_Premultiplied)
        self._pooled: tuple | None = None  # (what it was made from, QImage)
        self._pooler: pg.ImageItem | None = None
        self._prepared: tuple | None = None  # (image it is for, {(rows, cols): Prepared})
        self.on_paint = None  # called as on_paint(lut, levels, rows_px, cols_px) by raster paints

    def set_prepared(self, prepared: dict) -> None:
        """Images made off the GUI thread for the image just set (`make_prepared`), keyed by
        their (rows, cols) pool factors; used by paint only where factors, lookup table and
        levels all match, else the item colour-maps (and pools) itself as before."""
        self._prepared = (self.image, prepared) if prepared else None

    def _prepared_image(self, rows: int, cols: int) -> QImage | None:
        if self._prepared is None or self._prepared[0] is not self.image:
            return None
        found = self._prepared[1].get((rows, cols))
        if found is None or not same_table(found.lut, self.lut) or self.levels is None \
                or found.levels != np.asarray(self.levels).tolist():
            return None
        return found.qimage

    def render(self):
        if self.axisOrder == "row-major" and not self.autoDownsample:
            ready = self._prepared_image(1, 1)
            if ready is not None:  # as super().render() would make it, made on the compute thread
                self.qimage = ready
                self._renderRequired = self._unrenderable = False
                return
        super().render()
        if self.qimage is not None and self.qimage.format() != self._fast:
            self.qimage = self.qimage.convertToFormat(self._fast)

    def pool_factors(self, painter: QPainter) -> tuple[int, int]:
        """(rows, cols) per drawn block at this painter's device pixels (1, 1: no pooling).

        Vector output (SVG, print) always gets every cell."""
        if self.image is None or self.axisOrder != "row-major" or painter.device() is None \
                or painter.device().devType() not in _RASTER_DEVICES:
            return 1, 1
        t = painter.deviceTransform()  # item (cell) units to device pixels, scale included
        n_rows, n_cols = self.image.shape[:2]
        return (pool_factor(n_rows, n_rows * math.hypot(t.m21(), t.m22())),
                pool_factor(n_cols, n_cols * math.hypot(t.m11(), t.m12())))

    def paint(self, painter, *args):
        """More cells than device pixels: draw block maxima (max_pool below) instead of letting the
        raster engine drop rows and columns, and colour-map only those blocks. The item's
        image (hover, export, tests) stays the full matrix."""
        rows, cols = self.pool_factors(painter)
        self._note_paint(painter)
        if (rows, cols) == (1, 1):
            super().paint(painter, *args)
            return
        n_rows, n_cols = self.image.shape[:2]
        painter.drawImage(QRectF(0, 0, n_cols, n_rows), self._pooled_image(rows, cols),
                          QRectF(0, 0, n_cols / cols, n_rows / rows))

    def _note_paint(self, painter: QPainter) -> None:
        """Tell `on_paint` this paint's device pixels, lookup table and levels (what the next
        images made off the GUI thread should match)."""
        if self.on_paint is None or self.image is None or self.levels is None \
                or painter.device() is None or painter.device().devType() not in _RASTER_DEVICES:
            return
        t = painter.deviceTransform()
        n_rows, n_cols = self.image.shape[:2]
        self.on_paint(self.lut, np.asarray(self.levels).tolist(), self._fast,
                      n_rows * math.hypot(t.m21(), t.m22()), n_cols * math.hypot(t.m11(), t.m12()))

    def _pooled_image(self, rows: int, cols: int) -> QImage:
        """The pooled blocks in this item's colours (same levels and lookup table), cached
        until the image, factors, levels or colormap change."""
        levels = None if self.levels is None else np.asarray(self.levels).tolist()
        if self._pooled is not None:
            (image, lut, rest), pooled = self._pooled
            if image is self.image and lut is self.lut and rest == (rows, cols, levels):
                return pooled
        ready = self._prepared_image(rows, cols)
        if ready is not None:
            self._pooled = ((self.image, self.lut, (rows, cols, levels)), ready)
            return ready
        if self._pooler is None:
            self._pooler = pg.ImageItem(axisOrder="row-major")
        self._pooler.setLookupTable(self.lut, update=False)
        self._pooler.setImage(max_pool(self.image, rows, cols), autoLevels=False,
                              levels=self.levels)
        self._pooler.render()
        image = self._pooler.qimage.convertToFormat(self._fast)
        self._pooled = ((self.image, self.lut, (rows, cols, levels)), image)
        return image


class Prepared(NamedTuple):
    """One colour-mapped (and maybe pooled) image and what it was made with."""
    lut: object
    levels: list
    qimage: QImage


def same_table(a, b) -> bool:
    """Two lookup tables with the same colours (each item holds its own copy)."""
    return a is b or (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                      and a.shape == b.shape and bool(np.array_equal(a, b)))


def make_prepared(matrix: np.ndarray, rows: int, cols: int, lut, levels: list,
                  fmt: QImage.Format) -> Prepared | None:
    """What HeatmapImageItem would draw for `matrix` at pool factors (rows, cols) with this
    lookup table and levels, made by the same pyqtgraph function (pixels identical); any thread
    (QImage is not tied to the GUI thread). None where the item's own path differs (NaNs, a
    non-uint8 table)."""
    if lut is None or callable(lut) or getattr(lut, "dtype", None) != np.uint8 \
            or (matrix.dtype.kind == "f" and np.isnan(matrix.min())):
        return None
    qimage = try_make_qimage(max_pool(matrix, rows, cols), levels=np.asarray(levels), lut=lut)
    if qimage is None:
        return None
    # a deep copy where no conversion is needed: the QImage must not share the pooled buffer
    qimage = qimage.convertToFormat(fmt) if qimage.format() != fmt else qimage.copy()
    return Prepared(lut, list(levels), qimage)


# -- more cells than pixels ---------------------------------------------------------------------
# Matrices with more cells than the screen has pixels, reduced so no maximum disappears.
#
# Drawing a 512 x 512 matrix into a 300-pixel panel makes the raster engine sample 300 of the 512
# rows and columns: the rest, and any row's largest weight among them, are simply not shown (and
# the whole image is colour-mapped and scaled on every paint). Block max-pooling keeps every
# block's largest value, so each row's most-attended key still lights up its block.

def pool_factor(cells: int, pixels: float) -> int:
    """Cells per block along one axis: 1 while every cell gets at least one pixel, else the
    fewest cells per block that leave a block no smaller than a pixel."""
    if pixels <= 0 or cells <= pixels:
        return 1
    return min(cells, math.ceil(cells / pixels))  # a panel squeezed to ~0 px: one block, not 10^15


def max_pool(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(ceil(n / rows), ceil(m / cols)) block maxima of a (n, m) matrix; the last blocks may
    hold fewer cells. `matrix` itself when both factors are 1."""
    if rows == 1 and cols == 1:
        return matrix
    return _pool_rows(_pool_rows(matrix, rows).T, cols).T


def _pool_rows(matrix: np.ndarray, rows: int) -> np.ndarray:
    """Maxima of blocks of `rows` consecutive rows: an elementwise maximum of `rows` strided
    views (a few whole-array passes; numpy's max over a reshaped block axis is ~10x slower)."""
    if rows == 1:
        return matrix
    out = matrix[0::rows].copy()  # (out_n, m)
    for offset in range(1, rows):
        part = matrix[offset::rows]  # out_n or out_n - 1 rows: the last block may be short
        np.maximum(out[: len(part)], part, out=out[: len(part)])
    return out


def cells_path(rows: np.ndarray, cols: np.ndarray, inset: float = 0.06) -> QPainterPath:
    """Boxes just inside cells (rows[i], cols[i])."""
    path = QPainterPath()
    size = 1.0 - 2 * inset
    for r, c in zip(rows, cols):
        path.addRect(QRectF(c - 0.5 + inset, r - 0.5 + inset, size, size))
    return path


def cosmetic_pen(colour, width: float, style=Qt.PenStyle.SolidLine) -> QPen:
    pen = QPen(QColor(colour), width, style)
    pen.setCosmetic(True)  # width in screen pixels, whatever the zoom
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


class CellMarksItem(QGraphicsItem):
    """Strokes one path with a list of pens, in order (e.g. a wide dark pen, then a thin light one).

    The path may be given as a function that builds it: it is then built on the first paint that
    needs it (512 argmax boxes x 16 heads cost ~20 ms to build, and are too small to draw).
    """

    def __init__(self, pens: list[QPen], min_cell_px: float = 0.0, antialias: bool = False,
                 parent=None):
        """Nothing is painted while a cell is smaller than `min_cell_px` on screen."""
        super().__init__(parent)
        self.min_cell_px = min_cell_px
        self.antialias = antialias  # axis-aligned boxes are crisper (and cheaper) without
        self._path: QPainterPath | None = QPainterPath()
        self._make_path = None
        self._pens = list(pens)
        self._extent = QRectF()
        self._cells = (np.zeros(0, int), np.zeros(0, int))

    def set_path(self, path, extent: QRectF, cells=None) -> None:
        """`path`: a QPainterPath or a function returning one; `extent`: the grid rectangle;
        `cells`: (rows, cols) arrays of the cells marked, kept for tests and export."""
        if extent != self._extent:
            self.prepareGeometryChange()
            self._extent = QRectF(extent)
        if callable(path):
            self._path, self._make_path = None, path
        else:
            self._path, self._make_path = path, None
        if cells is not None:
            self._cells = (np.asarray(cells[0], int), np.asarray(cells[1], int))
        self.update()

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(row, col) of every marked cell."""
        return list(zip(self._cells[0].tolist(), self._cells[1].tolist()))

    def set_pens(self, pens: list[QPen]) -> None:
        self._pens = list(pens)
        self.update()

    def path(self) -> QPainterPath:
        if self._path is None:
            self._path = self._make_path()
        return self._path

    def boundingRect(self) -> QRectF:
        return self._extent.adjusted(-0.5, -0.5, 0.5, 0.5)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        t = painter.worldTransform()
        if min(abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12())) < self.min_cell_px:
            return
        path = self.path()
        if path.isEmpty():
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, self.antialias)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for pen in self._pens:
            painter.setPen(pen)
            painter.drawPath(path)
