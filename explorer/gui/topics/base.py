"""The frame every topic view shares: explanation on top, controls, a message line, plots.

A view follows the app state's latest result. It computes only while it is visible (a
hidden tab just remembers that it is out of date), and always in its `TopicRunner`:
`compute(*args)` is a pure function of the request and runs on the worker thread;
`draw(data)` runs on the GUI thread with the newest data. `drawn` is emitted after each draw.
A view's own controls are bound to `self.topics`, the app state's ``TopicSettings`` (a private
one when the view has no state), see `bindings.py`.

When the UI language changes (Qt's LanguageChange) the view sets its texts again from their
sources: the labels made with `tr_label`/`tr_text`, what `retranslate()` sets, and the texts
drawn from data, by drawing the last data again (no recompute, no state event).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ...app.course.topic_settings import TopicSettings
from ..plotting.fonts import load_bundled_fonts, set_bold, set_text_colour, ui_font
from ..plotting.i18n import translate
from .runner import TopicRunner
from .texts import TEXTS, note
from .widgets import ExplanationBox, text_pt

ERROR_COLOUR, NOTE_COLOUR = "#b00020", "#333333"  # the message line (an error is bold too)
BUSY_BACKGROUND = "#dcffffff"                      # "computing…": white, a little see-through


class TopicView(QWidget):
    """Subclasses set `key`, build their controls/plots in `build()`, and implement
    `request()` -> (fn, *args) and `draw(data)`. Side widgets go into `self.body`."""

    key = ""
    drawn = Signal()

    def __init__(self, state=None, parent: QWidget | None = None):
        super().__init__(parent)
        load_bundled_fonts()
        self.state = state
        self.topics = state.topics if state is not None else TopicSettings()
        self.result = None
        self._data = None  # the last data drawn (drawn again when the language changes)
        self._texts: list[tuple] = []  # (setter, context, source) set again then
        self._dirty = False
        self._presentation = False
        self.runner = TopicRunner()
        self.runner.finished.connect(self._on_computed)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(self._on_busy)
        self.explanation = ExplanationBox(TEXTS[self.key])
        self.controls = QHBoxLayout()
        self.controls.setContentsMargins(8, 2, 8, 2)
        self.message = QLabel("")
        self._message = ""
        self._message_error = False
        self.message.setWordWrap(True)
        self.message.setContentsMargins(8, 0, 8, 0)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        # Over the plots' top-right corner, not in the controls row: appearing there for each
        # compute it widened the row, and the window grew (for good) in presentation mode.
        self.busy = QLabel("", self.graphics)
        set_text_colour(self.busy, NOTE_COLOUR, BUSY_BACKGROUND)
        self.busy.setContentsMargins(6, 2, 6, 2)
        self.busy.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.explanation)
        layout.addLayout(self.controls)
        layout.addWidget(self.message)
        self.body = QHBoxLayout()
        self.body.setContentsMargins(0, 0, 0, 0)
        self.body.addWidget(self.graphics, 1)
        layout.addLayout(self.body, 1)
        self.build()
        self.controls.addStretch(1)
        self._apply_fonts()
        if state is not None:
            state.result_changed.connect(self.set_result)
            if state.result is not None:
                self.set_result(state.result)

    # -- to implement -----------------------------------------------------------------------
    def build(self) -> None:
        """Add controls to self.controls and plots to self.graphics."""

    def request(self) -> tuple:
        """(fn, *args) to run on the worker for the current result and controls."""
        raise NotImplementedError

    def draw(self, data) -> None:
        raise NotImplementedError

    def restyle(self, on: bool) -> None:
        """Apply presentation mode to the plots."""

    def retranslate(self) -> None:
        """Set the texts that are neither `tr_text`s nor drawn from data (combo items ...)."""

    # -- texts ---------------------------------------------------------------------------------
    def tr_text(self, setter, context: str, source: str) -> None:
        """``setter(translate(context, source))`` now and whenever the language changes."""
        self._texts.append((setter, context, source))
        setter(translate(context, source))

    def tr_label(self, context: str, source: str) -> QLabel:
        """A label showing `source` in the UI language (set again when the language changes)."""
        label = QLabel()
        self.tr_text(label.setText, context, source)
        return label

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._on_language_change()

    def _on_language_change(self) -> None:
        for setter, context, source in self._texts:
            setter(translate(context, source))
        self.retranslate()
        self.restyle(self._presentation)  # plot titles and axis labels
        failure = self._message if hasattr(self._message, "again") else None
        if self._data is not None:
            self.draw(self._data)  # the texts drawn from data, in the new language
        if failure is not None:  # a failed job's message (FailureText), in the new language
            self.show_message(failure.again(), error=True)
        if self.busy.isVisible():
            self._on_busy(True)

    # -- shared behaviour ----------------------------------------------------------------------
    def set_result(self, result) -> None:
        self.result = result
        self.invalidate()

    def invalidate(self) -> None:
        """Something the picture depends on changed: recompute now if shown, else when shown."""
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        self._dirty = False
        if self.result is None:
            return
        fn, *args = self.request()
        if getattr(fn, "cancellable", False):
            self.runner.submit_cancellable(fn, *args)
        else:
            self.runner.submit(fn, *args)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def set_presentation(self, on: bool) -> None:
        self._presentation = bool(on)
        self.explanation.set_presentation(self._presentation)
        self._apply_fonts()
        self.restyle(self._presentation)

    @property
    def presentation(self) -> bool:
        return self._presentation

    def show_message(self, text: str, error: bool = False) -> None:
        self._message = text
        self.message.setText(text)
        self._message_error = error
        set_text_colour(self.message, ERROR_COLOUR if error else NOTE_COLOUR)
        set_bold(self.message, error)
        self.message.setVisible(bool(text))

    def _apply_fonts(self) -> None:
        font = ui_font(text_pt(self._presentation))
        for i in range(self.controls.count()):
            widget = self.controls.itemAt(i).widget()
            if widget is not None:
                widget.setFont(font)
        self.message.setFont(ui_font(text_pt(self._presentation), bold=self._message_error))
        self.busy.setFont(font)

    def _on_computed(self, data) -> None:
        self.show_message("")
        self._data = data
        self.draw(data)
        self.drawn.emit()

    def _on_failed(self, message: str) -> None:
        self.show_message(message, error=True)
        self.drawn.emit()

    def _on_busy(self, busy: bool) -> None:
        self.busy.setText(note("computing") if busy else "")
        self.busy.setVisible(busy)
        if busy:
            self.busy.adjustSize()
            self.busy.move(max(0, self.graphics.width() - self.busy.width() - 8), 4)
            self.busy.raise_()
