"""Qt-free observables: an `Event` views connect to, and batched change notification.

The application layer (state, view settings, runner) must not import Qt, yet widgets listen to
it the way they listen to Qt signals: ``state.config_changed.connect(slot)``. An `Event` is that
connect/emit pair in plain Python (pytest-qt's ``waitSignal`` accepts it too). Events are
emitted on the thread that changes the state: the GUI thread (results from the background
runner reach it through `dispatch.post_to_main`).

`Observable.batch()` (after glue's ``delay_callback``) holds back the events of several changes
until the batch ends and then emits each changed field's event once, with its final value.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from typing import Callable


def _positional_count(slot: Callable) -> int | None:
    """How many positional arguments `slot` takes (None: any number, or unknown)."""
    try:
        parameters = inspect.signature(slot).parameters.values()
    except (TypeError, ValueError):  # some built-ins have no signature: give them everything
        return None
    kinds = [p.kind for p in parameters]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return None
    return sum(k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
               for k in kinds)


class Event:
    """Callbacks called in connection order by ``emit(*args)``.

    Like a Qt signal, a slot may take fewer arguments than the event carries (``lambda: ...``
    on a one-argument event): it gets the first ones.
    """

    def __init__(self):
        self._slots: list[tuple[Callable, int | None]] = []

    def connect(self, slot: Callable) -> None:
        self._slots.append((slot, _positional_count(slot)))

    def disconnect(self, slot: Callable | None = None) -> None:
        """Remove `slot` (every slot when None); a slot not connected is ignored."""
        self._slots = [] if slot is None else [s for s in self._slots if s[0] != slot]

    def emit(self, *args) -> None:
        for slot, count in list(self._slots):
            try:
                slot(*(args if count is None else args[:count]))
            except RuntimeError as exc:  # a widget deleted by Qt: drop it, as Qt would
                if "already deleted" not in str(exc):
                    raise
                self.disconnect(slot)


class Observable:
    """Base for state objects whose setters call `_changed(name, value)`; supports `batch()`."""

    def __init__(self):
        self._batch_depth = 0
        self._held: dict[str, tuple] = {}

    @contextmanager
    def batch(self):
        """Emit nothing until the outermost batch ends, then each changed event once."""
        self._batch_depth += 1
        try:
            yield self
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0:
                held, self._held = self._held, {}
                for name, args in held.items():
                    getattr(self, name).emit(*args)

    def _notify(self, event_name: str, *args) -> None:
        if self._batch_depth:
            self._held[event_name] = args
        else:
            getattr(self, event_name).emit(*args)


class Field:
    """A state attribute that emits ``<name>_changed(value)`` when it really changes."""

    def __init__(self, default, check: Callable | None = None):
        self.default, self.check = default, check

    def __set_name__(self, owner, name: str) -> None:
        self.name, self.attr = name, "_" + name

    def __get__(self, obj, owner=None):
        return self if obj is None else getattr(obj, self.attr, self.default)

    def __set__(self, obj, value) -> None:
        if self.check is not None:
            value = self.check(value)
        if value != self.__get__(obj):
            setattr(obj, self.attr, value)
            obj._notify(self.name + "_changed", value)
