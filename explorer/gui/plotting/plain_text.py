"""Text from a file or typed by a user (tokens, lesson titles, file names) shown as written.

Qt draws a label's text and every tooltip as rich text when it "might be" HTML: a token like
`<img src=/tmp/x.png>` or `<a href=…>` would load an image or offer a link. Labels that show such
text are set to plain text (`plain_label`); a tooltip has no text format of its own, so it is
escaped inside a rich-text paragraph (`plain_tooltip`: html.escape alone is not enough, since Qt
treats `&lt;` without other markup as plain and would show it as typed).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain_tooltip(text: str) -> str:
    """`text` as a tooltip that shows it character for character (line breaks kept)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


def plain_label(label: QLabel) -> QLabel:
    """`label`, set to show its text as plain text whatever it holds; returned for chaining."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label
