"""A word-wrapping QLabel that stays on one line while there is room for it."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLabel, QWidget


class WrappingLabel(QLabel):
    """Wraps only when short of room, so its minimum width is its longest word.

    A plain word-wrapped QLabel asks for a width of about 20-40 characters (Qt's heuristic for
    paragraphs), so a short line such as "0.21 ms on numpy/cpu" wrapped even with room to spare.
    Here the preferred width is the whole text on one line.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().sizeHint()
        margins = self.contentsMargins()
        one_line = (self.fontMetrics().horizontalAdvance(self.text()) + 2 * self.margin()
                    + margins.left() + margins.right() + 2)
        return QSize(max(hint.width(), one_line), hint.height())
