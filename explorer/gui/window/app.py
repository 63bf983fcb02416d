"""Start the window: ``run_app()`` is what ``attention-explorer`` and ``python -m explorer`` run.

Start-up order keeps the first picture fast and torch-free: the numpy backend computes the first
picture; after the window has painted it, the compute runner lists devices (imports torch) and,
if the saved settings chose a torch backend that exists, switches to it.

Environment variables (tests, benchmarks, screenshots):

``ATTENTION_EXPLORER_SETTINGS_DIR``
    folder of settings.json (see explorer/app/settings.py); ``run_app(settings_path=...)`` names a file instead.
``ATTENTION_EXPLORER_QUIT_AFTER_MS``
    close the window this many milliseconds after the first picture is painted (0 = at once).
``ATTENTION_EXPLORER_SCREENSHOT``
    a .png path: save a grab of the window just before that timed close.
``ATTENTION_EXPLORER_DEBUG``
    when set, print progress lines on stdout, e.g.
    ``attention-explorer: window shown at 412 ms (torch imported: no)`` and
    ``attention-explorer: first paint at 530 ms (torch imported: no)``
    (milliseconds since run_app started); also when devices are listed, when the window
    closed and at the exit (saying which running job it did not wait for).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import QApplication

from ...core import ConfigError
from ...core.config import parse_whole
from ..plotting.colormaps import COLORMAPS, DEFAULT_COLORMAP
from ..plotting.fonts import load_bundled_fonts, ui_font
from ..plotting.resources import app_icon
from ..gui_thread_gc import collect_on_gui_thread, freeze_long_lived
from ..plotting.i18n import QT_TRANSLATE_NOOP, install_language, system_language, translate
from .main_window import NORMAL_PT, MainWindow
from ...app.heap import map_large_blocks
from ...app.i18n import error_text
from ...app.settings import Settings, SettingsNote, default_settings_path, load_settings, save_settings
from ...app.course.state import AppState, ViewState

QUIT_AFTER_ENV = "ATTENTION_EXPLORER_QUIT_AFTER_MS"
SCREENSHOT_ENV = "ATTENTION_EXPLORER_SCREENSHOT"
DEBUG_ENV = "ATTENTION_EXPLORER_DEBUG"


MAX_TIMER_MS = 2**31 - 1  # QTimer takes a C int: more raises OverflowError inside the slot


def quit_after_ms(text: str) -> int:
    """ATTENTION_EXPLORER_QUIT_AFTER_MS as a QTimer interval: 0 when it is not a whole number,
    clamped to 0 .. MAX_TIMER_MS (about 24.8 days) when it is."""
    try:
        ms = parse_whole(text, QUIT_AFTER_ENV)
    except ConfigError:
        digits = text.strip().lstrip("+")
        return MAX_TIMER_MS if digits.isascii() and digits.isdigit() else 0  # too long: "never"
    return max(0, min(MAX_TIMER_MS, ms))


class _Startup:
    """Glue for one run: first-paint hooks, device restore, debug lines, timed quit."""

    def __init__(self, window: MainWindow, preferred: tuple[str, str] | None, t0: float):
        self.window, self.preferred, self.t0 = window, preferred, t0
        self._waiting_for_user = False  # the saved backend was unavailable in this run
        self._frozen = False  # gui_thread_gc.freeze_long_lived done
        self.debug = bool(os.environ.get(DEBUG_ENV))
        window.first_paint.connect(self.on_first_paint)
        window.state.devices_changed.connect(self.on_devices)

    def log(self, what: str) -> None:
        if self.debug:
            ms = (time.perf_counter() - self.t0) * 1e3
            torch = "yes" if "torch" in sys.modules else "no"
            try:
                print(f"attention-explorer: {what} at {ms:.0f} ms (torch imported: {torch})",
                      flush=True)
            except (OSError, ValueError):  # stdout closed by the reader (e.g. `| head -1`):
                self.debug = False         # stop logging, but never let it stop start-up

    def on_first_paint(self) -> None:
        self.log("first paint")
        self._run_steps(self.window.deferred_steps())  # see MainWindow.deferred_steps
        QTimer.singleShot(0, self.window.state.request_devices)
        quit_after = os.environ.get(QUIT_AFTER_ENV)
        if quit_after is not None:
            QTimer.singleShot(quit_after_ms(quit_after), self.timed_close)

    def _run_steps(self, steps: list) -> None:
        """Each step in its own turn of the event loop, in order (input and paints between)."""
        if steps:
            def run_first():
                if self.window.closed:  # closed meanwhile: nothing more to install
                    return
                try:
                    steps[0]()
                finally:  # a failing step (reported by the excepthook) does not stop the rest
                    self._run_steps(steps[1:])
            QTimer.singleShot(0, run_first)

    def timed_close(self) -> None:
        path = os.environ.get(SCREENSHOT_ENV)
        if path:
            self.window.grab().save(path)
        self.window.close()

    def on_devices(self, devices) -> None:
        self.log("devices listed")
        if not self._frozen:  # torch is imported by now: start-up is over
            self._frozen = True
            QTimer.singleShot(0, freeze_long_lived)
        if self.preferred is None or self._waiting_for_user:
            return
        backend, device = self.preferred
        combo = self.window.controls.backend
        if combo.is_available(backend, device):
            self.preferred = None
            self.window.state.update(backend=backend, device=device)
        else:  # kept: restored on a later start where the device is back
            self._waiting_for_user = True
            self.window.state.config_changed.connect(self._on_config)
            self.window.status_message(translate("window.app",
                                                 "saved backend {backend}/{device} is not available "
                                       "here; using numpy for this run (kept for next time)").format(backend=backend, device=device))

    def _on_config(self, config) -> None:
        """A backend the user picks in this run replaces the saved one that was unavailable."""
        if (config.backend, config.device) != ("numpy", "cpu"):
            self.preferred = None

    def config_to_save(self):
        """The config to remember: a saved torch choice survives a quit before devices load
        and a run on a machine where its device is missing (until the user picks another)."""
        config = self.window.state.config
        if self.preferred is not None and config.backend == "numpy":
            config = config.replace(backend=self.preferred[0], device=self.preferred[1])
        return config


def _start_settings(path) -> tuple[Settings, list[SettingsNote]]:
    settings, note = load_settings(path)
    notes = [note] if note else []
    if settings.colormap not in COLORMAPS:
        notes.append(SettingsNote.of(QT_TRANSLATE_NOOP(
            "settings", "unknown colormap {name} in settings; using {default}"),
            name=repr(settings.colormap), default=DEFAULT_COLORMAP))
        settings.colormap = DEFAULT_COLORMAP
    return settings, notes


def _let_python_see_ctrl_c(app: QApplication, window: MainWindow) -> QTimer:
    """Ctrl+C, `kill` and a closed terminal close the window as the close button does: settings
    saved, an export being written finishes or is removed, never a stray .part file
    (Qt's loop would otherwise swallow SIGINT, and SIGTERM / SIGHUP would kill at once)."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), lambda *_: window.close())
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)  # wakes the interpreter so the handler can run
    timer.start(250)
    return timer


