"""The one background runner: jobs off the main thread, the latest request wins, stale results dropped.

A `Runner` owns one daemon thread. Work reaches it through `Channel`s (one per consumer: the main
compute, device listing, each topic view; next, model loading and training). Each channel keeps
at most one job waiting: `submit` replaces a job that has not started, so a burst of 100 slider
moves becomes one more job, and returns the request's generation. When the thread is free it
takes the waiting job of the highest priority, oldest first.

A job may take a `CancelToken` (``submit(fn, *args, cancellable=True)`` calls
``fn(*args, should_stop=token)``) and poll ``token()`` / ``token.is_stale()``: it turns true once
a newer request exists on its channel or the runner is closing, and a long job can stop early.

Results (or a one-line error) go back through ``dispatch.post_to_main`` (the GUI thread when Qt
runs) to the channel's `deliver(generation, value, error)`; a result gone stale by then is dropped:
- ``keep_superseded=False`` (topics): anything older than the newest request is dropped;
- ``keep_superseded=True`` (the main compute): an older result still shows while a newer request
  runs (the picture keeps moving during a drag), but never one older than a result already
  finished.

Closing never waits for a running job unless asked: `close(timeout)` drops waiting jobs, makes
every token stale, waits at most `timeout` seconds and then abandons the (daemon) thread, which
finishes its job, delivers nothing and ends. The app quits with ``close(0)`` and leaves with
``os._exit`` (see ``gui.window.app.run_app``). Python threads rather than a QThreadPool, whose
destructor would wait. Qt-free: the Qt part is only the poster in ``gui/dispatch_qt.py``.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.config import ConfigError
from .i18n import error_text

IDLE_EXIT_S = 2.0  # an idle thread ends within microseconds of close(); this only bounds the join


def end_thread(thread: threading.Thread | None, busy: bool, timeout: float) -> bool:
    """Join a background thread that was just told to stop; True once it has ended.

    A busy thread (inside a job) gets `timeout` seconds, then is abandoned (it is a daemon);
    an idle one is woken already and ends at once. Never joins the calling thread itself.
    """
    if thread is None or thread is threading.current_thread():
        return True
    thread.join(timeout if busy else max(timeout, IDLE_EXIT_S))
    return not thread.is_alive()


def describe_error(exc: BaseException) -> str:
    """One line for the status bar: the exception's own message (a ConfigError's in the UI
    language), typed when it is not ours."""
    if isinstance(exc, ConfigError) and exc.template is not None:
        return error_text(exc).splitlines()[0]
    name = exc.__class__.__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if not text:
        return name
    return text if name in ("ConfigError", "DeviceUnavailableError") else f"{name}: {text}"


class CancelToken:
    """Polled by a running job: true once its request is superseded or the runner closes."""

    def __init__(self, channel: "Channel", generation: int):
        self._channel, self.generation = channel, generation

    def is_stale(self) -> bool:
        return self._channel.runner.closed or self._channel.generation != self.generation

    __call__ = is_stale


@dataclass(order=True)
class _Task:
    order: tuple                      # (-priority, sequence): the smallest runs first
    channel: "Channel" = field(compare=False)
    generation: int = field(compare=False)
    fn: Callable = field(compare=False)
    args: tuple = field(compare=False)
    cancellable: bool = field(compare=False)


class Runner:
    """One daemon thread running the waiting job of each of its channels."""

    def __init__(self, name: str = "attention-runner", setup: Callable[[], Any] | None = None,
                 around_job: Callable[[Any], None] | None = None):
        """`setup()` runs first on the thread (e.g. cap BLAS threads); its value is passed to
        `around_job(value)` before and after every job (e.g. cap torch's threads once loaded)."""
        self.name, self._setup, self._around_job = name, setup, around_job
        self._cond = threading.Condition()
        self._waiting: dict[Channel, _Task] = {}
        self._sequence = itertools.count()
        self._running: Channel | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    def channel(self, deliver: Callable[[int, Any, str | None], None], *, priority: int = 0,
                keep_superseded: bool = False,
                describe: Callable[[BaseException], str] = describe_error) -> "Channel":
        return Channel(self, deliver, priority, keep_superseded, describe)

    def is_busy(self, channel: "Channel | None" = None) -> bool:
        """A job waiting or running (on `channel`, or on any channel)."""
        with self._cond:
            if channel is None:
                return bool(self._waiting) or self._running is not None
            return channel in self._waiting or self._running is channel

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job waits or runs (tests and benchmarks only, never the GUI thread)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._waiting and self._running is None, timeout)

    def close(self, timeout: float = 0.0) -> bool:
        """Drop waiting jobs, refuse new ones, end the thread; True once it has ended. Idempotent.
        A running job is waited for at most `timeout` seconds (0: not at all), then abandoned."""
        with self._cond:
            self._closed = True
            self._waiting.clear()
            self._cond.notify_all()
            thread, busy = self._thread, self._running is not None
        return end_thread(thread, busy, timeout)

    def _queue(self, task: _Task) -> bool:
        with self._cond:
            if self._closed:
                return False
            self._waiting[task.channel] = task  # replaces a job of this channel not yet started
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return True

    def _run(self) -> None:
        context = self._setup() if self._setup is not None else None
        while True:
            with self._cond:
                self._running = None
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._closed or self._waiting)
                if self._closed:
                    return
                task = min(self._waiting.values())
                del self._waiting[task.channel]
                self._running = task.channel
            if self._around_job is not None:
                self._around_job(context)
            hand_over = task.channel._execute(task)
            if self._around_job is not None:
                self._around_job(context)
            with self._cond:  # not busy before the result can arrive: a receiver may close us
                self._running = None
                self._cond.notify_all()
            if hand_over is not None:
                from .dispatch import post_to_main
                post_to_main(hand_over)


