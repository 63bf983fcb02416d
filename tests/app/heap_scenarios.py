"""The heap trimmer's scenarios (tests/app/test_heap.py runs each in a fresh interpreter: RSS and
glibc's free bytes depend on what every earlier test in the process allocated, freed and left
to other threads' arenas, which made them flaky in the full suite)."""

import threading
import time

import numpy as np

from explorer.app import heap


def _churn_on_a_thread(mb: int) -> list:
    """Allocate `mb` MB in 64 KB arrays on a thread (below glibc's mmap threshold: they come from
    the thread's arena) and free every second one; returns the others. The freed ones are holes
    between live blocks: free() cannot give them back (only a free top of the heap), so glibc
    keeps their pages until malloc_trim. (Freeing all of them let glibc trim the top itself, at
    times: the test was flaky.)"""
    kept = []

    def churn():
        blocks = [np.ones(8192) for _ in range(mb * 16)]  # (8192,) float64 = 64 KB each
        kept.extend(blocks[::2])
        del blocks
    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()
    return kept


def _wait_for(condition, timeout_s: float = 10.0) -> bool:
    """Poll `condition` until it holds or `timeout_s` pass (qtbot.waitUntil without Qt: RSS and
    the trimmer's count can only be read, not waited on; 20 ms is the poll interval, the wait
    ends as soon as the condition holds)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class CountingTrimmer(heap.HeapTrimmer):
    """A HeapTrimmer that counts its periodic checks: `checked(n)` waits for n of them to have
    run to their end (with any trim they led to), instead of sleeping for about that long."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.checks = 0
        self._check_started = threading.Condition()

    def _grown(self) -> bool:
        with self._check_started:  # check n + 1 starts: checks 1..n and their trims are done
            self.checks += 1
            self._check_started.notify_all()
        return super()._grown()

    def checked(self, n: int, timeout_s: float = 10.0) -> bool:
        with self._check_started:
            return self._check_started.wait_for(lambda: self.checks > n, timeout_s)


def scenario_the_trimmer_gives_back_what_a_thread_freed():
    trimmer = heap.HeapTrimmer(check_every_s=0.05, slack_mb=4)
    before = heap.rss_mb()
    survivors = _churn_on_a_thread(200)  # 100 MB live, 100 MB freed between them
    kept = heap.rss_mb()
    assert kept > before + 150, "glibc handed the pages back by itself: nothing to test"
    trimmer.start()
    try:
        assert _wait_for(lambda: trimmer.trims > 0)
        assert _wait_for(lambda: heap.rss_mb() < kept - 80)
        assert len(survivors) == 1600  # held until here
    finally:
        trimmer.stop()
        trimmer.join(5)
    assert not trimmer.is_alive()


def scenario_at_rest_the_trimmer_does_not_trim():
    trimmer = CountingTrimmer(check_every_s=0.02, slack_mb=64)
    trimmer.start()
    assert trimmer.checked(15)  # 15 checks of a process whose RSS does not grow by 64 MB
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
    trimmer = CountingTrimmer(check_every_s=0.05, slack_mb=1000, free_slack_mb=8)
    trimmer.start()
    try:
        assert trimmer.checked(4)
        assert trimmer.trims == 0  # four checks, and nothing freed yet
        release.set()
        worker.join()
        assert _wait_for(lambda: trimmer.trims > 0)
    finally:
        release.set()  # a failed check above must not leave the (non-daemon) worker waiting
        trimmer.stop()
        trimmer.join(5)


def _mapped_bytes() -> int:
    """Bytes glibc has in blocks of their own mapping (mallinfo2's hblkhd)."""
    info = heap.malloc_info()
    if info is None:
        print("needs glibc's mallinfo2")
        raise SystemExit(3)  # test_heap: a skip
    return info.hblkhd


def _mapped_growth_of_an_8mb_array_after_a_freed_24mb_one() -> int:
    big = np.ones(3 << 20)  # (3 Mi,) float64 = 24 MiB: mapped; freed, glibc raises its threshold (max 32 MiB)
    del big
    before = _mapped_bytes()
    block = np.ones(1 << 20)  # 8 MiB
    grown = _mapped_bytes() - before
    del block
    return grown


def scenario_glibc_alone_carves_freed_sizes_from_the_heap():
    """The premise of map_large_blocks: left to itself, glibc puts an 8 MiB block in the heap
    once a 24 MiB one was freed (its dynamic threshold rose)."""
    import os
    tuned = [name for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_",
                               "GLIBC_TUNABLES", "LD_PRELOAD") if os.environ.get(name)]
    if tuned:
        print(f"glibc's malloc is tuned or replaced here ({', '.join(tuned)})")
        raise SystemExit(3)  # test_heap: a skip
    assert _mapped_growth_of_an_8mb_array_after_a_freed_24mb_one() < 1 << 20


def scenario_mapped_large_blocks_stay_mapped():
    assert heap.map_large_blocks()
    assert _mapped_growth_of_an_8mb_array_after_a_freed_24mb_one() >= 8 << 20
    before = _mapped_bytes()
    small = np.ones(1 << 16)  # 512 KiB: below the 4 MiB threshold, from the heap as before
    assert _mapped_bytes() - before < 1 << 19
    del small


def scenario_starting_the_trimmer_maps_large_blocks():
    trimmer = heap.start_trimming()
    assert trimmer is not None
    assert _mapped_growth_of_an_8mb_array_after_a_freed_24mb_one() >= 8 << 20
