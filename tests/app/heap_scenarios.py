"""The heap trimmer's scenarios (tests/app/test_heap.py runs each in a fresh interpreter: RSS and
glibc's free bytes depend on what every earlier test in the process allocated, freed and left
to other threads' arenas, which made them flaky in the full suite)."""

import threading
import time

import numpy as np

from explorer.app import heap


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


def scenario_the_trimmer_gives_back_what_a_thread_freed():
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


def scenario_at_rest_the_trimmer_does_not_trim():
    trimmer = heap.HeapTrimmer(check_every_s=0.02, slack_mb=64)
    trimmer.start()
    time.sleep(0.3)  # ~15 checks of a process whose RSS does not grow by 64 MB
    trimmer.stop()
    trimmer.join(5)
    assert trimmer.trims == 0


def scenario_woken_it_trims_at_once():
    trimmer = heap.HeapTrimmer(check_every_s=60, slack_mb=1000)
    trimmer.start()
    try:
        trimmer.wake()
        assert _wait_for(lambda: trimmer.trims == 1, timeout_s=5)
    finally:
        trimmer.stop()
        trimmer.join(5)


def scenario_memory_freed_while_rss_stays_flat_is_trimmed_too():
    """A thread frees 100 MB it had reused: RSS does not grow (slack 1000 MB), but the arenas'
    free bytes do (mallinfo2), and that is enough for a trim."""
    if heap.free_heap_mb() is None:
        print("needs glibc's mallinfo2")
        raise SystemExit(3)  # test_heap: a skip
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
