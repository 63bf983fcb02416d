"""All the per-cell value labels of one heatmap, painted by a single QGraphicsItem.

The one way cell values are drawn: the heads grid (attention weights) and the topics' matrices
(any numbers) both use it. One TextItem per cell costs ~150 ms at 16 x 16 x 4 heads. Weights
(`set_cells`) are one of 101 strings ("0.00" .. "1.00") in one of two colours, so they are
rendered once into small pixmaps and blitted (~1.5 us a label against ~3-7 us for drawText).
Other labels (`set_texts`: signed scores, d_ff sizes; small matrices only) are drawn with
drawText: a pixmap atlas per set of numbers would build new paint devices on every update
(PySide6 6.11 leaks references per new paint device, see shared_atlas). Either way labels are
drawn in device pixels, upright and crisp whatever the view's scale or the inverted y axis,
shrink to fit their cells (none below a minimum size), and scale with an export.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEngine, QPixmap, QTransform
from PySide6.QtWidgets import QGraphicsItem

MIN_FONT_PX = 7          # below this the labels are unreadable: paint nothing
TEXT_WIDTH_PER_PX = 2.4  # "0.57" is about 2.4 font-pixel-sizes wide
_LABELS = [f"{k / 100:.2f}" for k in range(101)]  # weights are in [0, 1]: 101 possible strings
_COLOURS = (QColor(255, 255, 255), QColor(0, 0, 0))  # index 1 = dark text


def _device_pixel_ratio(painter: QPainter) -> float:
    """Device pixels per logical pixel of what is really painted on: QWidget.render() into a
    4x image paints "on the widget" (ratio 1) but its device transform carries the 4."""
    world, device = painter.worldTransform(), painter.deviceTransform()
    world_scale = math.hypot(world.m11(), world.m12())
    ratio = math.hypot(device.m11(), device.m12()) / world_scale if world_scale else 1.0
    return round(max(ratio, painter.device().devicePixelRatioF(), 1.0), 3)


class CellTextItem(QGraphicsItem):
    """Labels cell (row r, col c) of a (rows, cols) grid centred at item coordinates (c, r)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._codes = np.zeros((0, 0), dtype=np.int32)  # (rows, cols) index into _texts, -1 = none
        self._texts: list[str] = _LABELS                  # _LABELS: the pixmap atlas applies
        self._width_per_px = TEXT_WIDTH_PER_PX            # widest label / font pixel size
        self._dark = np.zeros((0, 0), dtype=bool)         # (rows, cols) True = dark text
        self._font = QFont()
        self._max_px = 12
        self._min_px = MIN_FONT_PX
        self._height_share = 0.6

    # -- data ---------------------------------------------------------------------------
    def set_cells(self, values: np.ndarray, dark: np.ndarray, show: np.ndarray) -> None:
        """Weights in [0, 1] as "0.00" .. "1.00". values, dark, show: (rows, cols); cells where
        `show` is False get no label."""
        codes = np.rint(np.clip(np.nan_to_num(values), 0.0, 1.0) * 100).astype(np.int32)
        self._set(np.where(show, codes, -1), _LABELS, TEXT_WIDTH_PER_PX, dark)

    def set_texts(self, texts: np.ndarray, dark: np.ndarray, show: np.ndarray | None = None) -> None:
        """Any labels: texts (rows, cols) of str, dark and show (rows, cols) bool (show None:
        every cell). For small matrices: these are drawn as text, not from an atlas."""
        texts = np.asarray(texts, dtype=str).reshape(np.shape(dark))
        unique, inverse = np.unique(texts, return_inverse=True)  # (k,), (rows * cols,)
        codes = inverse.reshape(texts.shape).astype(np.int32)
        if show is not None:
            codes = np.where(show, codes, -1)
        labels = [str(text) for text in unique]
        self._set(codes, labels, _width_per_px(self._font, labels), dark)

    def _set(self, codes: np.ndarray, texts: list[str], width_per_px: float, dark) -> None:
        if codes.shape != self._codes.shape:
            self.prepareGeometryChange()
        self._codes, self._texts, self._width_per_px = codes, texts, width_per_px
        self._dark = np.asarray(dark, dtype=bool)
        self.update()

    def set_font(self, font: QFont, max_px: int, min_px: int = MIN_FONT_PX,
                 height_share: float = 0.6) -> None:
        """The family/weight and the pixel-size range: labels shrink to fit their cells (at
        most `height_share` of a cell's height) and are not painted at all when they would have
        to be smaller than `min_px`."""
        self._font = QFont(font)
        self._height_share = height_share
        self._max_px = int(max_px)
        self._min_px = max(1, int(min_px))
        if self._texts is not _LABELS:
            self._width_per_px = _width_per_px(self._font, self._texts)
        self.update()

    def labels(self) -> list[tuple[int, int, str]]:
        """(row, col, text) for every labelled cell; for tests and export."""
        rows, cols = np.nonzero(self._codes >= 0)
        return [(int(r), int(c), self._texts[self._codes[r, c]]) for r, c in zip(rows, cols)]

    def font_px_for(self, cell_w: float, cell_h: float | None = None, scale: float = 1.0) -> int:
        """Label pixel size for cells `cell_w` x `cell_h` device pixels (0 = too small to print).

        `scale`: device pixels per scene pixel (1 on screen, more in a high-resolution export).
        """
        cell_h = cell_w if cell_h is None else cell_h
        px = min(int(self._max_px * scale), int(cell_w / self._width_per_px),
                 int(cell_h * self._height_share))
        return px if px >= self._min_px * scale else 0

    # -- QGraphicsItem ------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        rows, cols = self._codes.shape
        return QRectF(-0.5, -0.5, cols, rows)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if self._codes.size == 0:
            return
        t = painter.worldTransform()
        cell_w, cell_h = abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12())
        scene_cell = self.sceneTransform().mapRect(QRectF(0, 0, 1, 1))
        if self._texts is _LABELS:  # weights: square cells, as the heads grid always drew them
            cell_w = cell_h = min(cell_w, cell_h)
            scale = cell_w / max(1e-9, min(scene_cell.width(), scene_cell.height()))
        else:
            scale = cell_w / max(1e-9, scene_cell.width())
        px = self.font_px_for(cell_w, cell_h, scale)
        if px == 0:
            return
        rows, cols = np.nonzero(self._codes >= 0)
        codes = self._codes[rows, cols]
        dark = self._dark[rows, cols].astype(np.intp)
        engine = painter.paintEngine()
        vector = engine is not None and engine.type() != QPaintEngine.Type.Raster  # SVG, PDF
        if vector or self._texts is not _LABELS:
            self._paint_as_text(painter, t, px, rows, cols, codes, dark)
            return
        # taken from the shared cache for this paint only: an item hidden in a closed topic or
        # an unused tab keeps no pixmaps alive, so the cache's bound is all the atlases hold
        atlas, halves = shared_atlas(self._font, px, _device_pixel_ratio(painter))
        half = halves[dark, codes]  # (m, 2)
        xs = np.rint(t.m11() * cols + t.m21() * rows + t.dx() - half[:, 0]).astype(int)
        ys = np.rint(t.m12() * cols + t.m22() * rows + t.dy() - half[:, 1]).astype(int)
        painter.save()
        painter.setWorldTransform(QTransform())
        for x, y, d, c in zip(xs.tolist(), ys.tolist(), dark.tolist(), codes.tolist()):
            painter.drawPixmap(x, y, atlas[d][c])
        painter.restore()

    def _paint_as_text(self, painter, t, px, rows, cols, codes, dark) -> None:
        """Vector outputs get text, not 2,000 embedded bitmaps; labels other than weights too."""
        font = QFont(self._font)
        font.setPixelSize(px)
        height = QFontMetricsF(font).height()
        xs = t.m11() * cols + t.m21() * rows + t.dx()
        ys = t.m12() * cols + t.m22() * rows + t.dy()
        painter.save()
        painter.setWorldTransform(QTransform())
        painter.setFont(font)
        centre = int(Qt.AlignmentFlag.AlignCenter)
        half = 3 * px if self._texts is _LABELS else (0.5 * self._width_per_px + 2) * px
        for x, y, d, c in zip(xs.tolist(), ys.tolist(), dark.tolist(), codes.tolist()):
            painter.setPen(_COLOURS[d])
            painter.drawText(QRectF(x - half, y - height / 2, 2 * half, height), centre,
                             self._texts[c])
        painter.restore()


