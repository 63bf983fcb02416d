"""A token axis whose labels turn vertical when that shows more tokens than horizontal text.

pyqtgraph only lays tick text out horizontally: on a bottom axis, 12 words in a 250-pixel panel
leave room for a third of them. Standing the labels up (reading bottom to top, ending at the
axis) fits one per text-line height instead of one per word width.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF

LINE_SPACING = 1.15  # vertical labels need this many text heights each


class TokenAxis(pg.AxisItem):
    """AxisItem for explicit (position, token) ticks given in levels, coarse to fine."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self._vertical: list[tuple[float, str]] | None = None  # (x px, text) when stood up
        self._deferring = False
        self._pending_size = 0

    def vertical_labels(self) -> list[str] | None:
        """The labels drawn vertically at the last paint, or None for horizontal ones."""
        return None if self._vertical is None else [t for _, t in self._vertical]

    def _updateMaxTextSize(self, x):  # noqa: N802 (pyqtgraph's name)
        if self._deferring:
            self._pending_size = x
            return
        super()._updateMaxTextSize(x)

    def generateDrawSpecs(self, p):  # noqa: N802
        self._deferring = True
        try:
            specs = super().generateDrawSpecs(p)
        finally:
            self._deferring = False
        size = self._pending_size
        self._vertical = None
        if specs is not None and self.orientation == "bottom" and self._tickLevels:
            n_ticks = sum(len(level) for level in self._tickLevels)
            if len(specs[2]) < n_ticks:
                placed, width = self._stand_up(p)
                if len(placed) > len(specs[2]):
                    self._vertical = placed
                    specs = (specs[0], specs[1], [])
                    size = width
        super()._updateMaxTextSize(size)
        if specs is not None and self._tickLevels:
            n_labels = len(self._vertical) if self._vertical is not None else len(specs[2])
            specs = (specs[0], self._marks_for_labels(specs[1], n_labels), specs[2])
        return specs

    def _marks_for_labels(self, tick_specs: list, n_labels: int) -> list:
        """Tick marks of the levels that got labels only: 512 unlabelled marks are noise (and
        cost paint time). Assumes every tick is in range: the view always shows all tokens."""
        keep = 0
        for level in self._tickLevels:
            if keep >= max(1, n_labels):
                break
            keep += len(level)
        return tick_specs[:keep]

    def _stand_up(self, p) -> tuple[list[tuple[float, str]], float]:
        """Vertical labels that fit, whole levels at a time; and their widest text."""
        font = self.style["tickFont"] or p.font()
        metrics = QFontMetricsF(font)
        bounds = self.mapRectFromParent(self.geometry())
        lo, hi = self.range
        if hi == lo or bounds.width() <= 0:
            return [], 0.0
        scale = bounds.width() / (hi - lo)
        room = int(bounds.width() // (metrics.height() * LINE_SPACING))
        placed: list[tuple[float, str]] = []
        for i, level in enumerate(self._tickLevels):
            inside = [((v - lo) * scale + bounds.left(), s) for v, s in level if lo <= v <= hi]
            if i > 0 and len(placed) + len(inside) > room:
                break
            placed.extend(inside)
        width = max((metrics.horizontalAdvance(s) for _, s in placed), default=0.0)
        return placed, width + 2

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # noqa: N802
        super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        if not self._vertical:
            return
        font = self.style["tickFont"] or p.font()
        p.setFont(font)
        p.setPen(self.textPen())
        metrics = QFontMetricsF(font)
        top = self.mapRectFromParent(self.geometry()).top()
        offset = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1]
        height = metrics.height()
        for x, text in self._vertical:
            width = metrics.horizontalAdvance(text) + 2
            p.save()
            p.translate(x, top + offset)
            p.rotate(-90)
            p.drawText(QRectF(-width, -height / 2, width, height),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()
