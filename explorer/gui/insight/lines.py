"""A head drawn as lines (the picture BertViz made known): tokens in two columns, one line per pair.

The queries stand on the left, the keys on the right, and the line from query i to key j has
opacity α_ij (its weight in the head: 0 invisible, 1 solid; in the 256 steps a screen draws;
the faint lines first, so where lines cross the stronger one shows), so a head's pattern reads as a
bundle: a diagonal for a previous-token head, a fan into one token for a sink. Hovering a token
keeps only its lines (a query's row, or a key's column) and names the strongest. The lines are
those of the picture the heads grid shows (pieces, or words when that switch is on), so the
heatmap ↔ lines switch draws the same numbers. `Save PNG…` writes the drawing.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..plotting.fonts import ui_font
from ..plotting.i18n import translate
from ..plotting.labels import plain_label
from ..plotting.token_ticks import display_token
from .saving import SaveButton

LINE_COLOUR = QColor("#1f5fa8")
HOVER_COLOUR = QColor("#d62728")
TEXT_COLOUR = QColor("#222222")
MARGIN = 8
MAX_CHARS = 14
ANTIALIAS_MAX = 32  # tokens up to which lines are antialiased (64 tokens: 4096 smooth lines took ~0.9 s)


def over_white(level: int) -> QColor:
    """LINE_COLOUR at opacity level/255 over the white page, as an opaque colour: what one line of
    that opacity shows, painted without blending (Qt's raster engine blends 4096 long lines five
    times slower than it draws them opaque: 0.4 s against 0.08 s at 64 tokens, measured)."""
    a = level / 255
    return QColor(*(round(255 + (c - 255) * a) for c in (LINE_COLOUR.red(), LINE_COLOUR.green(), LINE_COLOUR.blue())))


class LinesCanvas(QWidget):
    """Paints one head's weights as lines (module docstring); `drawn` holds (query, key, opacity)
    of every line of the last paint, for the tests. Lines of one opacity go to the painter
    together (one pen each: 64 tokens paint in tens of milliseconds)."""

    hovered = Signal(str)  # the line under the canvas: what the hovered token attends to / gets

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setMinimumSize(260, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), QColor("white"))
        self.setPalette(palette)
        self.weights: np.ndarray | None = None   # (n, n): rows queries, columns keys
        self.tokens: tuple[str, ...] = ()
        self.isolated: tuple[str, int] | None = None  # ("query", i) or ("key", j)
        self.drawn: list[tuple[int, int, float]] = []
        self._pt = 9.0

    def set_weights(self, weights: np.ndarray | None, tokens) -> None:
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.tokens = tuple(str(t) for t in tokens)
        if self.isolated is not None and self.isolated[1] >= len(self.tokens):
            self.isolated = None
        self.update()

    def set_presentation(self, on: bool) -> None:
        self._pt = 13.0 if on else 9.0
        self.update()

    def isolate(self, which: tuple[str, int] | None) -> None:
        """Keep only a token's lines (("query", i) or ("key", j)), or every line (None)."""
        if which != self.isolated:
            self.isolated = which
            self.update()
            self.hovered.emit(self.describe(which))

    # ----- geometry --------------------------------------------------------------------------
    def _font_pt(self, n: int) -> float:
        row = (self.height() - 2 * MARGIN) / max(1, n)
        return max(5.0, min(self._pt, row * 0.62))

    def _columns(self, metrics: QFontMetrics) -> tuple[float, float]:
        """(x where the query labels end, x where the key labels start)."""
        widest = max((metrics.horizontalAdvance(display_token(t, MAX_CHARS)) for t in self.tokens), default=0)
        text_w = min(widest, self.width() * 0.3)
        return MARGIN + text_w + 6, self.width() - MARGIN - text_w - 6

    def _row_y(self, i: int, n: int) -> float:
        return MARGIN + (i + 0.5) * (self.height() - 2 * MARGIN) / max(1, n)

    def token_at(self, x: float, y: float) -> tuple[str, int] | None:
        n = len(self.tokens)
        if n == 0:
            return None
        metrics = QFontMetrics(ui_font(self._font_pt(n)))
        left, right = self._columns(metrics)
        i = int((y - MARGIN) / ((self.height() - 2 * MARGIN) / n))
        if not 0 <= i < n:
            return None
        if x <= left + 4:
            return ("query", i)
        if x >= right - 4:
            return ("key", i)
        return None

    # ----- painting ----------------------------------------------------------------------------
    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("white"))
        self.drawn = []
        n = len(self.tokens)
        if self.weights is None or n == 0:
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, n <= ANTIALIAS_MAX)
        font = ui_font(self._font_pt(n))
        metrics = QFontMetrics(font)
        left, right = self._columns(metrics)
        ys = [self._row_y(i, n) for i in range(n)]
        levels = np.rint(np.clip(self.weights, 0.0, 1.0) * 255).astype(int)  # (n, n): 8-bit opacity
        wanted = np.ones((n, n), bool)
        if self.isolated is not None:
            side, k = self.isolated
            wanted[:] = False
            wanted[(k, slice(None)) if side == "query" else (slice(None), k)] = True
        pairs = np.argwhere(wanted)  # (lines, 2): (query, key), row by row
        self.drawn = [(int(i), int(j), levels[i, j] / 255) for i, j in pairs]
        by_level: dict[int, list[QLineF]] = {}
        for i, j in pairs[levels[wanted] > 0]:  # opacity 0 paints nothing
            by_level.setdefault(int(levels[i, j]), []).append(QLineF(left, ys[i], right, ys[j]))
        pen = QPen(LINE_COLOUR, 2.0 if n <= 24 else 1.0)
        for level in sorted(by_level):  # one pen per opacity, the faint lines first, the strong on top
            pen.setColor(over_white(level))
            painter.setPen(pen)
            painter.drawLines(by_level[level])
        self._paint_tokens(painter, font, metrics, left, right, ys)
        painter.end()

    def _paint_tokens(self, painter: QPainter, font, metrics, left: float, right: float, ys) -> None:
        row_h = metrics.height()
        for side, x0 in (("query", MARGIN), ("key", right + 6)):
            for i, token in enumerate(self.tokens):
                hot = self.isolated == (side, i)
                painter.setFont(ui_font(font.pointSizeF(), bold=hot))
                painter.setPen(HOVER_COLOUR if hot else TEXT_COLOUR)
                width = left - 6 - MARGIN if side == "query" else self.width() - MARGIN - x0
                rect = QRectF(x0, ys[i] - row_h / 2, width, row_h)
                align = (Qt.AlignmentFlag.AlignRight if side == "query" else Qt.AlignmentFlag.AlignLeft) \
                    | Qt.AlignmentFlag.AlignVCenter
                painter.drawText(rect, align, display_token(token, MAX_CHARS))

    # ----- hover ------------------------------------------------------------------------------
    def describe(self, which: tuple[str, int] | None) -> str:
        """One line about the hovered token's lines ("" when none)."""
        if which is None or self.weights is None:
            return ""
        side, k = which
        row = self.weights[k] if side == "query" else self.weights[:, k]
        best = int(np.argmax(row))
        if side == "query":
            return translate("insight.lines", "{token} (query {i}) attends most to {best} ({weight})").format(
                token=self.tokens[k], i=k, best=self.tokens[best], weight=f"{row[best]:.2f}")
        return translate("insight.lines", "{token} (key {j}) gets most from {best} ({weight}); total {total}").format(
            token=self.tokens[k], j=k, best=self.tokens[best], weight=f"{row[best]:.2f}", total=f"{row.sum():.2f}")

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.isolate(self.token_at(event.position().x(), event.position().y()))

    def leaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.isolate(None)
        super().leaveEvent(event)