def run_app(settings_path: str | os.PathLike | None = None, argv: list[str] | None = None,
            lesson=None) -> int:
    """Open the window (on `lesson`'s first step when given, an app.lessons.Lesson), run the
    event loop, save settings, stop the worker; exit code (0).

    Closing never waits for a compute: when a forward pass, a topic job or the torch import is
    still running at the close, the settings are saved and the process exits at once
    (``os._exit`` with the same code) instead of returning; the job is abandoned.
    """
    t0 = time.perf_counter()
    map_large_blocks()  # before Qt and the fonts fill the heap (app.heap)
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    collect_on_gui_thread()  # before AppState starts the compute thread (see gui_thread_gc)
    app.setApplicationName("attention-explorer")
    app.setWindowIcon(app_icon())
    load_bundled_fonts()
    app.setFont(ui_font(NORMAL_PT))
    path = Path(settings_path) if settings_path is not None else default_settings_path()
    settings, notes = _start_settings(path)
    install_language(settings.language or system_language())
    saved = settings.config
    preferred = None if saved.backend == "numpy" else (saved.backend, saved.device)
    view = ViewState(settings.colormap, settings.show_values, settings.presentation)
    state = AppState(saved.replace(backend="numpy", device="cpu"), view=view, auto_precision=True)
    notes += state.topics.update_from_dict(settings.topics)
    window = MainWindow(state, settings, defer_learned=True)
    startup = _Startup(window, preferred, t0)
    ctrl_c = _let_python_see_ctrl_c(app, window)
    window.show()
    startup.log("window shown")
    if lesson is not None:
        window.install_lessons().open_lesson(lesson)
    if notes:  # read before the language was installed: shown in it now
        window.status_message(" · ".join(error_text(note) for note in notes))
    code, returned = 1, False
    try:
        code = int(app.exec())
        returned = True
    finally:
        ctrl_c.stop()
        startup.log("window closed")
        abandoned = _stop_background_work(state)
        if window.train_view is not None and not window.train_view.shutdown():  # a training chunk still running (≤ 0.1 s)
            abandoned.append("training")
        if not settings.read_only:  # a FIFO, a device or someone else's file stays untouched
            _save_at_exit(window.settings_snapshot(startup.config_to_save()), path)
        if abandoned and returned:  # (an exception from exec keeps its traceback instead)
            startup.log(f"exit without waiting for the {' and '.join(abandoned)}")
            _exit_now(code)
        window.deleteLater()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    startup.log("exit")
    return code


def _save_at_exit(settings: Settings, path: Path) -> None:
    try:
        save_settings(settings, path)
    except OSError as exc:
        try:
            print(f"attention-explorer: could not save settings to {path}: {exc}", file=sys.stderr)
        except (OSError, ValueError, AttributeError):  # stderr closed too: nothing more to do
            pass


def _stop_background_work(state: AppState) -> list[str]:
    """Stop the compute and topic threads without waiting; what is still running."""
    abandoned = []
    if not state.shutdown(timeout=0):
        abandoned.append("compute")
    try:
        from ..topics.runner import shutdown_topic_pool
    except ModuleNotFoundError:  # pragma: no cover - topics not installed
        pass
    else:
        if not shutdown_topic_pool(0):
            abandoned.append("topic computation")
    return abandoned


def _exit_now(code: int) -> None:
    """Leave at once, skipping interpreter shutdown: a daemon thread still inside numpy or
    torch (or importing torch) must not be finalised under it (Python 3.11 kills such a
    thread when it next takes the GIL, which aborts inside torch's C++). Settings are saved;
    nothing else is left to flush but the standard streams."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)
