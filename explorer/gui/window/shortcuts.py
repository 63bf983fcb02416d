"""Every keyboard shortcut, in one table: the source for the QActions and for the Help dialog.

Single keys (H, D, S, C, ...) never fire while the user types in the sentence or seed box:
Qt lets a focused text field claim printable keys first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)


@dataclass(frozen=True)
class Shortcut:
    name: str                 # action id, the key of the handler dict
    keys: tuple[str, ...]     # QKeySequence strings; the first is shown in menus
    text: str                 # menu / dialog text
    group: str


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("heads_up", ("H",), "More heads (next divisor of d_model)", "Model"),
    Shortcut("heads_down", ("Shift+H",), "Fewer heads", "Model"),
    Shortcut("d_model_up", ("D",), "Larger d_model", "Model"),
    Shortcut("d_model_down", ("Shift+D",), "Smaller d_model", "Model"),
    Shortcut("seed_up", ("S",), "Seed + 1", "Model"),
    Shortcut("seed_down", ("Shift+S",), "Seed − 1", "Model"),
    Shortcut("random_seed", ("R",), "New random seed", "Model"),
    Shortcut("toggle_scaling", ("/",), "Toggle ÷√d_head scaling", "Model"),
    Shortcut("toggle_causal", ("C",), "Toggle causal mask", "Model"),
    Shortcut("toggle_positional", ("E",), "Toggle positional encoding", "Model"),
    Shortcut("edit_sentence", ("Ctrl+L",), "Edit the sentence", "Model"),
    *(Shortcut(f"focus_head_{i}", (str(i + 1),), f"Enlarge head {i}", "View") for i in range(9)),
    Shortcut("unfocus_head", ("Escape",), "Back to all heads", "View"),
    Shortcut("cycle_show_values", ("V",), "Cell values: auto → on → off", "View"),
    Shortcut("presentation", ("F5", "Ctrl+P"), "Presentation mode", "View"),
    Shortcut("full_screen", ("F11",), "Full screen", "View"),
    Shortcut("toggle_controls", ("F9", "Ctrl+B"), "Show / hide the controls", "View"),
    Shortcut("export", ("Ctrl+Shift+E",), "Export figure…", "File"),
    Shortcut("copy_figure", ("Ctrl+Shift+C",), "Copy figure to the clipboard", "File"),
    # Handled by the KV-cache panel itself (no window action); listed so F1 shows them.
    Shortcut("kv_step", ("Right", "Left"), "KV cache: step forward / back", "KV cache"),
    Shortcut("kv_play", ("Space",), "KV cache: play / pause", "KV cache"),
    Shortcut("kv_ends", ("Home", "End"), "KV cache: first / last step", "KV cache"),
    Shortcut("kv_jump", ("PgDown", "PgUp"), "KV cache: 10 steps forward / back", "KV cache"),
    Shortcut("shortcuts_help", ("F1",), "Keyboard shortcuts", "Help"),
    Shortcut("quit", ("Ctrl+Q",), "Quit", "File"),
)

CHECKABLE = frozenset({"presentation", "full_screen", "toggle_controls"})
# Rows whose action lives elsewhere: File → Export/Copy (export_dialog) and the KV panel's keys.
NOT_WINDOW_ACTIONS = frozenset({"export", "copy_figure", "kv_step", "kv_play", "kv_ends", "kv_jump"})


def get_shortcut(name: str) -> Shortcut:
    for shortcut in SHORTCUTS:
        if shortcut.name == name:
            return shortcut
    raise KeyError(name)


def keys_text(shortcut: Shortcut) -> str:
    """Keys as the user reads them, e.g. 'F5 or Ctrl+P'."""
    return " or ".join(QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText)
                       for k in shortcut.keys)


def make_actions(parent: QWidget, handlers: dict[str, Callable]) -> dict[str, QAction]:
    """One QAction per table row that has a handler, added to `parent` so it fires anywhere in it.

    Handlers of checkable actions receive the checked state.
    """
    actions: dict[str, QAction] = {}
    for shortcut in SHORTCUTS:
        handler = handlers.get(shortcut.name)
        if handler is None:
            continue
        action = QAction(shortcut.text, parent)
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
    return actions


class ShortcutsDialog(QDialog):
    """Help → Keyboard shortcuts: the table above, as a table."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = [s for s in SHORTCUTS if not s.name.startswith("focus_head_")]
        rows.insert(next(i for i, s in enumerate(rows) if s.group == "View"),
                    Shortcut("focus_head", ("1", "9"), "Enlarge head 0 … 8", "View"))
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Keys", "Action", "Group"])
        for row, shortcut in enumerate(rows):
            keys = "1 … 9" if shortcut.name == "focus_head" else keys_text(shortcut)
            for col, text in enumerate((keys, shortcut.text, shortcut.group)):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, item)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
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
        shows every column whole, within the screen."""
        header = self.table.horizontalHeader()
        header.setFont(self.font())
        self.table.resizeRowsToContents()
        margins = self.layout().contentsMargins()
        frame = 2 * self.table.frameWidth()
        width = (sum(max(header.sectionSizeHint(c), self.table.sizeHintForColumn(c))
                     for c in range(self.table.columnCount()))
                 + self.table.verticalScrollBar().sizeHint().width() + frame
                 + margins.left() + margins.right() + 4)
        height = (header.sizeHint().height() + frame + margins.top() + margins.bottom()
                  + sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
                  + self.layout().spacing() + 48)
        screen = self.screen().availableGeometry()
        self.resize(min(max(width, 560), screen.width()), min(max(height, 620), screen.height()))
