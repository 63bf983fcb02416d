"""Masked cells drawn so they never pass for a weight of 0: an opaque fill plus a diagonal hatch.

The fill is one path of row runs (causal: one rectangle per row) filled without blending, which
costs a fraction of an alpha-blended full-size overlay image; masks with very many runs (an odd
padding pattern over hundreds of tokens) fall back to a small n x n image drawn scaled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

MASK_COLOUR = QColor(200, 200, 200)            # light neutral grey: in no perceptual map's range
MASK_COLOUR_GREYSCALE = QColor(170, 200, 235)  # pale blue when the map itself is grey
HATCH_COLOUR = QColor(120, 120, 120)
HATCH_MAX_TOKENS = 96     # beyond this, hatch lines would merge into a grey wash anyway
HATCH_MIN_CELL_PX = 5     # nor are they drawn on cells smaller than this on screen
MAX_RUNS = 4096           # more masked runs than this: fill from an image instead of a path


@dataclass(frozen=True)
class MaskPaint:
    """How the mask of one result is painted, shared by every head (built once per mask and
    colour). Not core.topics.MaskLayers, which splits a mask into its padding and causal parts."""
    masked: np.ndarray            # (n, n) bool, True = masked
    fill: QPainterPath | QImage   # the masked area
    colour: QColor
    hatch: QPainterPath
    empty_rows: QPainterPath      # outline of fully masked query rows


def masked_runs(masked: np.ndarray):
    """(rows, starts, stops) of the horizontal runs of True in a (n, n) bool array."""
    padded = np.pad(masked, ((0, 0), (1, 1))).astype(np.int8)
    step = np.diff(padded, axis=1)  # (n, n + 1): +1 where a run starts, -1 after it ends
    rows, starts = np.nonzero(step == 1)
    _, stops = np.nonzero(step == -1)
    return rows, starts, stops


def fill_of(masked: np.ndarray, colour: QColor) -> QPainterPath | QImage:
    rows, starts, stops = masked_runs(masked)
    if len(rows) <= MAX_RUNS:
        path = QPainterPath()
        for r, a, b in zip(rows.tolist(), starts.tolist(), stops.tolist()):
            path.addRect(QRectF(a - 0.5, r - 0.5, b - a, 1.0))
        return path
    rgba = masked[..., None] * np.array(colour.getRgb(), dtype=np.uint8)  # (n, n, 4)
    image = QImage(rgba.tobytes(), masked.shape[1], masked.shape[0], 4 * masked.shape[1],
                   QImage.Format.Format_RGBA8888)
    return image.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)  # owns its bytes


def hatch_path(masked: np.ndarray) -> QPainterPath:
    """One diagonal stroke across every masked cell (none when the grid is large)."""
    path = QPainterPath()
    if masked.shape[0] > HATCH_MAX_TOKENS:
        return path
    for r, c in zip(*np.nonzero(masked)):
        path.moveTo(c - 0.5, r + 0.5)
        path.lineTo(c + 0.5, r - 0.5)
    return path


def rows_path(rows, n_cols: int) -> QPainterPath:
    """Outline of each query row listed in `rows` (ints)."""
    path = QPainterPath()
    for r in rows:
        path.addRect(QRectF(-0.5, r - 0.5, n_cols, 1.0))
    return path


def mask_paint(allowed: np.ndarray, empty_rows: np.ndarray, colour: QColor) -> MaskPaint:
    masked = ~allowed
    return MaskPaint(masked=masked, fill=fill_of(masked, colour), colour=QColor(colour),
                      hatch=hatch_path(masked),
                      empty_rows=rows_path(np.nonzero(empty_rows)[0].tolist(), allowed.shape[1]))


class MaskItem(QGraphicsItem):
    """Paints the masked cells of a MaskPaint (fill, then hatch)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._layers: MaskPaint | None = None
        self._n = 0
        self._hatch_pen = QPen(HATCH_COLOUR, 1)
        self._hatch_pen.setCosmetic(True)

    def set_layers(self, layers: MaskPaint) -> None:
        n = layers.masked.shape[0]
        if n != self._n:
            self.prepareGeometryChange()
            self._n = n
        self._layers = layers
        self.setVisible(bool(layers.masked.any()))
        self.update()

    def set_hatch_width(self, width: float) -> None:
        self._hatch_pen.setWidthF(width)
        self.update()

    def masked(self) -> np.ndarray:
        """(n, n) bool: the cells this item covers (tests read it back)."""
        return self._layers.masked if self._layers is not None else np.zeros((0, 0), bool)

    def colour(self) -> QColor:
        return QColor(self._layers.colour) if self._layers is not None else QColor(MASK_COLOUR)

    def boundingRect(self) -> QRectF:
        return QRectF(-0.5, -0.5, self._n, self._n)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        layers = self._layers
        if layers is None:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if isinstance(layers.fill, QImage):
            painter.drawImage(self.boundingRect(), layers.fill)
        else:
            painter.fillPath(layers.fill, layers.colour)
        t = painter.worldTransform()
        cell_px = min(abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12()))
        if cell_px >= HATCH_MIN_CELL_PX and not layers.hatch.isEmpty():
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(self._hatch_pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(layers.hatch)
