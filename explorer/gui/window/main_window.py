"""The main window: controls on the left, the heads (and other views) in tabs, an info strip.

It binds pieces together and draws nothing itself: ``AppState`` computes (through its worker),
``HeadsGrid`` draws heads, ``ControlPanel`` edits the state. ``pe.panel.PEPanel`` and
``kv.panel.KVPanel`` become tabs (built by ``install_panels``: with ``defer_learned`` just after the
first paint, their tabs holding empty placeholders until then), and
``export_actions.install_export_actions(window)`` / ``topics.install_topics_menu(window)`` fill
File and Topics.

Attributes other code may use: ``state``, ``heads_grid``, ``tabs``, ``controls``, ``info_strip``,
``file_menu``, ``view_menu``, ``presets_menu``, ``topics_menu``, ``help_menu``, ``menus`` (by title),
``shortcut_actions`` (the shortcut table's QActions by name), ``views()``,
``status_message(text)``, and the signals ``picture_shown(result)`` and ``first_paint()``.
"""

from __future__ import annotations

import random

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QSize, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (QDockWidget, QMainWindow, QMessageBox, QSizePolicy, QTabBar,
                               QTabWidget, QVBoxLayout, QWidget)

from ...core import PRESETS, AttentionResult
from ..plotting.colormaps import COLORMAPS
from ..controls.panel import ControlPanel
from ..plotting.fonts import load_bundled_fonts, screen_scale, set_font_scale, ui_font
from ..heads.grid import HeadsGrid
from ..gui_thread_gc import collect_on_gui_thread
from ..heads.info_strip import InfoStrip
from ...app.heap import start_trimming
from ...app.settings import Settings
from ..topics import install_topics_menu
from .bindings import bind_kv_panel, bind_pe_panel
from .exports.export_actions import install_export_actions
from .language import install_language_menu
from ..plotting.i18n import current_language, translate
from .shortcuts import SHORTCUTS, ShortcutsDialog, make_actions
from ...app.shown import Shown
from ...app.course.state import SHOW_VALUES_MODES, AppState

NORMAL_PT, PRESENTATION_PT = 10, 16
STATUS_MS = 10_000



