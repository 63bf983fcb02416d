"""The Lesson panel: which lesson, where in it, the step's text, its question and answer.

It draws the `LessonSession` (app/lesson_session.py) and sends the learner's clicks back to it;
what a step shows in the window is applied by the window (gui/window/lesson_wiring.py). The
step's text follows the UI language: it is drawn again on a language change (after the live
retranslation has run, so nothing rewrites it afterwards). Every text from the lesson file is
shown as plain text: the labels are PlainText and the list's tooltip is escaped (`plain_tooltip`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea,
                               QSizePolicy, QVBoxLayout, QWidget)

from ...app.lessons.lesson_session import LessonSession
from ...app.lessons import Lesson
from ..plotting.fonts import set_text_colour, ui_font
from ..plotting.i18n import current_language, translate
from ..plotting.labels import plain_tooltip

NORMAL_TEXT_PT, PRESENTATION_TEXT_PT = 11, 15
COMBO_CHARS = 14      # the lesson list's width in characters (titles are elided beyond)
MAX_SHARE = 0.22      # of the window's height, at most, for the step's text before it scrolls
QUESTION_COLOUR = "#0b5394"


class LessonPanel(QWidget):
    """Lesson list, ◀ progress ▶, leave/resume, the step text, a question with its answer."""

    lesson_chosen = Signal(object)  # a Lesson picked in the list
    fit_requested = Signal()        # the text changed size: the window gives it room (a dock)

    def __init__(self, session: LessonSession, lessons: list[Lesson],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lesson_panel")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the clicker keys' home after a click
        self.session = session
        self.lessons: list[Lesson] = []
        self._presentation = False
        self._answer_shown = False
        self._build()
        self.set_lessons(lessons)
        session.lesson_changed.connect(lambda _lesson: self._on_lesson())
        session.step_changed.connect(lambda _index: self._on_step())
        session.active_changed.connect(lambda _on: self.render())
        self.render()

    # ----- construction --------------------------------------------------------------------
    def _build(self) -> None:
        self.combo = QComboBox()
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(COMBO_CHARS)
        self.combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.combo.activated.connect(self._on_combo)
        self.prev_button = QPushButton("◀")
        self.prev_button.setToolTip(translate("lessons.panel", "Previous step (PgUp, ←)"))
        self.next_button = QPushButton("▶")
        self.next_button.setToolTip(translate("lessons.panel", "Next step (PgDn, →, Space)"))
        self.progress = QLabel("")
        self.progress.setObjectName("lesson_progress")
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.leave_button = QPushButton("")
        self.prev_button.clicked.connect(lambda: self._after_click(self.session.previous))
        self.next_button.clicked.connect(lambda: self._after_click(self.session.next))
        self.leave_button.clicked.connect(self._leave_or_resume)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        for widget in (self.prev_button, self.progress, self.next_button):
            top.addWidget(widget)
        top.addWidget(self.combo, 1)
        top.addWidget(self.leave_button)
        self.text = self._label("lesson_text")
        self.question = self._label("lesson_question")
        set_text_colour(self.question, QUESTION_COLOUR)
        self.answer_button = QPushButton("")
        self.answer_button.clicked.connect(self.toggle_answer)
        self.answer = self._label("lesson_answer")
        self.answer.setFrameShape(QFrame.Shape.StyledPanel)
        ask = QHBoxLayout()
        ask.setContentsMargins(0, 0, 0, 0)
        ask.addWidget(self.question, 1)
        ask.addWidget(self.answer_button, 0, Qt.AlignmentFlag.AlignTop)
        body = QWidget()
        inner = QVBoxLayout(body)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(self.text)
        inner.addLayout(ask)
        inner.addWidget(self.answer)
        inner.addStretch(1)
        # The text scrolls when the screen is short of room instead of pushing the window
        # past the bottom of a 1024 × 768 projector.
        self.scroll = QScrollArea()
        self.scroll.setWidget(body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # at least one line (see _apply_fonts); the window sizes the dock: see wanted_height
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 0)  # every pixel counts under the KV tab at 768
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.scroll, 1)
        self._apply_fonts()

    @staticmethod
    def _label(name: str) -> QLabel:
        label = QLabel("")
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        return label

    # ----- public --------------------------------------------------------------------------
    def set_lessons(self, lessons: list[Lesson]) -> None:
        """The lessons in the list (a file opened from the menu is added to the end)."""
        self.lessons = list(lessons)
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItem(translate("lessons.panel", "Choose a lesson…"), None)
        for lesson in self.lessons:
            self.combo.addItem(lesson.title.in_language(current_language()), lesson.name)
        self.combo.blockSignals(False)
        self._select_current()

    def add_lesson(self, lesson: Lesson) -> None:
        kept = [x for x in self.lessons if x.path != lesson.path]
        self.set_lessons(kept + [lesson])

    def set_presentation(self, on: bool) -> None:
        self._presentation = bool(on)
        self._apply_fonts()

    def toggle_answer(self) -> None:
        self._answer_shown = not self._answer_shown
        self.render()

    @property
    def answer_shown(self) -> bool:
        return self._answer_shown

    def render(self) -> None:
        """Draw the session as it is, in the current language."""
        language = current_language()
        step, lesson = self.session.step, self.session.lesson
        number, count = self.session.progress()
        self.progress.setText(f"{number} / {count}" if lesson is not None else "– / –")
        self.prev_button.setEnabled(lesson is not None and number > 1)
        self.next_button.setEnabled(lesson is not None and number < count)
        self.leave_button.setEnabled(lesson is not None)
        self.leave_button.setText(translate("lessons.panel", "Leave lesson")
                                  if self.session.active or lesson is None
                                  else translate("lessons.panel", "Back to the lesson"))
        if lesson is not None:
            self.combo.setToolTip(plain_tooltip(lesson.title.in_language(language)))
        for i, item in enumerate(self.lessons, start=1):
            self.combo.setItemText(i, item.title.in_language(language))
        self.combo.setItemText(0, translate("lessons.panel", "Choose a lesson…"))
        if step is None:
            self.text.setText(translate("lessons.panel", "Choose a lesson in the list or open a "
                                        "lesson file (Lessons menu). PgDn / PgUp, → / ← and "
                                        "Space move through its steps."))
        else:
            self.text.setText(step.text.in_language(language))
        has_question = step is not None and step.question is not None
        self.question.setVisible(has_question)
        self.answer_button.setVisible(has_question)
        self.answer.setVisible(has_question and self._answer_shown)
        if has_question:
            self.question.setText(translate("lessons.panel", "Question: ")
                                  + step.question.in_language(language))
            self.answer.setText(step.answer.in_language(language))
            self.answer_button.setText(translate("lessons.panel", "Hide answer")
                                       if self._answer_shown
                                       else translate("lessons.panel", "Show answer"))
        self._refit()

    def wanted_height(self, room: int | None = None) -> int:
        """The panel's height that shows the whole text at its width (a dock never asks its
        word-wrapped labels; the question was cut off), at most MAX_SHARE of the screen."""
        body = self.scroll.widget()
        width = max(100, self.scroll.viewport().width())
        body.layout().activate()
        needed = body.layout().heightForWidth(width)
        margins = self.layout().contentsMargins()
        total = (needed + self.layout().itemAt(0).sizeHint().height() + self.layout().spacing()
                 + margins.top() + margins.bottom())
        if room is None and self.screen() is not None:
            room = self.screen().availableGeometry().height()
        return total if room is None else min(total, int(room * MAX_SHARE))

    def _refit(self) -> None:
        self.fit_requested.emit()

    # ----- slots ---------------------------------------------------------------------------
    def _on_lesson(self) -> None:
        self._select_current()
        self._on_step()

    def _on_step(self) -> None:
        self._answer_shown = False  # each step asks afresh
        self.render()

    def _on_combo(self, index: int) -> None:
        name = self.combo.itemData(index)
        lesson = next((x for x in self.lessons if x.name == name), None)
        self.setFocus(Qt.FocusReason.OtherFocusReason)  # arrows must not scroll the list
        if lesson is not None:
            self.lesson_chosen.emit(lesson)
        else:
            self._select_current()

    def _after_click(self, move) -> None:
        move()
        if not (self.prev_button.isEnabled() and self.next_button.isEnabled()):
            self.setFocus(Qt.FocusReason.OtherFocusReason)  # a disabled button drops focus

    def _leave_or_resume(self) -> None:
        if self.session.active:
            self.session.leave()
        else:
            self.session.resume()

    def _select_current(self) -> None:
        lesson = self.session.lesson
        index = 0
        if lesson is not None:
            index = next((i for i, x in enumerate(self.lessons, start=1)
                          if x.path == lesson.path), 0)
        self.combo.blockSignals(True)
        self.combo.setCurrentIndex(index)
        self.combo.blockSignals(False)

    def _apply_fonts(self) -> None:
        pt = PRESENTATION_TEXT_PT if self._presentation else NORMAL_TEXT_PT
        self.text.setFont(ui_font(pt))
        for label in (self.question, self.answer):
            label.setFont(ui_font(pt * 0.9))
        self.progress.setFont(ui_font(pt, bold=True))
        self.scroll.setMinimumHeight(self.text.fontMetrics().lineSpacing() + 4)  # one line

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            QTimer.singleShot(0, self, self._refit)  # once the labels have their new width

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # e.g. presentation mode's scale changed
            self._apply_fonts()
            QTimer.singleShot(0, self, self._refit)
        if event.type() == QEvent.Type.LanguageChange:
            self.render()
            QTimer.singleShot(0, self, self.render)  # after the live retranslation of the window