def _width_per_px(font: QFont, labels: list[str]) -> float:
    """The widest label's width per pixel of font size (TEXT_WIDTH_PER_PX for "0.57")."""
    if not labels:
        return TEXT_WIDTH_PER_PX
    font = QFont(font)
    font.setPixelSize(100)
    metrics = QFontMetricsF(font)
    return max(TEXT_WIDTH_PER_PX, max(metrics.horizontalAdvance(t) for t in labels) / 100 + 0.2)


# One atlas per (font, size, ratio) for all items: every head of the grid, the enlarged head,
# the offscreen copies of an export and both sizes of presentation mode draw from the same
# pixmaps. Besides time, this saves PySide6 6.11's leak: each new QPixmap painted on leaks
# six references to None (one per virtual method Qt first calls on a new wrapper), 1,212 per
# atlas; rebuilding them per item and per font change leaked thousands per presentation toggle.
# The cache is their only owner (an item looks its atlas up at each paint, ~2 us): items that
# kept theirs held every size they were last painted at, past the bound (issue 21's soak: 6
# atlases, 1,200 pixmaps beyond it, in items of closed topics and hidden tabs).
_ATLASES: "OrderedDict[tuple, tuple[list[list[QPixmap]], np.ndarray]]" = OrderedDict()
# Bounded by bytes, not count: an atlas is ~50 KB at 7 px and several MB at presentation size in
# a 2x copy. 16 MB holds the sizes on screen in both modes and the latest export's.
MAX_ATLAS_BYTES = 16 * 2**20
# What a label pixmap costs beyond its pixels: Qt keeps the raster paint engine it was drawn with
# (measured 3.4 KB). Small atlases are mostly this: counted as pixels only, 6 atlases of 1 MB
# held 5 MB, and the cache kept hundreds of small ones (issue 21's soak: it grew all run).
PIXMAP_OVERHEAD = 4096


