"""All the per-cell value labels of one heatmap, painted by a single QGraphicsItem.

One TextItem per cell costs ~150 ms at 16 x 16 x 4 heads. Here every label is one of 101
strings ("0.00" .. "1.00") in one of two colours, so they are rendered once into small pixmaps
and blitted (~1.5 us a label against ~3-7 us for drawText). Labels are drawn in device pixels,
upright and crisp whatever the view's scale or the inverted y axis, and scale with an export.
"""

from __future__ import annotations

import math

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
    """Labels cell (row r, col c) of an (n, n) grid centred at item coordinates (c, r)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._codes = np.zeros((0, 0), dtype=np.int16)  # (n, n) index into _LABELS, -1 = none
        self._dark = np.zeros((0, 0), dtype=bool)         # (n, n) True = dark text
        self._font = QFont()
        self._max_px = 12
        self._min_px = MIN_FONT_PX
        self._atlas_key = None
        self._atlas: list[list[QPixmap]] = []              # [dark][code]
        self._half = np.zeros((2, 0, 2))                   # [dark][code] -> (half w, half h)

    # -- data ---------------------------------------------------------------------------
    def set_cells(self, values: np.ndarray, dark: np.ndarray, show: np.ndarray) -> None:
        """values, dark, show: (n, n). Cells where `show` is False get no label."""
        if values.shape[0] != self._codes.shape[0]:
            self.prepareGeometryChange()
        codes = np.rint(np.clip(np.nan_to_num(values), 0.0, 1.0) * 100).astype(np.int16)
        self._codes = np.where(show, codes, np.int16(-1))
        self._dark = np.asarray(dark, dtype=bool)
        self.update()

    def set_font(self, font: QFont, max_px: int, min_px: int = MIN_FONT_PX) -> None:
        """The family/weight and the pixel-size range: labels shrink to fit their cells and
        are not painted at all when they would have to be smaller than `min_px`."""
        self._font = QFont(font)
        self._max_px = int(max_px)
        self._min_px = max(1, int(min_px))
        self._atlas_key = None
        self.update()

    def labels(self) -> list[tuple[int, int, str]]:
        """(row, col, text) for every labelled cell; for tests and export."""
        rows, cols = np.nonzero(self._codes >= 0)
        return [(int(r), int(c), _LABELS[self._codes[r, c]]) for r, c in zip(rows, cols)]

    def font_px_for(self, cell_px: float, scale: float = 1.0) -> int:
        """Label pixel size for cells `cell_px` device pixels wide (0 = too small to print).

        `scale`: device pixels per scene pixel (1 on screen, more in a high-resolution export).
        """
        px = min(int(self._max_px * scale), int(cell_px / TEXT_WIDTH_PER_PX), int(cell_px * 0.6))
        return px if px >= self._min_px * scale else 0

    # -- QGraphicsItem ------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        n = self._codes.shape[0]
        return QRectF(-0.5, -0.5, n, n)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if self._codes.size == 0:
            return
        t = painter.worldTransform()
        cell_px = min(abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12()))
        scene_cell = self.sceneTransform().mapRect(QRectF(0, 0, 1, 1))
        scale = cell_px / max(1e-9, min(scene_cell.width(), scene_cell.height()))
        px = self.font_px_for(cell_px, scale)
        if px == 0:
            return
        rows, cols = np.nonzero(self._codes >= 0)
        codes = self._codes[rows, cols]
        dark = self._dark[rows, cols].astype(np.intp)
        engine = painter.paintEngine()
        if engine is not None and engine.type() != QPaintEngine.Type.Raster:
            self._paint_as_text(painter, t, px, rows, cols, codes, dark)  # SVG, PDF: real text
            return
        self._ensure_atlas(px, _device_pixel_ratio(painter))
        half = self._half[dark, codes]  # (m, 2)
        xs = np.rint(t.m11() * cols + t.m21() * rows + t.dx() - half[:, 0]).astype(int)
        ys = np.rint(t.m12() * cols + t.m22() * rows + t.dy() - half[:, 1]).astype(int)
        atlas = self._atlas
        painter.save()
        painter.setWorldTransform(QTransform())
        for x, y, d, c in zip(xs.tolist(), ys.tolist(), dark.tolist(), codes.tolist()):
            painter.drawPixmap(x, y, atlas[d][c])
        painter.restore()

    def _paint_as_text(self, painter, t, px, rows, cols, codes, dark) -> None:
        """Vector outputs get text, not 2,000 embedded bitmaps."""
        font = QFont(self._font)
        font.setPixelSize(px)
        height = QFontMetricsF(font).height()
        xs = t.m11() * cols + t.m21() * rows + t.dx()
        ys = t.m12() * cols + t.m22() * rows + t.dy()
        painter.save()
        painter.setWorldTransform(QTransform())
        painter.setFont(font)
        centre = int(Qt.AlignmentFlag.AlignCenter)
        for x, y, d, c in zip(xs.tolist(), ys.tolist(), dark.tolist(), codes.tolist()):
            painter.setPen(_COLOURS[d])
            painter.drawText(QRectF(x - 3 * px, y - height / 2, 6 * px, height), centre, _LABELS[c])
        painter.restore()

    def _ensure_atlas(self, px: int, dpr: float) -> None:
        """Render the 101 labels in both colours at `px` pixels (device pixel ratio `dpr`)."""
        key = (px, dpr)
        if key == self._atlas_key:
            return
        font = QFont(self._font)
        font.setPixelSize(px)
        metrics = QFontMetricsF(font)
        height = int(np.ceil(metrics.height()))
        self._atlas, halves = [], []
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
            self._atlas.append(row)
            halves.append(half_row)
        self._half = np.array(halves)  # (2, 101, 2)
        self._atlas_key = key
