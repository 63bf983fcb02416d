"""Topic computations on the background runner: latest request wins, stale results are dropped.

Topic views need other functions than the window's compute (a d_model sweep, an encoder block at
large sizes), so each view owns a `TopicRunner`: one latest-request-wins `Channel` of the shared
topic `Runner` (``app.runner``), whose one daemon thread "attention-topics" runs the views' jobs
in the order they were submitted (only the visible topic computes anyway). A job that starts
after a newer one was submitted is skipped; a result that arrives after a newer submit is dropped
(napari's histogram pattern). Long jobs submitted with `submit_cancellable` get
``should_stop=token`` and may poll ``token()`` to stop early.

Quitting never waits for a topic job: `shutdown_topic_pool()` closes the shared runner (waiting
jobs dropped, every token stale, so a cancellable job stops at its next poll) and returns at once;
a job still running is abandoned with its daemon thread and delivers nothing (see
``gui.window.app.run_app``). Later submits get a fresh runner. Results reach the GUI thread
through ``app.dispatch`` (the Qt poster), so this module needs no Qt itself.
"""

from __future__ import annotations

import traceback
from typing import Callable

from ...app.observable import Event
from ...app.i18n import error_text
from ...app.runner import Channel, Runner
from ...core import ConfigError

_RUNNER = Runner("attention-topics")


def topic_thread() -> Runner:
    """The runner topic computations run on now."""
    return _RUNNER


def shutdown_topic_pool(ms: int = 0) -> bool:
    """Quit-time: drop queued topic jobs, wait at most `ms` for the running one (default: not
    at all); True when no job is left running. Later submits (tests) get a fresh runner."""
    global _RUNNER
    closing, _RUNNER = _RUNNER, Runner("attention-topics")
    return closing.close(ms / 1000)


class FailureText(str):
    """A failed job's message, in the UI language when it failed; ``again()`` says it in the
    language now (the view shows it again after a language switch)."""

    def __new__(cls, exc: BaseException):
        text = super().__new__(cls, _text(exc))
        text.exc = exc
        return text

    def again(self) -> str:
        return _text(self.exc)


def _text(exc: BaseException) -> str:
    if isinstance(exc, ConfigError):
        return error_text(exc)  # in the UI language
    return f"{exc.__class__.__name__}: {exc}"


def _describe(exc: BaseException) -> str:
    if not isinstance(exc, ConfigError):
        traceback.print_exc()  # a topic failure must never kill the app, but should not go unseen
    return FailureText(exc)


class TopicRunner:
    """Runs `fn(*args)` on the topic runner; emits `finished(value)` or `failed(message)` and
    `busy_changed(bool)` on the GUI thread (Qt-free events)."""

    def __init__(self):
        self.finished = Event()      # the newest request's value
        self.failed = Event()        # the newest request's ConfigError (or other) message
        self.busy_changed = Event()
        self._channel: Channel | None = None
        self._generation = 0

    @property
    def generation(self) -> int:
        return self._generation

    def is_stale(self, generation: int) -> bool:
        """True once a newer request was submitted (read from any thread)."""
        return generation != self._generation

    def is_busy(self) -> bool:
        return self._channel is not None and self._channel.is_busy()

    def submit(self, fn: Callable, *args) -> int:
        """Queue fn(*args); any older request still waiting will not run. Returns the generation."""
        return self._submit(fn, args, cancellable=False)

    def submit_cancellable(self, fn: Callable, *args) -> int:
        """Like submit, but calls fn(*args, should_stop=token) so a long job can stop early once
        a newer request exists or the app quits (it may then return anything: it is dropped)."""
        return self._submit(fn, args, cancellable=True)

    def cancel(self) -> None:
        """Forget pending work: whatever is running finishes, but nothing is delivered."""
        if self.is_busy():
            self._channel.cancel()
            self._generation = self._channel.generation
            self.busy_changed.emit(False)

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the topic runner is idle (tests only, never in a slot)."""
        return _RUNNER.wait_idle(ms / 1000)

    def _submit(self, fn: Callable, args: tuple, cancellable: bool) -> int:
        was_busy = self.is_busy()
        if self._channel is None or self._channel.runner is not _RUNNER:  # new, or after shutdown
            self._channel = _RUNNER.channel(self._deliver, describe=_describe)
            self._channel.generation = self._channel.delivered = self._generation
        self._generation = self._channel.submit(fn, *args, cancellable=cancellable)
        if not was_busy:
            self.busy_changed.emit(True)
        return self._generation

    def _deliver(self, generation: int, value, error) -> None:
        self.busy_changed.emit(False)
        if error is None:
            self.finished.emit(value)
        else:
            self.failed.emit(error)
