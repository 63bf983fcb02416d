"""The presenter's clicker keys while a lesson runs: PgDn / → / Space next, PgUp / ← previous.

An application event filter sees a key before the widget with the focus does. PgDn and PgUp
(what most clickers send) always move the lesson. → / ← and Space move it too, except when the
focus is on a widget that uses them to change its own value or text: a text field, spin box,
slider, combo box, list or table — and Space on a button or check box, which it presses. So a
learner dragging the d_model slider with the arrow keys, or typing a sentence, is never
interrupted; the KV panel's own arrow and Space keys give way to the lesson while one runs (its
slider and buttons still step it). Keys with Ctrl, Alt or Shift are left alone.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractSlider,
                               QAbstractSpinBox, QApplication, QComboBox, QDockWidget,
                               QLineEdit, QPlainTextEdit, QTextEdit, QWidget)

NEXT_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Space)
PREVIOUS_KEYS = (Qt.Key.Key_PageUp, Qt.Key.Key_Left)
CLICKER_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp)
VALUE_WIDGETS = (QLineEdit, QAbstractSpinBox, QAbstractSlider, QComboBox, QAbstractItemView,
                 QTextEdit, QPlainTextEdit)


def keeps_key(focus: QWidget | None, key) -> bool:
    """Does the focused widget use `key` itself (so the lesson must not take it)?"""
    if focus is None or key in CLICKER_KEYS:
        return False
    if isinstance(focus, VALUE_WIDGETS):
        return True
    return key == Qt.Key.Key_Space and isinstance(focus, QAbstractButton)


class ClickerKeys(QObject):
    """Installed on the application while `window`'s lesson runs (`set_enabled`)."""

    def __init__(self, window: QWidget, on_next: Callable[[], object],
                 on_previous: Callable[[], object]):
        super().__init__(window)
        self.window = window
        self.on_next, self.on_previous = on_next, on_previous
        self._enabled = False

    def set_enabled(self, on: bool) -> None:
        app = QApplication.instance()
        if on == self._enabled or app is None:
            return
        self._enabled = on
        if on:
            app.installEventFilter(self)
        else:
            app.removeEventFilter(self)

    @property
    def enabled(self) -> bool:
        return self._enabled

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        key = event.key()
        if key not in NEXT_KEYS + PREVIOUS_KEYS or event.isAutoRepeat():
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if QApplication.activePopupWidget() is not None or not self._ours(watched):
            return False
        focus = QApplication.focusWidget()
        if keeps_key(focus if focus is not None else watched, key):
            return False
        (self.on_next if key in NEXT_KEYS else self.on_previous)()
        return True

    def _ours(self, widget: QWidget) -> bool:
        """In the window or one of its docks (floating too); not a dialog or another window."""
        try:
            top = widget.window()
        except RuntimeError:  # deleted meanwhile
            return False
        return top is self.window or (isinstance(top, QDockWidget)
                                      and self.window.isAncestorOf(top))
