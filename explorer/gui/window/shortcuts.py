"""Every keyboard shortcut, in one table: the source for the QActions and for the Help dialog.

Single keys (H, D, S, C, ...) never fire while the user types in the sentence or seed box:
Qt lets a focused text field claim printable keys first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QEvent, QRect, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence

from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)
from ..plotting.i18n import QT_TRANSLATE_NOOP, on_language_change, translate


@dataclass(frozen=True)
class Shortcut:
    name: str                 # action id, the key of the handler dict
    keys: tuple[str, ...]     # QKeySequence strings; the first is shown in menus
    text: str                 # menu / dialog text
    group: str


# groups of the Help table (texts marked for the catalogue, translated where shown)
MODEL = QT_TRANSLATE_NOOP("window.shortcuts", "Model")
VIEW = QT_TRANSLATE_NOOP("window.shortcuts", "View")
FILE = QT_TRANSLATE_NOOP("window.shortcuts", "File")
KV = QT_TRANSLATE_NOOP("window.shortcuts", "KV cache")
HELP = QT_TRANSLATE_NOOP("window.shortcuts", "Help")
LESSON = QT_TRANSLATE_NOOP("window.shortcuts", "Lesson")

SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("heads_up", ("H",),
             QT_TRANSLATE_NOOP("window.shortcuts", "More heads (next divisor of d_model)"), MODEL),
    Shortcut("heads_down", ("Shift+H",), QT_TRANSLATE_NOOP("window.shortcuts", "Fewer heads"), MODEL),
    Shortcut("d_model_up", ("D",), QT_TRANSLATE_NOOP("window.shortcuts", "Larger d_model"), MODEL),
    Shortcut("d_model_down", ("Shift+D",), QT_TRANSLATE_NOOP("window.shortcuts", "Smaller d_model"), MODEL),
    Shortcut("seed_up", ("S",), QT_TRANSLATE_NOOP("window.shortcuts", "Seed + 1"), MODEL),
    Shortcut("seed_down", ("Shift+S",), QT_TRANSLATE_NOOP("window.shortcuts", "Seed − 1"), MODEL),
    Shortcut("random_seed", ("R",), QT_TRANSLATE_NOOP("window.shortcuts", "New random seed"), MODEL),
    Shortcut("toggle_scaling", ("/",),
             QT_TRANSLATE_NOOP("window.shortcuts", "Toggle ÷√d_head scaling"), MODEL),
    Shortcut("toggle_causal", ("C",), QT_TRANSLATE_NOOP("window.shortcuts", "Toggle causal mask"), MODEL),
    Shortcut("toggle_positional", ("E",),
             QT_TRANSLATE_NOOP("window.shortcuts", "Toggle positional encoding"), MODEL),
    Shortcut("edit_sentence", ("Ctrl+L",), QT_TRANSLATE_NOOP("window.shortcuts", "Edit the sentence"), MODEL),
    *(Shortcut(f"focus_head_{i}", (str(i + 1),),
               QT_TRANSLATE_NOOP("window.shortcuts", "Enlarge head %1"), VIEW) for i in range(9)),
    Shortcut("unfocus_head", ("Escape",), QT_TRANSLATE_NOOP("window.shortcuts", "Back to all heads"), VIEW),
    Shortcut("cycle_show_values", ("V",),
             QT_TRANSLATE_NOOP("window.shortcuts", "Cell values: auto → on → off"), VIEW),
    Shortcut("presentation", ("F5", "Ctrl+P"),
             QT_TRANSLATE_NOOP("window.shortcuts", "Presentation mode"), VIEW),
    Shortcut("full_screen", ("F11",), QT_TRANSLATE_NOOP("window.shortcuts", "Full screen"), VIEW),
    Shortcut("toggle_controls", ("F9", "Ctrl+B"),
             QT_TRANSLATE_NOOP("window.shortcuts", "Show / hide the controls"), VIEW),
    Shortcut("export", ("Ctrl+Shift+E",), QT_TRANSLATE_NOOP("window.shortcuts", "Export figure…"), FILE),
    Shortcut("copy_figure", ("Ctrl+Shift+C",),
             QT_TRANSLATE_NOOP("window.shortcuts", "Copy figure to the clipboard"), FILE),
    # Handled by the KV-cache panel itself (no window action); listed so F1 shows them.
    Shortcut("kv_step", ("Right", "Left"),
             QT_TRANSLATE_NOOP("window.shortcuts", "KV cache: step forward / back"), KV),
    Shortcut("kv_play", ("Space",), QT_TRANSLATE_NOOP("window.shortcuts", "KV cache: play / pause"), KV),
    Shortcut("kv_ends", ("Home", "End"),
             QT_TRANSLATE_NOOP("window.shortcuts", "KV cache: first / last step"), KV),
    Shortcut("kv_jump", ("PgDown", "PgUp"),
             QT_TRANSLATE_NOOP("window.shortcuts", "KV cache: 10 steps forward / back"), KV),
    # Handled by the lesson's clicker keys (gui/lessons/keys.py) while a lesson runs; they take
    # these keys from the KV panel, never from a focused text field, spin box or slider.
    Shortcut("lesson_next", ("PgDown", "Right", "Space"),
             QT_TRANSLATE_NOOP("window.shortcuts", "Lesson: next step (clicker)"), LESSON),
    Shortcut("lesson_previous", ("PgUp", "Left"),
             QT_TRANSLATE_NOOP("window.shortcuts", "Lesson: previous step (clicker)"), LESSON),
    Shortcut("shortcuts_help", ("F1",), QT_TRANSLATE_NOOP("window.shortcuts", "Keyboard shortcuts"), HELP),
    Shortcut("quit", ("Ctrl+Q",), QT_TRANSLATE_NOOP("window.shortcuts", "Quit"), FILE),
)

CHECKABLE = frozenset({"presentation", "full_screen", "toggle_controls"})
# Rows whose action lives elsewhere: File → Export/Copy (export_dialog), the KV panel's and the
# lesson's keys.
NOT_WINDOW_ACTIONS = frozenset({"export", "copy_figure", "kv_step", "kv_play", "kv_ends", "kv_jump",
                                "lesson_next", "lesson_previous"})


def get_shortcut(name: str) -> Shortcut:
    for shortcut in SHORTCUTS:
        if shortcut.name == name:
            return shortcut
    raise KeyError(name)


def keys_text(shortcut: Shortcut) -> str:
    """Keys as the user reads them, e.g. 'F5 or Ctrl+P'."""
    return translate("window.shortcuts",
                     " or ").join(QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText)
                       for k in shortcut.keys)


def shortcut_text(shortcut: Shortcut) -> str:
    """The row's text in the UI language ("Enlarge head %1" gets its head number)."""
    text = translate("window.shortcuts", shortcut.text)
    if shortcut.name.startswith("focus_head_"):
        text = text.replace("%1", shortcut.name.rsplit("_", 1)[1])
    return text