class HeadLines(QWidget):
    """The focused head as lines, a title line, the hover line and Save PNG (module docstring)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._picture, self._head = None, None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.canvas = LinesCanvas()
        self.hover = plain_label(QLabel(" "))  # tokens as typed: never rich text
        self.save = SaveButton(lambda: self.canvas, self.file_name)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.save)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addLayout(top)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.hover)
        self.canvas.hovered.connect(lambda text: self.hover.setText(text or " "))
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), QColor("white"))
        self.setPalette(palette)
        self._retitle()

    def set_head(self, picture, head: int | None) -> None:
        """Draw head `head` of `picture` (a HeadsPicture: the grid's), or nothing."""
        self._picture, self._head = picture, head
        ok = picture is not None and head is not None and head < picture.n_heads
        self.canvas.set_weights(picture.weights[head] if ok else None, picture.tokens if ok else ())
        self._retitle()

    def file_name(self) -> str:
        analysis = getattr(self._picture, "analysis", None)
        head = self._head if self._head is not None else 0
        if analysis is None:
            return f"lines_head{head}.png"
        return f"lines_head{head}_{analysis.spec.name}_layer{self._picture.layer}.png"

    def _retitle(self) -> None:
        if self._picture is None or self._head is None:
            self.title.setText(translate("insight.lines", "Enlarge a head (click it) to draw it as lines."))
            return
        title = self._picture.head_title(self._head) or translate("insight.lines", "head {head}").format(
            head=self._head)
        self.title.setText(translate("insight.lines", "{title} — queries left, keys right; a line's opacity is "
                                     "its weight. Hover a token to keep only its lines.").format(title=title))

    def set_presentation(self, on: bool) -> None:
        self.canvas.set_presentation(on)
        for label in (self.title, self.hover):
            label.setFont(ui_font(14 if on else 10))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retitle()
            self.hover.setText(self.canvas.describe(self.canvas.isolated) or " ")
