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

from contextlib import contextmanager
from typing import Callable


class Event:
    """Callbacks called in connection order by ``emit(*args)``."""

    def __init__(self):
        self._slots: list[Callable] = []

    def connect(self, slot: Callable) -> None:
        self._slots.append(slot)

    def disconnect(self, slot: Callable | None = None) -> None:
        """Remove `slot` (every slot when None); a slot not connected is ignored."""
        if slot is None:
            self._slots.clear()
        elif slot in self._slots:
            self._slots.remove(slot)

    def emit(self, *args) -> None:
        for slot in list(self._slots):
            try:
                slot(*args)
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