def make_actions(parent: QWidget, handlers: dict[str, Callable]) -> dict[str, QAction]:
    """One QAction per table row that has a handler, added to `parent` so it fires anywhere in it.

    Handlers of checkable actions receive the checked state.
    """
    actions: dict[str, QAction] = {}
    for shortcut in SHORTCUTS:
        handler = handlers.get(shortcut.name)
        if handler is None:
            continue
        action = QAction(shortcut_text(shortcut), parent)
        action.setObjectName(f"action_{shortcut.name}")
        action.setShortcuts([QKeySequence(k) for k in shortcut.keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if shortcut.name in CHECKABLE:
            action.setCheckable(True)
            action.toggled.connect(handler)
        else:
            action.triggered.connect(lambda _checked=False, h=handler: h())
        parent.addAction(action)
        actions[shortcut.name] = action
    on_language_change(parent, lambda: _retranslate_actions(actions))
    return actions


def _retranslate_actions(actions: dict[str, QAction]) -> None:
    for name, action in actions.items():
        action.setText(shortcut_text(get_shortcut(name)))


SCREEN_MARGIN_PX = 8   # the dialog keeps this far from the screen's top and bottom edges
CELL_PADDING_PX = 10   # a table cell's text margins, each side


class ShortcutsDialog(QDialog):
    """Help → Keyboard shortcuts: the table above, as a table."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(translate("window.shortcuts", "Keyboard shortcuts"))
        rows = [s for s in SHORTCUTS if not s.name.startswith("focus_head_")]
        rows.insert(next(i for i, s in enumerate(rows) if s.group == "View"),
                    Shortcut("focus_head", ("1", "9"),
                             QT_TRANSLATE_NOOP("window.shortcuts", "Enlarge head 0 … 8"), VIEW))
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels([translate("window.shortcuts", "Keys"),
                                              translate("window.shortcuts", "Action"),
                                              translate("window.shortcuts", "Group")])
        self.table.setWordWrap(False)  # one line a row: the columns are made wide enough
        for row, shortcut in enumerate(rows):
            keys = "1 … 9" if shortcut.name == "focus_head" else keys_text(shortcut)
            for col, text in enumerate((keys, shortcut_text(shortcut),
                                         translate("window.shortcuts", shortcut.group))):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, item)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # fits
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, parent=self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 620)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # e.g. presentation mode's 16 pt
            QTimer.singleShot(0, self.fit_to_contents)  # once the table has the new font

    def fit_to_contents(self) -> None:
        """Header in the dialog's font (Qt gives headers their own small one) and a size that
        shows every column whole, within the screen: at 1024 x 768 in presentation mode the
        rows are taller than the screen, so the table scrolls and the Close button stays on it."""
        header = self.table.horizontalHeader()
        header.setFont(self.font())
        self.table.resizeRowsToContents()  # one line each (no word wrap)
        margins = self.layout().contentsMargins()
        frame = 2 * self.table.frameWidth()
        widths = [self._column_width(c) for c in range(self.table.columnCount())]
        for column, column_width in enumerate(widths[:-1]):  # the last one stretches
            header.resizeSection(column, column_width)
        width = (sum(widths)
                 + self.table.verticalScrollBar().sizeHint().width() + frame
                 + margins.left() + margins.right() + 4)
        height = (header.sizeHint().height() + frame + margins.top() + margins.bottom()
                  + sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
                  + self.layout().spacing() + 48)
        room = self.available_rect()
        title_bar = max(0, self.frameGeometry().height() - self.height())  # 0 before shown
        side = max(0, self.frameGeometry().width() - self.width())
        self.resize(min(max(width, 560), room.width() - side),
                    min(max(height, 620), room.height() - title_bar - 2 * SCREEN_MARGIN_PX))

        self._keep_on_screen()

    def available_rect(self) -> QRect:
        """The screen's free area (tests give it a projector's)."""
        return self.screen().availableGeometry()

    def _column_width(self, column: int) -> int:
        """Every row's text (Qt's own size hint measures only the rows in view)."""
        metrics = self.table.fontMetrics()
        texts = [self.table.item(r, column).text() for r in range(self.table.rowCount())]
        cell = max(metrics.horizontalAdvance(t) for t in texts) + 2 * CELL_PADDING_PX
        return max(cell, self.table.horizontalHeader().sectionSizeHint(column))

    def _keep_on_screen(self) -> None:
        """Centred over the window it was opened from, moved inside the screen if it sticks out."""
        room = self.available_rect()
        frame = self.frameGeometry()
        parent = self.parentWidget()
        if parent is not None:
            frame.moveCenter(parent.frameGeometry().center())
        frame.moveLeft(max(room.left(), min(frame.left(), room.right() + 1 - frame.width())))
        frame.moveTop(max(room.top(), min(frame.top(), room.bottom() + 1 - frame.height())))
        self.move(frame.topLeft())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._keep_on_screen()
