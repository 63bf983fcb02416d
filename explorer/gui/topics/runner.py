"""Topic computations off the GUI thread: latest request wins, stale results are dropped.

The window's ComputeWorker only runs `core.forward`; topic views need other functions
(a d_model sweep, an encoder block at large sizes), so each view owns a `TopicRunner`:
a generation counter and signals delivered in the GUI thread. All runners share one
worker thread (a QThreadPool of one, owned by the application, so it outlives every view
and the application waits for it on exit): only the visible topic computes anyway.
A job that starts after a newer one was submitted is skipped; a result that arrives after
a newer submit is dropped (napari's histogram pattern). Long jobs may poll
`runner.is_stale(generation)` to stop early.
"""

from __future__ import annotations

import traceback
from typing import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal

from ...core import ConfigError

_POOL: QThreadPool | None = None


def topic_pool() -> QThreadPool:
    """The one thread all topic computations run on (created on first use)."""
    global _POOL
    if _POOL is None or not shiboken6.isValid(_POOL):  # a new QApplication (tests) needs a new pool
        _POOL = QThreadPool(QCoreApplication.instance())
        _POOL.setMaxThreadCount(1)
        _POOL.setObjectName("topic_pool")
    return _POOL


def shutdown_topic_pool(ms: int = 10_000) -> bool:
    """Drop queued topic jobs and wait for the running one (call when the app quits)."""
    if _POOL is None or not shiboken6.isValid(_POOL):
        return True
    _POOL.clear()
    return _POOL.waitForDone(ms)


class _Job(QRunnable):
    def __init__(self, runner: "TopicRunner", generation: int, fn: Callable, args: tuple):
        super().__init__()
        self.setAutoDelete(True)
        self._runner, self._generation, self._fn, self._args = runner, generation, fn, args

    def run(self) -> None:
        runner = self._runner
        if runner.is_stale(self._generation):
            return
        try:
            value, error = self._fn(*self._args), None
        except ConfigError as exc:
            value, error = None, str(exc)
        except Exception as exc:  # noqa: BLE001 - a topic failure must never kill the app
            value, error = None, f"{exc.__class__.__name__}: {exc}"
            traceback.print_exc()
        try:
            runner._done.emit(self._generation, value, error)
        except RuntimeError:  # the runner was deleted while we computed
            pass


class TopicRunner(QObject):
    """Runs `fn(*args)` on a worker thread; emits `finished(value)` or `failed(message)`."""

    finished = Signal(object)   # the newest request's value
    failed = Signal(str)        # the newest request's ConfigError (or other) message
    busy_changed = Signal(bool)
    _done = Signal(int, object, object)  # generation, value, error (worker thread -> GUI)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._generation = 0
        self._delivered = 0
        self._done.connect(self._deliver)

    @property
    def generation(self) -> int:
        return self._generation

    def is_stale(self, generation: int) -> bool:
        """True once a newer request was submitted (read from any thread)."""
        return generation != self._generation

    def is_busy(self) -> bool:
        return self._delivered != self._generation

    def submit(self, fn: Callable, *args) -> int:
        """Queue fn(*args); any older request still waiting will not run. Returns the generation."""
        self._generation += 1
        was_busy = self._delivered != self._generation - 1
        topic_pool().start(_Job(self, self._generation, fn, args))
        if not was_busy:
            self.busy_changed.emit(True)
        return self._generation

    def submit_cancellable(self, fn: Callable, *args) -> int:
        """Like submit, but calls fn(*args, should_stop=...) so a long job can stop early
        once a newer request exists (it may then return anything: it will be dropped)."""
        generation = self._generation + 1

        def call(*a):
            return fn(*a, should_stop=lambda: self.is_stale(generation))
        return self.submit(call, *args)

    def cancel(self) -> None:
        """Forget pending work: whatever is running finishes, but nothing is delivered."""
        if self.is_busy():
            self._generation += 1
            self._delivered = self._generation
            self.busy_changed.emit(False)

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the topic thread is idle (tests and shutdown only, never in a slot)."""
        return topic_pool().waitForDone(ms)

    def _deliver(self, generation: int, value, error) -> None:
        if generation != self._generation:
            return  # stale: a newer request is queued or running
        self._delivered = generation
        self.busy_changed.emit(False)
        if error is None:
            self.finished.emit(value)
        else:
            self.failed.emit(error)
