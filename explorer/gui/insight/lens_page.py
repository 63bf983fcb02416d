"""The logit lens page: what a decoder would say next if it stopped after each layer.

A table, one row per layer boundary (the embeddings, then after each layer) and one column per
position of a window of the sentence: the likeliest next token through the model's own final
norm and unembedding (core.insight.logit_lens), the cell shaded by its probability. The first
row whose top token is the final answer is marked ★ (and framed bold); the last row is the
model's own prediction. ◀ ▶ move the window.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QSpinBox, QTableWidget,
                               QTableWidgetItem, QToolButton, QVBoxLayout, QWidget)

from ...app.insight.jobs import LENS_POSITIONS
from ..plotting.i18n import translate
from ..plotting.token_ticks import display_token
from .plots import text_label

CONTEXT = "insight.lens"
SHADE = (31, 119, 180)  # the probability's colour, alpha = p
MARK = "★ "


def shade(p: float) -> QColor:
    return QColor(*SHADE, int(round(20 + 170 * max(0.0, min(1.0, p)))))


class LensPage(QWidget):
    def __init__(self, insight, parent: QWidget | None = None):
        super().__init__(parent)
        self._insight = insight
        self.about = text_label()
        self.start = QSpinBox()
        self.start.valueChanged.connect(lambda value: setattr(insight, "lens_start", value))
        insight.lens_start_changed.connect(self._on_start)
        self.back, self.forward = QToolButton(), QToolButton()
        self.back.setText("◀")
        self.forward.setText("▶")
        self.back.clicked.connect(lambda: self._move(-LENS_POSITIONS))
        self.forward.clicked.connect(lambda: self._move(LENS_POSITIONS))
        self.where = QLabel()
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # (per-cell sizing: 0.5 s)
        self.note = text_label(selectable=True)
        bar = QHBoxLayout()
        for widget in (self.back, self.start, self.forward):
            bar.addWidget(widget)
        bar.addWidget(self.where, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.about)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        self._view = None
        self.retranslate()

    def show_result(self, view, again: bool = False) -> None:
        """Fill the table from a LensView (app.insight.jobs), or empty it (None); the same view
        is not filled again unless `again` (a language switch)."""
        if view is self._view and view is not None and not again:
            return
        self._view = view
        if view is None:
            self.table.clear()
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.note.setText(" ")
            return
        n = len(view.labels)
        with QSignalBlocker(self.start):
            self.start.setRange(0, max(0, n - 1))
            self.start.setValue(view.positions[0] if view.positions else 0)
        self.where.setText(translate("insight.lens", "positions {first}–{last} of 0–{end}").format(
            first=view.positions[0], last=view.positions[-1], end=n - 1) if view.positions else "")
        self.table.setUpdatesEnabled(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.setRowCount(view.rows)
        self.table.setColumnCount(len(view.positions))
        self.table.setVerticalHeaderLabels(self.row_names(view.rows))
        self.table.setHorizontalHeaderLabels([f"{p}\n{display_token(view.labels[p], 10)}" for p in view.positions])
        for col in range(len(view.positions)):
            for row in range(view.rows):
                self.table.setItem(row, col, self._cell(view, row, col))
        self.table.setUpdatesEnabled(True)
        self.note.setText(translate("insight.lens", "Cells: the likeliest next token after that layer, shaded by its "
                                    "probability; ★ the first layer whose top token is the final answer (the "
                                    "last row). Hover a cell for the numbers."))

    def _cell(self, view, row: int, col: int) -> QTableWidgetItem:
        token, p = view.top[row][col], float(view.top_p[row, col])
        first = int(view.first_row[col]) == row
        item = QTableWidgetItem((MARK if first else "") + display_token(token, 12))
        item.setData(Qt.ItemDataRole.UserRole, p)
        item.setBackground(QBrush(shade(p)))
        item.setForeground(QBrush(QColor("white" if p > 0.7 else "#111111")))
        if first:
            font = QFont(item.font())
            font.setBold(True)
            item.setFont(font)
        item.setToolTip(translate("insight.lens", "{row}, position {position}: {token} p = {p}; the final answer {final} "
                                  "has p = {final_p} here").format(
            row=self.row_names(view.rows)[row], position=view.positions[col], token=token, p=f"{p:.3f}",
            final=view.final[col], final_p=f"{float(view.final_p[row, col]):.3f}"))
        return item

    def row_names(self, rows: int) -> list[str]:
        return [translate("insight.lens", "embeddings")] + [translate("insight.lens", "layer {layer}").format(layer=i)
                                                       for i in range(rows - 1)]

    def cells(self) -> list[list[str]]:
        """The table's texts, row by row (tests)."""
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    def _move(self, by: int) -> None:
        self.start.setValue(max(0, self.start.value() + by))

    def _on_start(self, start: int) -> None:
        with QSignalBlocker(self.start):
            self.start.setValue(start)

    def retranslate(self) -> None:
        self.about.setText(translate("insight.lens", "The logit lens reads each layer's residual stream through the "
                                     "model's own final norm and unembedding: the next token the model would "
                                     "give if it stopped after that layer. Watch the answer form."))
        self.start.setPrefix(translate("insight.lens", "from position "))
        for button, tip in ((self.back, translate("insight.lens", "earlier positions")),
                            (self.forward, translate("insight.lens", "later positions"))):
            button.setToolTip(tip)
        if self._view is not None:
            self.show_result(self._view, again=True)