def shared_atlas(font: QFont, px: int, dpr: float) -> tuple[list[list[QPixmap]], np.ndarray]:
    """([dark][code] pixmaps, (2, 101, 2) half sizes) for labels in `font` at `px` pixels."""
    key = (font.key(), px, dpr)
    if key in _ATLASES:
        _ATLASES.move_to_end(key)
        return _ATLASES[key]
    font = QFont(font)
    font.setPixelSize(px)
    metrics = QFontMetricsF(font)
    height = int(np.ceil(metrics.height()))
    atlas, halves = [], []
    for colour in _COLOURS:
        row, half_row = [], []
        for label in _LABELS:
            width = int(np.ceil(metrics.horizontalAdvance(label))) + 2
            pixmap = QPixmap(max(1, round(width * dpr)), max(1, round(height * dpr)))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(Qt.GlobalColor.transparent)
            p = QPainter(pixmap)
            p.setFont(font)
            p.setPen(colour)
            p.drawText(QRectF(0, 0, width, height), int(Qt.AlignmentFlag.AlignCenter), label)
            p.end()
            row.append(pixmap)
            half_row.append((width / 2, height / 2))
        atlas.append(row)
        halves.append(half_row)
    _ATLASES[key] = atlas, np.array(halves)  # (2, 101, 2)
    while len(_ATLASES) > 1 and sum(map(_atlas_bytes, _ATLASES.values())) > MAX_ATLAS_BYTES:
        _ATLASES.popitem(last=False)  # least recently used first; the new one always stays
    return _ATLASES[key]


def _atlas_bytes(entry) -> int:
    return sum(p.width() * p.height() * 4 + PIXMAP_OVERHEAD for row in entry[0] for p in row)
