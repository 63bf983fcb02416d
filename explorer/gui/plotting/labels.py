"""Labels and tooltips: a word-wrapping QLabel that stays on one line while there is room for it,
and text from a file or typed by a user (tokens, lesson titles, file names) shown as written.

Qt draws a label's text and every tooltip as rich text when it "might be" HTML: a token like
`<img src=/tmp/x.png>` or `<a href=…>` would load an image or offer a link. Labels that show such
text are set to plain text (`plain_label`); a tooltip has no text format of its own, so it is
escaped inside a rich-text paragraph (`plain_tooltip`: html.escape alone is not enough, since Qt
treats `&lt;` without other markup as plain and would show it as typed). The live language switch
sees through that paragraph (`plain_tooltip_text`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

_PLAIN_OPEN, _PLAIN_CLOSE = "<p style='white-space:pre-wrap'>", "</p>"


def plain_tooltip(text: str) -> str:
    """`text` as a tooltip that shows it character for character (line breaks kept)."""
    return f"{_PLAIN_OPEN}{html.escape(text)}{_PLAIN_CLOSE}"


def plain_tooltip_text(tooltip: str) -> str | None:
    """The text a `plain_tooltip` shows, or None when `tooltip` is not one."""
    if tooltip.startswith(_PLAIN_OPEN) and tooltip.endswith(_PLAIN_CLOSE):
        return html.unescape(tooltip[len(_PLAIN_OPEN):-len(_PLAIN_CLOSE)])
    return None


def plain_label(label: QLabel) -> QLabel:
    """`label`, set to show its text as plain text whatever it holds; returned for chaining."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


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
