"""Lessons in the window: the Lesson dock, the Lessons menu, and a step applied to the window.

`install_lessons(window)` makes ``window.lessons`` (a `LessonController`): the `LessonSession`,
the `LessonPanel` in a dock under the views, the frame that highlights a control and the
clicker keys. A step is applied through the same doors a user uses — ``AppState.set_config``
(keeping the user's backend, device and precision), the topics controller, the tabs, the
model source, ``set_focus_head``, the KV panel's step — so nothing else needs to know about
lessons. The focused head and the KV step wait for the picture or trace of the step's config
(``pending_*``). Leaving a lesson stops the clicker keys and the highlight and changes nothing
else; a lesson file with problems changes nothing at all and says why in a dialog.

A lesson file is untrusted: Open lesson file… reads it off the GUI thread (`read_file`, through
app/lesson_files.py), and every text from it is shown as plain text (the problems dialog, the
panel's labels and the lesson list's tooltip), so nothing in a file can open a link or load an
image. A step whose pretrained model cannot be shown here (not installed, failed to load) is
settled with `step_problem` saying why, instead of waiting for a picture that never comes.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog, QMenu, QMessageBox, QWidget

from ...app.lessons.lesson_files import LessonFileReader
from ...app.lessons.lesson_session import LessonSession
from ...app.lessons import RANDOM_MODEL, Lesson, LessonError, Step, builtin_lessons, load_lesson
from ..lessons import ClickerKeys, HighlightFrame, LessonPanel
from ..training import TrainView
from ..plotting.fonts import font_scale
from ..plotting.i18n import current_language, on_language_change, translate

MAX_DIALOG_PROBLEMS = 12
FIT_AGAIN_MS = 80


class LessonController(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("lesson_controller")
        self.window = window
        self.session = LessonSession()
        self.pending_focus: int | None = None
        self.pending_kv: int | None = None
        self.error_box: QMessageBox | None = None
        self.step_problem: str | None = None  # why the current step's model cannot be shown
        self.files = LessonFileReader()
        self.files.loaded.connect(self._opened_from_file)
        self.files.refused.connect(self.show_problems)
        self.destroyed.connect(self.files.close)  # with the window: the reader's thread ends
        self._opened_controls = False  # the controls dock was shown for a highlighted control
        try:
            lessons = builtin_lessons()
        except LessonError as exc:  # a damaged installation: the window still opens
            lessons = []
            window.status_message(exc.problems[0])
        self.panel = LessonPanel(self.session, lessons)
        self.dock = QDockWidget(translate("window.lesson_wiring", "Lesson"), window)
        self.dock.setObjectName("lesson_dock")
        self.dock.setWidget(self.panel)
        self.dock.setTitleBarWidget(QWidget())  # no title row: the panel has its own controls
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.highlight = HighlightFrame(window)
        self.keys = ClickerKeys(window, self.session.next, self.session.previous)
        self._build_menu(lessons)
        self._connect()

    # ----- public --------------------------------------------------------------------------
    def open_lesson(self, lesson: Lesson, index: int = 0) -> None:
        if all(x.path != lesson.path for x in self.panel.lessons):
            self.panel.add_lesson(lesson)
        self.dock.show()
        self.session.open(lesson, index)

    def read_file(self, path) -> None:
        """Read a lesson file in the background and start it; a bad file shows its problems
        and changes nothing (what the Lessons menu does: the window keeps running)."""
        self.window.status_message(translate("window.lesson_wiring", "Reading {name}…").format(
            name=Path(path).name))
        self.files.read(path)

    def _opened_from_file(self, lesson: Lesson) -> None:
        self.window.statusBar().clearMessage()  # "Reading …"
        self.open_lesson(lesson)

    def open_file(self, path) -> bool:
        """Load a lesson file now, on this thread, and start it (scripts and tests; the menu
        uses `read_file`); a bad file shows its problems and changes nothing."""
        try:
            lesson = load_lesson(path)
        except LessonError as exc:
            self.show_problems(Path(path), exc.problems)
            return False
        self.open_lesson(lesson)
        return True

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, translate("window.lesson_wiring", "Open lesson file"), "",
            translate("window.lesson_wiring", "Lesson files (*.toml)"))
        if path:
            self.read_file(path)

    def show_problems(self, path: Path, problems: list[str]) -> QMessageBox:
        shown = problems[:MAX_DIALOG_PROBLEMS]
        if len(problems) > len(shown):
            shown.append(translate("window.lesson_wiring", "… and {n} more").format(
                n=len(problems) - len(shown)))
        box = QMessageBox(QMessageBox.Icon.Warning,
                          translate("window.lesson_wiring", "Lesson file not opened"),
                          translate("window.lesson_wiring",
                                    "{name} has problems; nothing was changed.").format(
                              name=path.name), QMessageBox.StandardButton.Ok, self.window)
        box.setInformativeText("\n".join(shown))
        box.setTextFormat(Qt.TextFormat.PlainText)  # the file's name and values, never markup
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # not exec(): the window keeps running (and the tests with it)
        self.error_box = box
        self.window.status_message(problems[0])
        return box

    def is_settled(self) -> bool:
        """The current step is fully shown: computes done, pending head/KV step applied."""
        window, step = self.window, self.session.step
        state = window.state
        if not self.files.is_idle():
            return False
        if step is None or self.step_problem is not None:
            return True
        if self.pending_focus is not None or self.pending_kv is not None:
            return False
        if not state.is_idle() or state.result is None or state.result.config != state.config:
            return False
        learned = window.learned
        if step.model != RANDOM_MODEL and learned is not None:
            if not learned.is_idle() or learned.picture() is None:
                return False
        if step.topic is not None:
            view = window.topics_controller.views.get(step.topic)
            return view is not None and not view.runner.is_busy() and not view._dirty
        if step.tab == "insight":  # its page's numbers for the shown source, computed and drawn
            insight = window.insight
            return (insight is not None and insight.active and insight.view == step.insight
                    and insight.is_idle() and not insight.pending(step.insight))
        return True

    # ----- applying a step -----------------------------------------------------------------
    def apply(self, step: Step) -> None:
        window = self.window
        state = window.state
        self.pending_focus = self.pending_kv = None
        self.step_problem = None
        self._apply_model(step)
        current = state.config
        config = step.config.replace(backend=current.backend, device=current.device,
                                     dtype=current.dtype)
        state.set_config(config)
        if step.topic == "pruning":
            state.topics.pruning_mask = (None if not step.prune_heads else
                                         tuple(h not in step.prune_heads
                                               for h in range(config.n_heads)))
        self._show_view(step)
        if step.tab == "heads":
            self.pending_focus = step.focus_head
            if step.focus_head is None:
                window.set_focus_head(None)
        if step.tab == "kv" and step.model == RANDOM_MODEL:  # a decoder steps its own cache
            self.pending_kv = step.kv_step
        self._try_pending()
        self._highlight(step)
        QTimer.singleShot(0, self, self.fit)
        QTimer.singleShot(FIT_AGAIN_MS, self, self.fit)  # once a dock shown for it has settled

    def fit(self) -> None:
        """The step's text gets the room the page leaves; the window stays on its screen
        (it grew when a page or the controls needed more, and shrinks back when they close)."""
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # the new page's size
        if self.dock.isVisible() and not self.dock.isFloating():
            room = min(self.window.screen_size().height(), self.window.height())
            wanted = self.panel.wanted_height(room)
            self.window.resizeDocks([self.dock], [wanted], Qt.Orientation.Vertical)
        self.window.fit_to_screen()

    def _apply_model(self, step: Step) -> None:
        if step.model == RANDOM_MODEL and self.window.learned is None:
            return  # a window without the model source (not installed yet) shows the random model
        learned = self._learned()
        if learned.source != step.model:
            learned.set_source(step.model)  # a model not installed: its error in the status bar
        if step.model != RANDOM_MODEL:
            learned.set_layer(step.layer)

    def _learned(self):
        """The window's model source, installed now if the first paint has not done it yet
        (MainWindow.install_deferred); a step waits for its pictures."""
        learned = self.window.install_learned()
        if not self._watching_learned:
            learned.picture_changed.connect(self._try_pending)
            learned.error.connect(self._on_model_error)
            self._watching_learned = True
        return learned

    def _on_model_error(self, text: str) -> None:
        """The step's pretrained model was refused (not installed) or failed while it was
        awaited: the step is as shown as it will get (the message is in the status bar)."""
        step, learned = self.session.step, self.window.learned
        if step is None or step.model == RANDOM_MODEL or not self.session.active:
            return
        if learned.source != step.model or learned.picture() is None:
            self.step_problem = text

    def _show_view(self, step: Step) -> None:
        window = self.window
        if step.topic is not None:
            view = window.topics_controller.show_topic(step.topic, apply_preset=False)
            view.explanation.toggle.setChecked(False)  # the step's text explains; room for plots
            if window.statusBar().currentMessage() == view.explanation.topic.title:
                window.statusBar().clearMessage()  # the topic's title, stale at the next step
            return
        if step.tab == "insight":
            self._learned()  # the Inside attention tab is mounted with the model views
            window.insight.view = step.insight
        page = {"heads": window.heads_grid, "pe": window.pe_panel, "kv": window.kv_panel,
                "overview": window.model_overview, "generate": window.generation_view,
                "train": window.install_training() if step.tab == "train" else None,
                "insight": window.inside_view}.get(step.tab)
        if page is not None:
            window.tabs.setCurrentWidget(page)

    def _try_pending(self, *_args) -> None:
        window = self.window
        state = window.state
        if self.pending_focus is not None:
            shown = window.shown
            if shown.is_current() and self.pending_focus < shown.picture.n_heads:
                head, self.pending_focus = self.pending_focus, None
                window.set_focus_head(head)
        if self.pending_kv is not None:
            trace = window.kv_panel.trace
            if trace is not None and _same_sentence(trace.config, state.config):
                step, self.pending_kv = self.pending_kv, None
                window.kv_panel.set_step(step)

    def _highlight(self, step: Step) -> None:
        """Frame the step's control; a controls panel opened for it closes again at the next
        step that needs no control there (one the user opened stays)."""
        window = self.window
        widget = self.control_widget(step.highlight) if step.highlight else None
        in_dock = widget is not None and window.controls.isAncestorOf(widget)
        if in_dock and window.controls_dock.isHidden():
            window.controls_dock.show()
            self._opened_controls = True
        elif not in_dock and self._opened_controls:
            window.controls_dock.hide()
            self._opened_controls = False
        if in_dock:
            window.controls.ensureWidgetVisible(widget)
        self.highlight.set_target(widget)

    def control_widget(self, name: str) -> QWidget | None:
        """The widget of a control name (app/lessons.CONTROLS), asked of the view that declares
        it (its LESSON_CONTROLS / lesson_controls()); None while that view is not there (a topic
        not opened)."""
        for owner in self._control_owners(name):
            if owner is not None and name in owner.LESSON_CONTROLS:
                return owner.lesson_controls()[name]
        return None

    def _control_owners(self, name: str) -> list:
        """The views that may declare `name`: the controls, the model source, the KV and PE tabs,
        the open topics and the Train tab (built when a step names one of its controls)."""
        w = self.window
        owners = [w.controls, w.model_source, w.kv_panel, w.pe_panel, w.inside_view,
                  *w.topics_controller.views.values()]
        if name in TrainView.LESSON_CONTROLS:
            owners.append(w.install_training())
        return owners

    # ----- construction --------------------------------------------------------------------
    def _build_menu(self, lessons: list[Lesson]) -> None:
        window = self.window
        menu = QMenu(translate("window.lesson_wiring", "&Lessons"), window)
        menu.setObjectName("lessons_menu")
        window.menuBar().insertMenu(window.help_menu.menuAction(), menu)
        window.lessons_menu = menu
        window.menus["Lessons"] = menu
        for lesson in lessons:
            action = menu.addAction(lesson.title.in_language(current_language()).replace("&", "&&"))
            action.setObjectName(f"lesson_{lesson.name}")
            action.triggered.connect(lambda _=False, lesson=lesson: self.open_lesson(lesson))
        menu.addSeparator()
        self.open_action = menu.addAction(translate("window.lesson_wiring", "Open lesson file…"),
                                          self.choose_file)
        self.open_action.setObjectName("lesson_open_file")
        self.leave_action = menu.addAction(translate("window.lesson_wiring", "Leave lesson"),
                                           self.session.leave)
        self.leave_action.setEnabled(False)
        # not the dock's toggleViewAction: Qt resets its text to the dock's title on every
        # title change (a language switch)
        self.panel_action = menu.addAction(translate("window.lesson_wiring",
                                                     "Show the lesson panel"))
        self.panel_action.setCheckable(True)
        self.panel_action.toggled.connect(self.dock.setVisible)
        self.dock.visibilityChanged.connect(
            lambda _=None: self.panel_action.setChecked(not self.dock.isHidden()))
        self._lessons = {f"lesson_{lesson.name}": lesson for lesson in lessons}
        on_language_change(menu, lambda: self._retranslate_menu(menu))

    def _retranslate_menu(self, menu) -> None:
        """The Lessons menu and the dock's title in the UI language (a language switch)."""
        t = lambda text: translate("window.lesson_wiring", text)  # noqa: E731
        menu.setTitle(t("&Lessons"))
        self.dock.setWindowTitle(t("Lesson"))
        for action in menu.actions():
            lesson = self._lessons.get(action.objectName())
            if lesson is not None:  # the lesson file's own title, in its language
                action.setText(lesson.title.in_language(current_language()).replace("&", "&&"))
        self.open_action.setText(t("Open lesson file…"))
        self.leave_action.setText(t("Leave lesson"))
        self.panel_action.setText(t("Show the lesson panel"))

    def _connect(self) -> None:
        window, session = self.window, self.session
        session.step_changed.connect(lambda _i: self.apply(session.step))
        session.active_changed.connect(self._on_active)
        self.panel.lesson_chosen.connect(self.open_lesson)
        self.panel.fit_requested.connect(lambda: QTimer.singleShot(0, self, self.fit))
        self.dock.visibilityChanged.connect(self._on_dock_visible)
        window.picture_shown.connect(self._try_pending)
        # the room left for the step's text depends on the page shown (the KV tab is tall)
        window.tabs.currentChanged.connect(lambda _i: QTimer.singleShot(0, self, self.fit))
        # after the KV panel has taken the new trace (connected later, by the window itself)
        window.state.kv_trace_changed.connect(lambda _t: QTimer.singleShot(0, self, self._try_pending))
        self._watching_learned = False
        if window.learned is not None:
            self._learned()
        window.state.view.presentation_changed.connect(self._on_presentation)
        self._restyle(window.state.view.presentation)

    def _on_active(self, on: bool) -> None:
        self.keys.set_enabled(on)
        self.leave_action.setEnabled(on)
        if not on:
            self.highlight.set_target(None)
            self.pending_focus = self.pending_kv = None
            self._opened_controls = False  # the window as it is now is the user's

    def _on_dock_visible(self, visible: bool) -> None:
        if not visible and self.dock.isHidden() and self.session.active:
            self.session.leave()  # the panel closed: the keys go back to the window

    def _on_presentation(self, on: bool) -> None:
        # after the window has set the presentation font scale (it listens after us)
        QTimer.singleShot(0, self, lambda: self._restyle(on))

    def _restyle(self, on: bool) -> None:
        self.panel.set_presentation(on)
        self.highlight.set_line_width(round(4 * (1.5 * font_scale() if on else 1.0)))


def _same_sentence(trace_config, config) -> bool:
    """Is the KV trace for this config? (the trace is always causal numpy)."""
    keep = dict(causal=True, backend="numpy", device="cpu")
    return trace_config.replace(**keep) == config.replace(**keep)


def install_lessons(window) -> LessonController:
    window.lessons = LessonController(window)
    return window.lessons