class Channel:
    """One consumer's latest-request-wins line to a Runner; results go to `deliver` on the main
    thread as deliver(generation, value, error) with error None or a one-line message."""

    def __init__(self, runner: Runner, deliver: Callable, priority: int, keep_superseded: bool,
                 describe: Callable[[BaseException], str]):
        self.runner, self._deliver, self._priority = runner, deliver, priority
        self._keep_superseded, self._describe = keep_superseded, describe
        self._lock = threading.Lock()
        self.generation = 0      # newest request submitted (main thread writes)
        self.delivered = 0       # newest generation handed to deliver or given up on
        self._finished = 0       # newest generation whose job finished (runner thread writes)
        self._posted = 0         # results posted to the main thread, not yet handled there

    def submit(self, fn: Callable, *args, cancellable: bool = False) -> int:
        """Run fn(*args) (with should_stop=CancelToken if cancellable); returns the generation.
        After the runner is closed nothing runs and the current generation is returned."""
        if self.runner.closed:
            return self.generation
        self.generation += 1
        self.runner._queue(_Task((-self._priority, next(self.runner._sequence)), self,
                                 self.generation, fn, args, cancellable))
        return self.generation

    def is_stale(self, generation: int) -> bool:
        """True once a newer request exists or the runner is closing (any thread)."""
        return self.runner.closed or generation != self.generation

    def is_busy(self) -> bool:
        """The newest request's result has not been handed over (or given up on) yet."""
        return self.delivered != self.generation

    def is_idle(self) -> bool:
        """Nothing waiting, running, or posted to the main thread and not yet handled."""
        if self.runner.is_busy(self):  # first: a job counts itself posted before it stops running
            return False
        with self._lock:
            return not self._posted

    def cancel(self) -> None:
        """Forget pending work: what runs finishes (its token turns stale), nothing is delivered."""
        self.generation += 1
        self.delivered = self.generation

    def _execute(self, task: _Task) -> Callable[[], None] | None:  # runner thread
        """Run the task; the hand-over to post to the main thread, or None (nothing to deliver)."""
        if self._keep_superseded is False and self.is_stale(task.generation):
            return None
        kwargs = {"should_stop": CancelToken(self, task.generation)} if task.cancellable else {}
        try:
            value, error = task.fn(*task.args, **kwargs), None
        except Exception as exc:  # noqa: BLE001 - a failing job must never kill the thread
            value, error = None, self._describe(exc)
        with self._lock:
            self._finished = max(self._finished, task.generation)
            if self.runner.closed:
                return None  # quitting: the receiver may be gone
            self._posted += 1
        return lambda: self._hand_over(task.generation, value, error)

    def _hand_over(self, generation: int, value, error) -> None:  # main thread
        try:
            if self._is_current(generation):
                self.delivered = generation
                self._deliver(generation, value, error)
        finally:
            with self._lock:
                self._posted -= 1  # idle only once the receiver has seen it

    def _is_current(self, generation: int) -> bool:
        with self._lock:
            newest_finished = self._finished
        if self.runner.closed or generation <= self.delivered:
            return False
        if self._keep_superseded:
            return generation >= newest_finished  # else overtaken before the main thread looked
        return generation == self.generation  # else stale: a newer request waits or runs
