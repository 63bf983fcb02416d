"""app.heap: freed heap pages go back to the system from the trimmer's thread (glibc only)."""

import threading
import time

import numpy as np
import pytest

from explorer.app import heap

glibc = pytest.mark.skipif(heap.rss_mb() is None or heap._malloc_trim() is False,
                           reason="needs glibc and /proc")


@pytest.fixture(autouse=True)
def _no_process_trimmer(monkeypatch):
    """The window's trimmer (started by earlier tests in this process) would trim what these
    tests churn before they measure it: stopped here; the next window starts a new one."""
    running = heap._TRIMMER
    if running is not None:
        running.stop()
        running.join(5)
    monkeypatch.setattr(heap, "_TRIMMER", None)


def _churn_on_a_thread(mb: int) -> None:
    """Allocate `mb` MB in 64 KB arrays (below glibc's mmap threshold: they come from the
    thread's arena) and free them again; glibc keeps the pages."""
    def churn():
        blocks = [np.ones(8192) for _ in range(mb * 16)]  # (8192,) float64 = 64 KB each
        del blocks
    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()


def _wait_for(condition, timeout_s: float = 10.0) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@glibc
def test_the_trimmer_gives_back_what_a_thread_freed():
    trimmer = heap.HeapTrimmer(check_every_s=0.05, slack_mb=4)
    before = heap.rss_mb()
    _churn_on_a_thread(200)
    kept = heap.rss_mb()
    assert kept > before + 100, "glibc handed the pages back by itself: nothing to test"
    trimmer.start()
    try:
        assert _wait_for(lambda: trimmer.trims > 0)
        assert _wait_for(lambda: heap.rss_mb() < kept - 100)
    finally:
        trimmer.stop()
        trimmer.join(5)
    assert not trimmer.is_alive()


@glibc
def test_at_rest_the_trimmer_does_not_trim():
    trimmer = heap.HeapTrimmer(check_every_s=0.02, slack_mb=64)
    trimmer.start()
    time.sleep(0.3)  # ~15 checks of a process whose RSS does not grow by 64 MB
    trimmer.stop()
    trimmer.join(5)
    assert trimmer.trims == 0


@glibc
def test_woken_it_trims_at_once():
    trimmer = heap.HeapTrimmer(check_every_s=60, slack_mb=1000)
    trimmer.start()
    try:
        trimmer.wake()
        assert _wait_for(lambda: trimmer.trims == 1, timeout_s=5)
    finally:
        trimmer.stop()
        trimmer.join(5)


def test_without_glibc_nothing_starts_and_trim_soon_is_harmless(monkeypatch):
    monkeypatch.setattr(heap, "_malloc_trim", lambda: False)
    monkeypatch.setattr(heap, "_TRIMMER", None)
    assert heap.start_trimming() is None
    assert heap.give_back_freed_memory() is False
    heap.trim_soon()  # no trimmer, no glibc: does nothing, raises nothing


@glibc
def test_memory_freed_while_rss_stays_flat_is_trimmed_too():
    """A thread frees 100 MB it had reused: RSS does not grow (slack 1000 MB), but the arenas'
    free bytes do (mallinfo2), and that is enough for a trim."""
    if heap.free_heap_mb() is None:
        pytest.skip("needs glibc's mallinfo2")
    blocks = []
    ready, release = threading.Event(), threading.Event()

    def hold_then_free():
        blocks.extend(np.ones(8192) for _ in range(1600))  # 100 MB in 64 KB arrays
        ready.set()
        release.wait()
        blocks.clear()

    worker = threading.Thread(target=hold_then_free)
    worker.start()
    ready.wait()
    trimmer = heap.HeapTrimmer(check_every_s=0.05, slack_mb=1000, free_slack_mb=8)
    trimmer.start()
    try:
        time.sleep(0.2)
        assert trimmer.trims == 0  # nothing freed yet
        release.set()
        worker.join()
        assert _wait_for(lambda: trimmer.trims > 0)
    finally:
        trimmer.stop()
        trimmer.join(5)
