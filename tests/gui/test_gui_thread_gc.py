"""Python's cyclic garbage collection runs on the GUI thread only (explorer.gui.gui_thread_gc).

A clean-clone CI run hung for 85 minutes with the compute thread stopped at an allocation (where
automatic collection runs) and the GUI thread inside a PySide connect. These tests watch every
collection with ``gc.callbacks`` and check which thread ran it.
"""

import gc
import threading

import pytest

from explorer.gui import gui_thread_gc


@pytest.fixture
def collections():
    """The thread name of every garbage collection that starts while the test runs."""
    seen: list[str] = []

    def record(phase, info):
        if phase == "start":
            seen.append(threading.current_thread().name)

    gc.callbacks.append(record)
    yield seen
    gc.callbacks.remove(record)


def _make_cycles(count: int) -> None:
    for _ in range(count):
        node: list = []
        node.append(node)  # unreachable once the loop moves on: only the collector frees it


def test_a_window_turns_automatic_collection_off(make_window):
    make_window()
    assert gui_thread_gc.is_collecting_on_gui_thread()
    assert not gc.isenabled()


def test_a_worker_that_allocates_never_collects(qtbot, make_window, collections):
    """200,000 cycles made on a worker pass gen 0's threshold hundreds of times: with automatic
    collection on, the worker would collect; here only the GUI thread's timer does."""
    window = make_window()
    worker = threading.Thread(target=_make_cycles, args=(200_000,), name="allocating-worker")
    worker.start()
    # the event loop runs (and with it the GUI thread's collection timer) while the worker allocates
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=60_000)
    # the worker's garbage is the GUI thread's to collect: the timer's next check does it
    qtbot.waitUntil(lambda: bool(collections), timeout=5_000 + 3 * gui_thread_gc.CHECK_INTERVAL_MS)
    assert set(collections) == {threading.main_thread().name}
    assert window.isVisible()


def test_the_timer_collects_garbage_made_on_the_gui_thread(qtbot, make_window, collections):
    make_window()
    collections.clear()  # (settling the new window ran the timer already)
    _make_cycles(5_000)  # well past gen 0's threshold (700)
    assert not collections  # nothing collects at the allocation itself any more
    qtbot.waitUntil(lambda: bool(collections), timeout=5_000)
    assert set(collections) == {threading.main_thread().name}


def test_collect_due_refuses_to_run_on_a_worker(qapp, collections):
    _make_cycles(5_000)
    result = []
    worker = threading.Thread(target=lambda: result.append(gui_thread_gc.collect_due()))
    worker.start()
    worker.join()
    assert result == [0] and not collections
    gui_thread_gc.collect_due()  # the main thread may
    assert collections == [threading.main_thread().name]



def test_full_collections_are_paced(qapp, monkeypatch):
    """With gen 2 due on every check, only the first check within FULL_EVERY_S is a full one."""
    generations = []
    monkeypatch.setattr(gui_thread_gc.gc, "collect", lambda generation=2: generations.append(generation) or 0)
    monkeypatch.setattr(gui_thread_gc.gc, "get_count", lambda: (10_000, 100, 100))
    monkeypatch.setattr(gui_thread_gc, "_last_full", float("-inf"))
    for _ in range(5):
        gui_thread_gc.collect_due()
    assert generations == [2, 1, 1, 1, 1]
    monkeypatch.setattr(gui_thread_gc, "_last_full", gui_thread_gc.time.monotonic() - gui_thread_gc.FULL_EVERY_S)
    gui_thread_gc.collect_due()
    assert generations[-1] == 2


def test_freezing_takes_the_start_up_objects_out_of_full_collections(qapp):
    before = gc.get_freeze_count()
    try:
        frozen = gui_thread_gc.freeze_long_lived()
        assert frozen >= before and frozen > 10_000  # (every module, class and widget so far)
        assert len(gc.get_objects(generation=2)) < frozen / 10
    finally:
        gc.unfreeze()  # the test process goes on making and freeing windows
