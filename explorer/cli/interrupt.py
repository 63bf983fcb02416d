"""Ctrl+C, `kill` and a closed terminal during an export: stop at the next safe point, undo, one line.

A signal handler that raises can fire inside any Python code, also inside the overrides Qt calls
back while it lays out and renders (pyqtgraph's `boundingRect`, paint events): the exception then
unwinds into C++, and an interrupted export ended in a traceback from deep inside Qt or a segfault
at exit, its folders left behind (issue 21, row 4). So while an export runs (and while any
command's options are read), SIGINT, SIGTERM and SIGHUP only note which signal came. The export
asks `check()` between its steps -- between figures, before each file, after writing -- where no
Qt code is on the stack, and that raises `Interrupted` in ordinary code; the export removes what
it wrote and the folders it created, and the command exits 128 + the signal's number (130, 143,
129) with one line.

Only where pure Python may block on the outside world -- printing the paths to a pipe nobody
reads -- does a signal raise at once (`StopSignals.raising()`): waiting there would make it useless.
No event loop runs during a command-line export (the offscreen window is polled with
processEvents and 5 ms sleeps, which a signal cuts short), so nothing needs waking.
"""

from __future__ import annotations

import contextlib
import signal
from typing import Iterator

STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")  # (SIGHUP: not on Windows; skipped there)


class Interrupted(BaseException):
    """A stop signal came; raised by `check()` (or, inside `raising()`, by the handler).

    A BaseException, as KeyboardInterrupt is: no `except Exception` on the way may swallow it.
    `outcome` is the end of the line cli.main prints; the export sets it when it undid files.
    """

    outcome = "nothing written"

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 + the signal's number, what a shell shows for a process a signal ended."""
        return 128 + self.signum


class StopSignals:
    """Handlers for STOP_SIGNALS that note the first one; `check()` turns it into Interrupted."""

    def __init__(self):
        self.signum: int | None = None
        self._raise_now = False
        self._previous: dict[int, object] = {}

    def install(self) -> "StopSignals":
        for name in STOP_SIGNALS:
            signum = getattr(signal, name, None)
            if signum is None or signum in self._previous:
                continue
            try:
                self._previous[signum] = signal.signal(signum, self._note)
            except ValueError:  # not the main thread (an in-process test): leave it alone
                pass
        return self

    def restore(self) -> None:
        """Give every signal its previous handler back."""
        while self._previous:
            signum, previous = self._previous.popitem()
            signal.signal(signum, previous)

    def ignore(self) -> None:
        """Ignore the signals from now on (instead of giving the previous handlers back)."""
        while self._previous:
            signal.signal(self._previous.popitem()[0], signal.SIG_IGN)

    def _note(self, signum, frame) -> None:
        """The handler: note the signal and return -- unless inside `raising()`."""
        if self.signum is None:
            self.signum = signum
        if self._raise_now:
            raise Interrupted(self.signum)

    def check(self) -> None:
        """Raise Interrupted if a stop signal has come."""
        if self.signum is not None:
            raise Interrupted(self.signum)

    @contextlib.contextmanager
    def raising(self) -> Iterator[None]:
        """A stop signal raises Interrupted at once inside this block (pure Python only: no Qt)."""
        self.check()
        self._raise_now = True
        try:
            yield
        finally:
            self._raise_now = False


_current: StopSignals | None = None


@contextlib.contextmanager
def stop_signals(then: str = "restore") -> Iterator[StopSignals]:
    """Note stop signals inside the block (`check()` reads them); after it, `then`:

    "restore" gives the previous handlers back. "ignore" (the process's own command line) ignores
    the signals still held: the outcome is decided by then (files listed, or taken back), and
    Python's exit, which gives Python-handled signals their default action back before it tears
    down Qt and the modules (a few tenths of a second), must not let a late one kill the process
    with the files complete. (An ignored signal stays ignored there; SIGKILL still ends it.)
    """
    global _current
    stops, outer = StopSignals().install(), _current
    _current = stops
    try:
        yield stops
    finally:
        _current = outer
        if then == "ignore":
            stops.ignore()
        else:
            stops.restore()


def check() -> None:
    """Raise Interrupted if a stop signal came since `stop_signals` began (no-op outside it)."""
    if _current is not None:
        _current.check()


def current() -> StopSignals | None:
    """The StopSignals of the running command, if any."""
    return _current
