"""The Qt bridge of the background runner: results are handed to the GUI thread's event loop.

`app.runner` finishes jobs on its own thread and calls ``app.dispatch.post_to_main(fn)``. Importing
``explorer.gui`` installs `QtPoster.post` there: it emits a queued signal (emitting only posts an
event, it never runs GUI code on the worker thread) and the GUI thread calls fn() when it gets to it.
It also installs `QtSingleShot` as the timer ``app.throttle``'s debouncers and throttlers run on.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from shiboken6 import isValid

from ..app.dispatch import install_main_thread_poster, install_timer_factory


class QtPoster(QObject):
    """Lives in the thread that created it (the GUI thread); runs posted callables there."""

    _posted = Signal(object)

    def __init__(self):
        super().__init__()
        self._posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    def post(self, fn: Callable[[], None]) -> None:
        try:
            self._posted.emit(fn)
        except RuntimeError:  # the poster was deleted at interpreter exit: nobody to deliver to
            pass

    def _run(self, fn: Callable[[], None]) -> None:
        fn()


_POSTER: QtPoster | None = None


def install() -> QtPoster:
    """Route the runner's results through the Qt event loop (idempotent)."""
    global _POSTER
    if _POSTER is None:
        _POSTER = QtPoster()
        install_main_thread_poster(_POSTER.post)
        install_timer_factory(QtSingleShot)
    return _POSTER


class QtSingleShot:
    """``app.throttle.SingleShot`` on a QTimer, a child of `owner` (it stops with the widget)."""

    def __init__(self, on_timeout: Callable[[], None], owner: QObject | None = None):
        self._timer = QTimer(owner)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(on_timeout)

    def start(self, ms: int) -> None:
        if isValid(self._timer):  # not once its owner is gone (a signal emitted in teardown)
            self._timer.start(ms)

    def stop(self) -> None:
        if isValid(self._timer):
            self._timer.stop()

    def is_active(self) -> bool:
        return isValid(self._timer) and self._timer.isActive()
