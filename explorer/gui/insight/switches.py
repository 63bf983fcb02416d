"""Segmented switches bound to one field of a state: pieces ↔ words, heatmap ↔ lines, which view.

    switch = Segmented(state, "words", "insight.switches", ((False, "pieces"), (True, "words")))

One control, one field: a click sets the field; the field's `<name>_changed` checks the button
with its signals blocked (no echo). The texts are English sources translated in `context`, set
again on a language switch; a tooltip per choice may be given.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QToolButton, QWidget

from ..plotting.i18n import translate


class Segmented(QWidget):
    """Exclusive buttons, one per value of `state.<field>` (module docstring)."""

    def __init__(self, state, field: str, context: str, choices, title: str = "", tooltips=None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._state, self._field, self._context = state, field, context
        self._choices = tuple(choices)               # ((value, English text), ...)
        self._tooltips = dict(tooltips or {})        # value -> English tooltip
        self._title = title
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.label = QLabel()
        layout.addWidget(self.label)
        self.label.setVisible(bool(title))
        for value, _text in self._choices:
            button = QToolButton()
            button.setCheckable(True)
            button.setAutoRaise(False)
            button.clicked.connect(lambda _=False, value=value: setattr(state, field, value))
            self.group.addButton(button)
            self.buttons[value] = button
            layout.addWidget(button)
        layout.addStretch(1)  # left-aligned where it is given a whole row
        getattr(state, f"{field}_changed").connect(self._show)
        self.retranslate()
        self._show(getattr(state, field))

    def _show(self, value) -> None:
        button = self.buttons.get(value)
        if button is not None and not button.isChecked():
            with QSignalBlocker(button):
                button.setChecked(True)

    def value(self):
        return getattr(self._state, self._field)

    def retranslate(self) -> None:
        if self._title:
            self.label.setText(translate(self._context, self._title) + "  ")
        for value, text in self._choices:
            self.buttons[value].setText(translate(self._context, text))
            tip = self._tooltips.get(value)
            self.buttons[value].setToolTip(translate(self._context, tip) if tip else "")

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