class MainWindow(QMainWindow):
    first_paint = Signal()            # the first picture has been painted
    picture_shown = Signal(object)    # an AttentionResult has just been handed to every view

    def __init__(self, state: AppState, settings: Settings | None = None,
                 rng: random.Random | None = None, parent: QWidget | None = None,
                 defer_learned: bool = False):
        """`defer_learned`: leave the PE and KV tabs, the pretrained models' control and tabs,
        the Train tab and the lessons to a later `install_deferred()` (run_app runs its steps
        just after the first paint)."""
        super().__init__(parent)
        collect_on_gui_thread()  # before any view: no Qt object is ever freed by a worker's GC
        start_trimming()  # freed heap back to the system, off the GUI thread (app.heap)
        load_bundled_fonts()
        self.state = state
        self._painted = False
        self.closed = False  # closeEvent
        self._views: list[QWidget] = []
        self.pe_panel = self.kv_panel = None  # install_panels
        self._placeholders: dict[str, QWidget] = {}  # their tabs until then
        # every part a later step mounts is declared here (None until then), so no module
        # attaches attributes of its own and none reads them back with getattr
        self.learned = None  # LearnedState: the model source (learned_wiring.install_learned)
        self._busy_line = None  # the model source's busy line in the status bar (learned_wiring.show_busy)
        self.model_source = self.model_overview = self.generation_view = None  # (install_learned)
        self.learned_strip = None  # the info strip of a model source's layer (install_learned)
        self.learned_kv = None  # (run, layer, LearnedKVTrace) the KV tab shows of a decoder
        self.insight = self.inside_view = None  # the Inside attention tab and its state (gui/insight/mount)
        self.grid_switches = self.words_switch = self.lines_switch = None  # pieces ↔ words, heatmap ↔ lines
        self.head_lines = None  # the enlarged head drawn as lines (install_insight)
        self.sampling = self.sampling_panel = None  # the Generate tab's sampling (install_insight)
        self.lessons_menu = None  # the Lessons menu (install_lessons)
        self.language_menu, self.language_actions = None, {}  # View → Language (language.py)
        self.export_dialog = None  # the one Export… dialog, made on first use (export_dialog.py)
        self.train_view = None  # the Train tab (install_training)
        self.lessons = None  # LessonController: the Lessons menu and panel (install_lessons)
        self._assumed_screen: QSize | None = None  # assume_screen
        self._saved_training = dict(settings.training) if settings is not None else {}
        self.recent_models = list(settings.recent_models) if settings is not None else []  # newest first
        self.figure_cache = None  # offscreen frames reused by Copy figure and Export (figures.py)
        self.setWindowTitle(translate("window.main_window", "Attention Explorer"))
        self.heads_grid = HeadsGrid()
        worker = getattr(state, "worker", None)  # heads' images made on the compute thread
        if worker is not None:
            worker.after_forward = self.heads_grid.preparer
        self.heads_grid.set_colormap(state.view.colormap)
        self.heads_grid.set_show_values(state.view.show_values)
        self.shown = Shown(state)  # what the grid, exports and lessons show (app.shown)
        self.shown.picture_changed.connect(self.heads_grid.set_result)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)  # only tabs added with closable=True get a close button
        self.tabs.tabCloseRequested.connect(self._close_tab)
        self.info_strip = InfoStrip()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.info_strip)
        self.setCentralWidget(central)
        self.add_view(translate("window.main_window", "Heads"), self.heads_grid)
        self.controls = ControlPanel(state, list(COLORMAPS), rng=rng)
        self.controls_dock = QDockWidget(translate("window.main_window", "Controls"), self)
        self.controls_dock.setObjectName("controls_dock")
        self.controls_dock.setWidget(self.controls)
        self.controls_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                       | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.controls_dock)
        self._build_menus()
        self._add_panel_placeholders()
        self._install_plugins()
        if not defer_learned:
            self.install_deferred()
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.shortcut_actions["quit"])
        self._connect()
        self._controls_before_presentation = True  # the dock's visibility to restore
        self._presenting = False
        self.resize(1400, 900)
        if settings is not None:
            self.restore_layout(settings)
        self.fit_to_screen()
        toggle = self.shortcut_actions["toggle_controls"]
        toggle.setChecked(not self.controls_dock.isHidden())
        self.controls_dock.visibilityChanged.connect(
            lambda _=None: toggle.setChecked(not self.controls_dock.isHidden()))
        self._apply_presentation(state.view.presentation)
        if state.result is not None:
            self.heads_grid.set_result(self.shown.picture)
            self._on_result(state.result)

    # ----- public --------------------------------------------------------------------------
    def add_view(self, title: str, widget: QWidget, closable: bool = False,
                 index: int = -1) -> None:
        """A tab in the central area (at the end, or at `index`); every view has
        set_presentation(on), called on changes.

        A closable tab (the topics) has a close button; closing hides the view (it computes
        nothing while hidden) and adding the same widget again brings it back.
        """
        index = self.tabs.insertTab(index, widget, title)
        if not closable:
            self.tabs.tabBar().setTabButton(index, QTabBar.ButtonPosition.RightSide, None)
        if widget not in self._views:
            self._views.append(widget)
        if self.state.view.presentation:
            widget.set_presentation(True)

    def _close_tab(self, index: int) -> None:
        if self.tabs.tabBar().tabButton(index, QTabBar.ButtonPosition.RightSide) is not None:
            self.tabs.removeTab(index)  # the widget lives on for the next time it is opened

    def install_panels(self) -> None:
        """The PE and KV tabs' views, in place of their placeholders (once).

        Building them is ~170 ms (pyqtgraph plot items, measured at start-up on the 2-core
        machine), two thirds of the time to the first picture, which shows the Heads tab; so a
        deferred window builds them just after its first paint, or at once if a placeholder tab
        is chosen first. Everything else that uses them (learned wiring, lessons, exports) calls
        this first.
        """
        if self.kv_panel is not None:
            return
        from ..kv.panel import KVPanel
        from ..pe.panel import PEPanel
        pe, kv = PEPanel(), KVPanel()  # both built before either is shown: never half done
        self.pe_panel = self._replace_placeholder("pe", pe)
        self.kv_panel = self._replace_placeholder("kv", kv)
        bind_pe_panel(self.state.view, self.pe_panel)
        bind_kv_panel(self.state.view, self.kv_panel)
        if self.state.result is not None:
            self.pe_panel.set_result(self.state.result)
        self._on_tab_changed(self.tabs.currentIndex())  # (the KV trace, if its tab is current)

    def install_learned(self):
        """The pretrained models' source control, overview and Generate tabs (once); returns the
        LearnedState. learned_wiring (with app.learned_state, core.learned, gui.learned) is
        imported here, so a window built with defer_learned=True starts without them: they are
        ~25 ms of imports the first picture (the random model) does not need."""
        self.install_panels()
        if self.learned is None:
            from .learned_wiring import install_learned, link_training
            install_learned(self)
            if self.train_view is not None:
                link_training(self)
        return self.learned

    def install_training(self):
        """The Train tab (once); returns it. Its view, torch-backed session and export code are
        imported here, after the first paint, like the pretrained models."""
        if self.train_view is None:
            from ..training import TrainView
            from .exports.training_export import install_training_export
            self.train_view = TrainView(HeadsGrid)
            self.train_view.set_device(self.state.config.device)
            self.train_view.set_colormap(self.state.view.colormap)
            note = self.train_view.restore_choices(self._saved_training)
            if note:
                self.status_message(note)
            self.add_view(translate("window.main_window", "Train"), self.train_view)
            install_training_export(self)
            self.state.config_changed.connect(lambda config: self.train_view.set_device(config.device))
            self.state.view.colormap_changed.connect(self.train_view.set_colormap)
            self.train_view.message.connect(self.status_message)
            if self.learned is not None:
                from .learned_wiring import link_training
                link_training(self)
        return self.train_view

    def install_lessons(self):
        """The Lessons menu and panel (once); returns the LessonController. Reading the built-in
        lessons checks their model names against the pretrained models' registry, so it waits
        for the first paint too."""
        self.install_panels()
        if self.lessons is None:
            from .lesson_wiring import install_lessons
            install_lessons(self)
        return self.lessons

    def deferred_steps(self) -> list:
        """What the first picture does not need, in order: the PE and KV tabs, the pretrained
        models, the Train tab, the lessons. run_app runs each in its own turn of the event loop
        (input between them is not held up by the whole ~300 ms)."""
        return [self.install_panels, self.install_learned, self.install_training,
                self.install_lessons]

    def install_deferred(self) -> None:
        """Every deferred step at once."""
        for step in self.deferred_steps():
            step()

    def showing_train(self) -> bool:
        return self.train_view is not None and self.tabs.currentWidget() is self.train_view

    def views(self) -> list[QWidget]:
        return list(self._views)

    def status_message(self, text: str, ms: int = STATUS_MS) -> None:
        self.statusBar().showMessage(text, ms)

    def focus_head(self) -> int | None:
        return self.state.view.focus_head

    def set_focus_head(self, head: int | None) -> None:
        shown = self.heads_grid.shown_result()  # the random model's result or a pretrained layer
        if head is not None and (shown is None or head >= shown.weights.shape[0]):
            return
        self.state.view.focus_head = head
        self.heads_grid.set_focus_head(head)
        if head is not None:
            self.tabs.setCurrentWidget(self.heads_grid)
            self.status_message(translate("window.main_window",
                                          "head {head} enlarged: click it or press Esc for all heads").format(head=head), 4000)

    def apply_preset(self, name: str) -> None:
        preset = PRESETS[name]
        current = self.state.config
        config = preset.config.replace(backend=current.backend, device=current.device)
        if self.state.set_config(config):
            self.status_message(translate("window.main_window", "Preset: {title} — {description}").format(
                title=translate("presets", preset.title), description=translate("presets",
                                                                                preset.description)))

    def restore_layout(self, settings: Settings) -> None:
        if settings.geometry:
            self.restoreGeometry(QByteArray.fromBase64(settings.geometry.encode("ascii")))
        if settings.window_state:
            self.restoreState(QByteArray.fromBase64(settings.window_state.encode("ascii")))

    def settings_snapshot(self, config=None) -> Settings:
        """What to save: the config (or `config`), layout, view options and topic settings."""
        view = self.state.view
        return Settings(
            config=config if config is not None else self.state.config,
            geometry=bytes(self.saveGeometry().toBase64()).decode("ascii"),
            window_state=bytes(self.saveState().toBase64()).decode("ascii"),
            colormap=view.colormap, show_values=view.show_values, presentation=view.presentation,
            topics=self.state.topics.to_dict(), language=current_language(),
            training=self.train_view.choices() if self.train_view is not None else dict(self._saved_training),
            recent_models=tuple(self.recent_models))

    # ----- construction --------------------------------------------------------------------
    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu(translate("window.main_window", "&File"))
        self.view_menu = bar.addMenu(translate("window.main_window", "&View"))
        self.presets_menu = bar.addMenu(translate("window.main_window", "&Presets"))
        self.topics_menu = bar.addMenu(translate("window.main_window", "&Topics"))
        self.help_menu = bar.addMenu(translate("window.main_window", "&Help"))
        self.menus = {"File": self.file_menu, "View": self.view_menu, "Presets": self.presets_menu,
                      "Topics": self.topics_menu, "Help": self.help_menu}
        self.shortcut_actions = make_actions(self, self._shortcut_handlers())
        for name in ("presentation", "full_screen"):
            self.view_menu.addAction(self.shortcut_actions[name])
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.shortcut_actions["unfocus_head"])
        self.view_menu.addAction(self.shortcut_actions["cycle_show_values"])
        self.view_menu.addAction(self.shortcut_actions["toggle_controls"])
        self.view_menu.addSeparator()
        install_language_menu(self)
        for preset in PRESETS.values():
            action = self.presets_menu.addAction(translate("presets", preset.title))
            action.setObjectName(f"preset_{preset.name}")
            action.setToolTip(translate("presets", preset.description))
            action.setStatusTip(translate("presets", preset.description))
            action.triggered.connect(lambda _=False, name=preset.name: self.apply_preset(name))
        self.presets_menu.setToolTipsVisible(True)
        self.help_menu.addAction(self.shortcut_actions["shortcuts_help"])
        self.about_action = self.help_menu.addAction(translate("window.main_window", "About Attention Explorer"),
                                                     self._show_about)

    def _shortcut_handlers(self) -> dict:
        c = self.controls
        handlers = {
            "heads_up": lambda: c.model_size.step_heads(+1),
            "heads_down": lambda: c.model_size.step_heads(-1),
            "d_model_up": lambda: c.model_size.step_d_model(+1),
            "d_model_down": lambda: c.model_size.step_d_model(-1),
            "seed_up": lambda: c.seed.step(+1),
            "seed_down": lambda: c.seed.step(-1),
            "random_seed": c.seed.randomize,
            "toggle_scaling": lambda: c.switches.toggle("scaled"),
            "toggle_causal": lambda: c.switches.toggle("causal"),
            "toggle_positional": lambda: c.switches.toggle("positional"),
            "edit_sentence": self._edit_sentence,
            "unfocus_head": lambda: self.set_focus_head(None),
            "cycle_show_values": self._cycle_show_values,
            "presentation": lambda on: setattr(self.state.view, "presentation", on),
            "toggle_controls": self.controls_dock.setVisible,
            "full_screen": self._set_full_screen,
            "shortcuts_help": self.show_shortcuts,
            "quit": self.close,
        }
        for shortcut in SHORTCUTS:
            if shortcut.name.startswith("focus_head_"):
                head = int(shortcut.name.rsplit("_", 1)[1])
                handlers[shortcut.name] = lambda head=head: self.set_focus_head(head)
        return handlers

    def _add_panel_placeholders(self) -> None:
        """The PE and KV tabs, titled, with empty pages until install_panels."""
        for key, title in (("pe", translate("window.main_window", "Positional encoding")),
                           ("kv", translate("window.main_window", "KV cache"))):
            page = QWidget()
            page.setObjectName(f"{key}_placeholder")
            self.tabs.addTab(page, title)
            self.tabs.tabBar().setTabButton(self.tabs.indexOf(page), QTabBar.ButtonPosition.RightSide, None)
            self._placeholders[key] = page

    def _replace_placeholder(self, key: str, view: QWidget) -> QWidget:
        """Put `view` in the placeholder's tab (same place, title and current tab)."""
        page = self._placeholders.pop(key)
        index, current = self.tabs.indexOf(page), self.tabs.currentIndex()
        title = self.tabs.tabText(index)  # (already in the UI language)
        blocked = self.tabs.blockSignals(True)  # one _on_tab_changed, by install_panels
        self.tabs.removeTab(index)
        self.add_view(title, view, index=index)
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(blocked)
        page.deleteLater()
        return view

    def _install_plugins(self) -> None:
        install_export_actions(self)
        self.topics_controller = install_topics_menu(self)
        if self.topics_menu.isEmpty():
            self.topics_menu.addAction(translate("window.main_window",
                                                 "(no topics installed)")).setEnabled(False)

    def _connect(self) -> None:
        state = self.state
        state.result_changed.connect(self._on_result)
        state.error.connect(self.status_message)
        state.view.colormap_changed.connect(self.heads_grid.set_colormap)
        state.view.show_values_changed.connect(self.heads_grid.set_show_values)
        state.view.presentation_changed.connect(self._apply_presentation)
        self.heads_grid.head_clicked.connect(self._on_head_clicked)
        state.kv_trace_changed.connect(self._on_kv_trace)
        self.tabs.currentChanged.connect(self._on_tab_changed)

    # ----- slots ---------------------------------------------------------------------------
    def _on_result(self, result: AttentionResult) -> None:
        if self.focus_head() is not None and self.focus_head() >= result.config.n_heads:
            self.state.view.focus_head = None
        self.info_strip.set_result(
            result, auto_float32=result.config.dtype != self.state.config.dtype)
        if self.pe_panel is not None:
            self.pe_panel.set_result(result)
        self.picture_shown.emit(result)
        if not self._painted and self.isVisible():
            self._painted = True
            self.repaint()  # paint now, so "first paint" means pixels, not a pending update
            self.first_paint.emit()

    def _on_head_clicked(self, head: int) -> None:
        self.set_focus_head(None if head == self.focus_head() else head)

    def _shows_course(self) -> bool:
        return self.shown.course

    def _on_kv_trace(self, trace) -> None:
        if self.kv_panel is not None and self._shows_course():  # a pretrained decoder's own cache is on the KV tab otherwise
            self.kv_panel.set_trace(trace)

    def _on_tab_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() in self._placeholders.values():
            self.install_panels()  # chosen before the deferred step built them
            return  # (install_panels calls this again, with the real page)
        self._only_the_current_page_sizes_the_tabs()
        showing_kv = self.tabs.currentWidget() is self.kv_panel
        self.state.kv_enabled = showing_kv and self._shows_course()
        # the random model's info strip says nothing about the Train tab's model
        self.info_strip.setVisible(not self.showing_train() and self.shown.course)
        if self.state.kv_enabled and self.state.kv_trace is not None:
            self.kv_panel.set_trace(self.state.kv_trace)

    def _only_the_current_page_sizes_the_tabs(self) -> None:
        """A hidden tab's minimum size must not hold the window up: a tab stack is as large as
        its largest page, so after the KV tab had been shown on a 1024 × 768 projector every
        other tab (and a lesson's text under it) kept its extra height, and the PE tab's width
        pushed the window off the screen when the controls were shown. Hidden pages get Ignored
        policies (Qt then skips their minimum); the current page gets its own back."""
        current = self.tabs.currentWidget()
        for i in range(self.tabs.count()):
            page = self.tabs.widget(i)
            policy = page.sizePolicy()
            own = page.property("own_size_policies")
            if own is None:
                own = (policy.horizontalPolicy(), policy.verticalPolicy())
                page.setProperty("own_size_policies", own)
            ignored = QSizePolicy.Policy.Ignored
            wanted = own if page is current else (ignored, ignored)
            if (policy.horizontalPolicy(), policy.verticalPolicy()) != tuple(wanted):
                policy.setHorizontalPolicy(wanted[0])
                policy.setVerticalPolicy(wanted[1])
                page.setSizePolicy(policy)

    def _edit_sentence(self) -> None:
        self.controls_dock.show()
        edit = self.controls.sentence.edit if self.shown.course else self.model_source.edit
        edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        edit.selectAll()

    def _cycle_show_values(self) -> None:
        modes = SHOW_VALUES_MODES
        view = self.state.view
        view.show_values = modes[(modes.index(view.show_values) + 1) % len(modes)]
        self.status_message(translate("window.main_window", "cell values: {mode}").format(
            mode=translate("controls.options", view.show_values)), 2000)

    def _set_full_screen(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()

    def screen_size(self) -> QSize:
        """The available area of the screen the window is on (or will be shown on); an offscreen
        window drawn for files says its own (`assume_screen`)."""
        if self._assumed_screen is not None:
            return QSize(self._assumed_screen)
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry().size()

    def assume_screen(self, size: QSize) -> None:
        """Lay out as on a screen of `size` (the lesson deck's offscreen window: the offscreen
        platform's own screen is 800 x 800, and the window kept itself that small)."""
        self._assumed_screen = QSize(size)

    def fit_to_screen(self) -> None:
        """Never larger than the screen: a 1400 × 900 default (or a size saved on a larger
        monitor) on a 1024 × 768 projector left the second head off the right edge."""
        room = self.screen_size()
        if self.width() > room.width() or self.height() > room.height():
            self.resize(min(self.width(), room.width()), min(self.height(), room.height()))

    def _apply_presentation(self, on: bool) -> None:
        """Larger fonts and lines, scaled to the screen (see fonts.screen_scale); the controls
        collapse so the plots take the screen (F9 brings them back); leaving restores them."""
        room = self.screen_size()
        set_font_scale(screen_scale(room.width(), room.height()) if on else 1.0)
        self._collapse_controls(on)
        font = ui_font(PRESENTATION_PT if on else NORMAL_PT)
        self.setFont(font)
        self.menuBar().setFont(font)
        for menu in self.menus.values():
            menu.setFont(font)
        self.statusBar().setFont(font)
        for view in self._views:
            view.set_presentation(on)
        action = self.shortcut_actions["presentation"]
        if action.isChecked() != on:
            action.setChecked(on)
        self.fit_to_screen()

    def _collapse_controls(self, presenting: bool) -> None:
        """Hide the dock on entering presentation mode, restore it on leaving. At start-up the
        saved layout may hold the dock hidden only because presentation mode hid it, so a
        window that starts presenting gets the dock back when presentation ends."""
        if presenting == self._presenting:
            return
        if presenting:
            starting = not self._painted and not self.isVisible()
            self._controls_before_presentation = starting or not self.controls_dock.isHidden()
            self.controls_dock.hide()
        elif self._controls_before_presentation:
            self.controls_dock.show()
        self._presenting = presenting

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.closed = True  # (deferred start-up steps not run yet are dropped: app._Startup)
        set_font_scale(1.0)  # the presentation scale is process-wide; it ends with the window
        if self.figure_cache is not None:
            self.figure_cache.clear()  # offscreen export frames: gone with the window
        if self.learned is not None:
            self.learned.shutdown(0)
        if self.train_view is not None:
            self.train_view.shutdown()
        super().closeEvent(event)

    def show_shortcuts(self) -> ShortcutsDialog:
        dialog = ShortcutsDialog(self)
        dialog.setFont(self.font())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _show_about(self) -> None:
        QMessageBox.about(self, translate("window.main_window", "About Attention Explorer"),
                          translate("window.main_window",
                                    "Attention Explorer — multi-head self-attention, live.\n"
                          "Change d_model, heads, seed, scaling, masks and positional encoding "
                          "and watch every head's weights update."))

    # ----- language ------------------------------------------------------------------------
    QT_CLOSE_TAB = ("CloseButton", "Close Tab")  # Qt's own text (its qtbase catalogue, not ours)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """The window's own texts from their sources (a language switch: the views, menus and
        panels set their own; nothing is recomputed)."""
        t = lambda text: translate("window.main_window", text)  # noqa: E731
        self.setWindowTitle(t("Attention Explorer"))
        self.controls_dock.setWindowTitle(t("Controls"))
        for menu, title in ((self.file_menu, "&File"), (self.view_menu, "&View"), (self.presets_menu, "&Presets"),
                            (self.topics_menu, "&Topics"), (self.help_menu, "&Help")):
            menu.setTitle(t(title))
        for preset in PRESETS.values():
            action = self.presets_menu.findChild(QAction, f"preset_{preset.name}")
            for setter in (action.setToolTip, action.setStatusTip):
                setter(translate("presets", preset.description))
            action.setText(translate("presets", preset.title))
        self.about_action.setText(t("About Attention Explorer"))
        tabs = ((self.heads_grid, "Heads"), (self.train_view, "Train"),
                (self.pe_panel or self._placeholders.get("pe"), "Positional encoding"),
                (self.kv_panel or self._placeholders.get("kv"), "KV cache"))
        for widget, title in tabs:
            if widget is not None and self.tabs.indexOf(widget) >= 0:
                self.tabs.setTabText(self.tabs.indexOf(widget), t(title))
        bar = self.tabs.tabBar()  # Qt's own close buttons keep the tooltip they were made with
        for i in range(bar.count()):
            button = bar.tabButton(i, QTabBar.ButtonPosition.RightSide)
            if button is not None:
                button.setToolTip(QCoreApplication.translate(*self.QT_CLOSE_TAB))
