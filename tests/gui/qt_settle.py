"""Waiting on Qt without a clock: deliver what is queued, paint now.

Layout requests, resize and language-change events and deferred slots (``QTimer.singleShot(0,
...)``) are posted events or zero-time timers: `run_posted_events()` delivers them, and what they
post in turn, before a test reads geometry or texts. `painted(widget)` does that and then paints
the widget synchronously (``QWidget.grab``), so no test waits a fixed time for a layout or a paint.
Where the thing checked comes later still (a timer of its own, a window-system resize), a test
waits with ``qtbot.waitUntil`` on that very thing.
"""

from __future__ import annotations

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

# A layout pass posts the next one (a child resized lays out its own children): a few rounds
# deliver the chains the views make (window → tab page → pyqtgraph layout → its items).
ROUNDS = 5


def run_posted_events(rounds: int = ROUNDS) -> None:
    """Deliver the posted events, zero-time timers and window-system events, `rounds` times."""
    for _ in range(rounds):
        QApplication.sendPostedEvents()
        QApplication.processEvents()


def painted(widget: QWidget) -> QImage:
    """The widget laid out and painted now (no waiting): its picture."""
    run_posted_events()
    return widget.grab().toImage()


def problems_left(qtbot, problems, timeout: int = 5000) -> list:
    """Wait until `problems()` (a list of what is still wrong: cut texts, widgets off the
    screen) is empty and return it; at the timeout return what is still wrong, for the test's
    assertion to show. For layouts that settle in several passes, timers included."""
    try:
        qtbot.waitUntil(lambda: not problems(), timeout=timeout)
    except qtbot.TimeoutError:
        pass  # the caller asserts on what is left
    return problems()
