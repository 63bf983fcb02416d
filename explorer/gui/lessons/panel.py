"""The Lesson panel: which lesson, where in it, the step's text, its question and answer.

It draws the `LessonSession` (app/lesson_session.py) and sends the learner's clicks back to it;
what a step shows in the window is applied by the window (gui/window/lesson_wiring.py). The
step's text follows the UI language: it is drawn again on a language change (after the live
retranslation has run, so nothing rewrites it afterwards).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy,
                               QVBoxLayout, QWidget)

from ...app.lesson_session import LessonSession
from ...app.lessons import Lesson
from ..plotting.fonts import ui_font
from ..plotting.i18n import current_language, translate

NORMAL_TEXT_PT, PRESENTATION_TEXT_PT = 11, 15
QUESTION_COLOUR = "#0b5394"


class LessonPanel(QWidget):
    """Lesson list, ◀ progress ▶, leave/resume, the step text, a question with its answer."""

    lesson_chosen = Signal(object)  # a Lesson picked in the list

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
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.combo.activated.connect(self._on_combo)
        self.prev_button = QPushButton(translate("lessons.panel", "◀ Previous"))
        self.next_button = QPushButton(translate("lessons.panel", "Next ▶"))
        self.progress = QLabel("")
        self.progress.setObjectName("lesson_progress")
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.leave_button = QPushButton("")
        self.prev_button.clicked.connect(lambda: self._after_click(self.session.previous))
        self.next_button.clicked.connect(lambda: self._after_click(self.session.next))
        self.leave_button.clicked.connect(self._leave_or_resume)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        for widget in (self.combo, self.prev_button, self.progress, self.next_button):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.leave_button)
        self.text = QLabel("")
        self.text.setObjectName("lesson_text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.question = QLabel("")
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setStyleSheet(f"color: {QUESTION_COLOUR};")
        self.answer_button = QPushButton("")
        self.answer_button.clicked.connect(self.toggle_answer)
        self.answer = QLabel("")
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.PlainText)
        self.answer.setFrameShape(QFrame.Shape.StyledPanel)
        ask = QHBoxLayout()
        ask.setContentsMargins(0, 0, 0, 0)
        ask.addWidget(self.question, 1)
        ask.addWidget(self.answer_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.addLayout(top)
        layout.addWidget(self.text)
        layout.addLayout(ask)
        layout.addWidget(self.answer)
        layout.addStretch(1)
        self._apply_fonts()

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
        self.fit_height()

    def fit_height(self) -> None:
        """At least as tall as the wrapped text needs at the panel's width: a dock does not
        ask its word-wrapped labels (Qt's height-for-width), and cut the question off."""
        layout = self.layout()
        if layout is None or self.width() < 100:
            return
        layout.activate()
        needed = layout.heightForWidth(self.width()) if layout.hasHeightForWidth() else -1
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)

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

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            QTimer.singleShot(0, self.fit_height)  # once the labels have their new width

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            QTimer.singleShot(0, self.fit_height)
        if event.type() == QEvent.Type.LanguageChange:
            self.render()
            QTimer.singleShot(0, self.render)  # after the live retranslation of the window
