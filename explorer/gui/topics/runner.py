"""Topic computations off the GUI thread: latest request wins, stale results are dropped.

The window's ComputeWorker only runs `core.forward`; topic views need other functions
(a d_model sweep, an encoder block at large sizes), so each view owns a `TopicRunner`:
a generation counter and signals delivered in the GUI thread. All runners share one
daemon thread (`TopicThread`), which runs jobs in the order they were submitted: only the
visible topic computes anyway. A job that starts after a newer one was submitted is
skipped; a result that arrives after a newer submit is dropped (napari's histogram
pattern). Long jobs may poll `runner.is_stale(generation)` to stop early.

Quitting never waits for a topic job: `shutdown_topic_pool()` drops the queue, makes every
job stale (so a cancellable one stops at its next poll) and returns at once; a job still
running is abandoned with its daemon thread and delivers nothing (see ``app.run_app``).
A Python thread rather than a QThreadPool, whose destructor would wait for it.
"""

from __future__ import annotations

import threading
import traceback
from collections import deque
from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal

from ...core import ConfigError
from ...app.worker import end_thread


class TopicThread:
    """One daemon thread running queued jobs in order; `close()` abandons what is running."""

    def __init__(self):
        self._cond = threading.Condition()
        self._jobs: deque[Callable[[], None]] = deque()
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self, job: Callable[[], None]) -> bool:
        """Queue job(); False (and nothing queued) once closed."""
        with self._cond:
            if self._closed:
                return False
            self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="attention-topics",
                                                daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return True

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no job is queued or running (tests only, never in a slot)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def close(self, timeout: float = 0.0) -> bool:
        """Drop queued jobs, refuse new ones, end the thread; True once it has ended.
        A running job is waited for at most `timeout` seconds, then abandoned."""
        with self._cond:
            self._closed = True
            self._jobs.clear()
            self._cond.notify_all()
            thread, busy = self._thread, self._busy
        return end_thread(thread, busy, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._closed or self._jobs)
                if self._closed:
                    return
                job = self._jobs.popleft()
                self._busy = True
            job()


_THREAD = TopicThread()


def topic_thread() -> TopicThread:
    """The thread topic computations run on now."""
    return _THREAD


def shutdown_topic_pool(ms: int = 0) -> bool:
    """Quit-time: drop queued topic jobs, wait at most `ms` for the running one (default: not
    at all); True when no job is left running. Later submits (tests) get a fresh thread."""
    global _THREAD
    closing, _THREAD = _THREAD, TopicThread()
    return closing.close(ms / 1000)


class _Job:
    def __init__(self, runner: "TopicRunner", generation: int, fn: Callable, args: tuple,
                 cancellable: bool):
        self._runner, self._generation, self._fn, self._args = runner, generation, fn, args
        self._cancellable = cancellable
        self.thread = _THREAD

    def is_stale(self) -> bool:
        """A newer request exists, or the app is quitting (any thread)."""
        return self.thread.closed or self._runner.is_stale(self._generation)

    def __call__(self) -> None:
        runner = self._runner
        if self.is_stale():
            return
        kwargs = {"should_stop": self.is_stale} if self._cancellable else {}
        try:
            value, error = self._fn(*self._args, **kwargs), None
        except ConfigError as exc:
            value, error = None, str(exc)
        except Exception as exc:  # noqa: BLE001 - a topic failure must never kill the app
            value, error = None, f"{exc.__class__.__name__}: {exc}"
            traceback.print_exc()
        if self.is_stale():
            return  # superseded or quitting: nothing to deliver
        try:
            runner._done.emit(self._generation, value, error)  # queued to the GUI thread
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
        self._done.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

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
        return self._submit(fn, args, cancellable=False)

    def submit_cancellable(self, fn: Callable, *args) -> int:
        """Like submit, but calls fn(*args, should_stop=...) so a long job can stop early
        once a newer request exists or the app quits (it may then return anything: it will
        be dropped)."""
        return self._submit(fn, args, cancellable=True)

    def _submit(self, fn: Callable, args: tuple, cancellable: bool) -> int:
        self._generation += 1
        was_busy = self._delivered != self._generation - 1
        _THREAD.start(_Job(self, self._generation, fn, args, cancellable))
        if not was_busy:
            self.busy_changed.emit(True)
        return self._generation

    def cancel(self) -> None:
        """Forget pending work: whatever is running finishes, but nothing is delivered."""
        if self.is_busy():
            self._generation += 1
            self._delivered = self._generation
            self.busy_changed.emit(False)

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the topic thread is idle (tests only, never in a slot)."""
        return _THREAD.wait(ms / 1000)

    def _deliver(self, generation: int, value, error) -> None:
        if generation != self._generation:
            return  # stale: a newer request is queued or running
        self._delivered = generation
        self.busy_changed.emit(False)
        if error is None:
            self.finished.emit(value)
        else:
            self.failed.emit(error)
