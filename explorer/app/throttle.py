"""Debounce and throttle, Qt-free, on an injected single-shot timer (after superqt's
``utils/_throttler.py``): one utility instead of a QTimer wired by hand in each widget.

- `Debouncer`: a burst of calls becomes one call, `ms` after the last one, with the last call's
  arguments (typing pauses, a spin box held down).
- `Throttler`: at most one call per `ms` while calls keep coming: the first call of a burst
  runs at once (``leading``) and the last one when the period ends (``trailing``), with its
  arguments.

The timer comes from ``make_timer(on_timeout, owner)``, an object with ``start(ms)`` (start or
restart a single shot), ``stop()`` and ``is_active()``. By default it is `dispatch.make_timer`:
QTimers owned by the widget `owner` once ``explorer.gui`` is imported (``gui/dispatch_qt.py``), so
the callbacks run on the GUI thread and stop with the widget; tests pass a manual clock.
"""

from __future__ import annotations

from typing import Callable, Protocol

from . import dispatch


class SingleShot(Protocol):
    def start(self, ms: int) -> None: ...
    def stop(self) -> None: ...
    def is_active(self) -> bool: ...


class _Limiter:
    def __init__(self, fn: Callable, ms: int, owner=None, make_timer: Callable | None = None):
        self.fn, self.ms = fn, int(ms)
        self._timer: SingleShot = (make_timer or dispatch.make_timer)(self._on_timeout, owner)
        self._args: tuple | None = None  # the call waiting for the timer (None: none)

    @property
    def pending(self) -> bool:
        """A call is waiting for the timer."""
        return self._args is not None

    def cancel(self) -> None:
        """Drop the waiting call (nothing runs)."""
        self._args = None
        self._timer.stop()

    def flush(self) -> None:
        """Run the waiting call now, if any."""
        args, self._args = self._args, None
        self._timer.stop()
        if args is not None:
            self.fn(*args)

    def _on_timeout(self) -> None:
        raise NotImplementedError


class Debouncer(_Limiter):
    """``debouncer(*args)``: run ``fn(*args)`` once no call has come for `ms`."""

    def __call__(self, *args) -> None:
        self._args = args
        self._timer.start(self.ms)

    def _on_timeout(self) -> None:
        args, self._args = self._args, None
        if args is not None:
            self.fn(*args)


class Throttler(_Limiter):
    """``throttler(*args)``: run ``fn`` at most once per `ms`; `leading` runs the first call of a
    burst at once, `trailing` runs the burst's last call when its period ends."""

    def __init__(self, fn: Callable, ms: int, owner=None, make_timer: Callable | None = None,
                 leading: bool = True, trailing: bool = True):
        super().__init__(fn, ms, owner, make_timer)
        self.leading, self.trailing = leading, trailing

    def __call__(self, *args) -> None:
        if self._timer.is_active():
            if self.trailing:
                self._args = args
            return
        self._timer.start(self.ms)
        if self.leading:
            self.fn(*args)
        elif self.trailing:
            self._args = args

    def _on_timeout(self) -> None:
        args, self._args = self._args, None
        if args is not None:
            self._timer.start(self.ms)  # the next call waits a full period after this one
            self.fn(*args)
