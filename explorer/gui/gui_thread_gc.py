"""Python's cyclic garbage collector, run on the GUI thread only.

Python collects reference cycles on whichever thread happens to allocate when a generation's
threshold is crossed. With background runners that is often a worker thread, and the cycles it
frees can hold Qt objects (pyqtgraph items, closed widgets): a Qt destructor then runs on the
wrong thread while holding the GIL. A clean-clone CI run hung that way for 85 minutes: the
compute thread was stopped at an allocation in ``core.numpy_ops.self_attention`` (the collector
runs there) while the GUI thread sat inside a PySide ``connect`` building a ``ColorBarItem``;
neither moved again. pyqtgraph's ``GarbageCollector`` documents the same remedy: turn automatic
collection off and collect, generation by generation, from a timer on the GUI thread.

`collect_on_gui_thread()` does that for the process (idempotent); the main window calls it, so
the app and every test that makes a window get it. `collect_due()` runs the check once, for a
caller without an event loop (the test suite's teardown).
"""

from __future__ import annotations

import gc
import threading
import time

from PySide6.QtCore import QCoreApplication, QTimer

CHECK_INTERVAL_MS = 50  # gen-0 garbage in small batches (200 ms ones took 10-40 ms while training)
# A full (gen-2) collection walks every tracked object: 92 ms with torch imported (225,000
# objects), a visible stall. Python paces them by the share of new long-lived objects, which is
# not readable from Python: here at most one per FULL_EVERY_S, and `freeze_long_lived()` (after
# start-up) takes the start-up objects out of them (a full collection then takes ~0 ms).
FULL_EVERY_S = 30.0

_THRESHOLDS = gc.get_threshold()  # Python's own (700, 10, 10), read before anyone changes them
_TIMER: QTimer | None = None
_last_full = float("-inf")


def collect_due() -> int:
    """Collect the oldest generation whose count passed its threshold (none: 0); GUI thread only.

    The counts mean what automatic collection reads: gen 0 counts allocations minus frees since
    its last collection, gen 1 and 2 count collections of the generation below.
    """
    if threading.current_thread() is not threading.main_thread():
        return 0  # never from a worker: that is what this module exists to prevent
    gen0, gen1, gen2 = gc.get_count()
    if gen0 <= _THRESHOLDS[0]:
        return 0
    global _last_full
    generation = 0
    if gen1 > _THRESHOLDS[1]:
        generation = 1
        if gen2 > _THRESHOLDS[2] and time.monotonic() - _last_full >= FULL_EVERY_S:
            generation, _last_full = 2, time.monotonic()
    return gc.collect(generation)


def freeze_long_lived() -> int:
    """Collect once, then move every object alive now out of the collector's sight for good
    (``gc.freeze``): the modules, classes and widgets made at start-up (torch's too) live as long
    as the process, and walking them made each full collection a 92 ms stall. GUI thread only.
    Returns how many objects are frozen."""
    if threading.current_thread() is not threading.main_thread():
        return 0
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def collect_on_gui_thread() -> None:
    """Disable automatic collection and collect from a GUI-thread timer instead (idempotent).

    Needs the QApplication (the timer lives in its thread and stops with it).
    """
    global _TIMER
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("collect_on_gui_thread() needs the QApplication first")
    if _TIMER is not None and _TIMER.parent() is app:
        return
    gc.disable()
    _TIMER = QTimer(app)
    _TIMER.setInterval(CHECK_INTERVAL_MS)
    _TIMER.timeout.connect(collect_due)
    _TIMER.start()


def is_collecting_on_gui_thread() -> bool:
    """True once the timer runs and automatic collection is off."""
    return _TIMER is not None and _TIMER.isActive() and not gc.isenabled()
