"""Giving freed heap memory back to the system (glibc), so the window's RSS shows what it uses.

glibc keeps memory that Python and numpy have freed in its arenas for reuse: one per thread
that allocates (the compute thread, the prefetch, the topic runner...), each grown to the
largest burst it served. Nothing leaks, but RSS only rises: issue 11's soak measured +126 MB of
RSS after warm-up over 3,000 actions against +36 MB still in use. ``malloc_trim(0)`` hands the
free pages of every arena back.

It is not free: it walks every arena, 24 ms on a fragmented 400 MB heap (89 ms the first time),
so the window never calls it on the GUI thread. `HeapTrimmer`, a daemon thread, trims when RSS
has grown by `SLACK_MB` since its last trim, when the arenas' free bytes (glibc's mallinfo2) have
grown by `FREE_SLACK_MB` (memory freed and not given back while RSS stays flat: a bisect of the
soak found 25 MB of it after presentation toggles), and when woken by `trim_soon()` (after an
exported frame). An idle window costs nothing. ctypes releases the GIL for the call. Without glibc or
/proc (not Linux) everything here does nothing and says so.

Trimming only returns whole free pages. What it cannot return is a heap fragmented by glibc's
*dynamic* mmap threshold: the first freed 32 MB array raises the threshold to 32 MB, after which
every image and array up to that size is carved from the heap, and the small long-lived objects
allocated between them pin the holes they leave. The 10,000-action soak measured it: memory glibc
counted in use stayed flat (150 -> 122 MB over 3,000 actions) while the heap's resident pages grew.
`map_large_blocks()` fixes the threshold at `MMAP_THRESHOLD` (4 MiB): larger blocks get their own
mapping, returned whole when freed (numpy asks transparent huge pages for arrays of 4 MiB and up,
so mapping them anew costs few page faults; measured: no slower at 512 tokens × 16 heads).
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading

CHECK_EVERY_S = 2.0  # how often the trimmer reads RSS
SLACK_MB = 4  # growth since the last trim that is worth a trim (at rest RSS stays flat: no trims)
FREE_SLACK_MB = 8  # growth of free arena bytes since the last trim that is worth a trim

MMAP_THRESHOLD = 4 << 20  # blocks of this size and up get their own mapping (see map_large_blocks)
M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)

_TRIMMER: "HeapTrimmer | None" = None


@functools.cache
def _libc_function(name: str, restype, *argtypes):
    """glibc's `name` with its types set (before any thread can call it: mallinfo2 returns a
    struct), looked up once; False where there is no such function."""
    try:
        found = getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):
        return False
    found.restype, found.argtypes = restype, list(argtypes)
    return found


def _malloc_trim():
    return _libc_function("malloc_trim", ctypes.c_int, ctypes.c_size_t)


def give_back_freed_memory() -> bool:
    """``malloc_trim(0)`` now, on this thread (False: no glibc). For the CLI; the window uses
    `trim_soon()`."""
    trim = _malloc_trim()
    if trim is False:
        return False
    trim(0)
    return True


def map_large_blocks(threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at `threshold` bytes (it stops rising with each freed large
    block); False without glibc. Process-wide; affects what is allocated from now on."""
    mallopt = _libc_function("mallopt", ctypes.c_int, ctypes.c_int, ctypes.c_int)
    return bool(mallopt) and mallopt(M_MMAP_THRESHOLD, threshold) == 1


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def malloc_info() -> _MallInfo2 | None:
    """glibc's account of its heap now (mallinfo2: bytes in use `uordblks`, in mapped blocks
    `hblkhd`, free `fordblks`, ...); None without glibc >= 2.33."""
    mallinfo2 = _libc_function("mallinfo2", _MallInfo2)
    return None if mallinfo2 is False else mallinfo2()


def free_heap_mb() -> float | None:
    """Free bytes held in malloc's arenas, in MB (None without glibc >= 2.33's mallinfo2)."""
    info = malloc_info()
    return None if info is None else info.fordblks / 2**20


def rss_mb() -> float | None:
    """Resident memory of this process in MB (None without /proc)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


class HeapTrimmer(threading.Thread):
    """Trims on its own thread: every CHECK_EVERY_S if RSS grew by SLACK_MB or the free arena
    bytes by FREE_SLACK_MB since the last trim, or when woken."""

    def __init__(self, check_every_s: float = CHECK_EVERY_S, slack_mb: float = SLACK_MB,
                 free_slack_mb: float = FREE_SLACK_MB):
        super().__init__(name="heap-trimmer", daemon=True)
        self.check_every_s, self.slack_mb, self.free_slack_mb = check_every_s, slack_mb, free_slack_mb
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self.trims = 0
        self._baseline, self._free_baseline = rss_mb(), free_heap_mb()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    def run(self) -> None:
        while not self._stopping.is_set():
            woken = self._wake.wait(self.check_every_s)
            self._wake.clear()
            if self._stopping.is_set():
                return
            if woken or self._grown():
                if not give_back_freed_memory():
                    return  # no glibc: nothing to do, ever
                self.trims += 1
                self._baseline, self._free_baseline = rss_mb(), free_heap_mb()

    def _grown(self) -> bool:
        """RSS, or the free bytes kept in the arenas, grew by their slack from their lowest since
        the last trim (free bytes are reused and freed again: what matters is the new growth;
        a trim leaves them counted as free, only their pages go back)."""
        rss, free = rss_mb(), free_heap_mb()
        if rss is not None and self._baseline is not None:
            if rss > self._baseline + self.slack_mb:
                return True
            self._baseline = min(self._baseline, rss)
        if free is not None and self._free_baseline is not None:
            if free > self._free_baseline + self.free_slack_mb:
                return True
            self._free_baseline = min(self._free_baseline, free)
        return False


def start_trimming() -> HeapTrimmer | None:
    """Fix the mmap threshold (`map_large_blocks`) and start the process's trimmer once (None
    where there is no glibc or no /proc)."""
    global _TRIMMER
    if _TRIMMER is None or not _TRIMMER.is_alive():
        map_large_blocks()
        if rss_mb() is None or _malloc_trim() is False:
            return None
        _TRIMMER = HeapTrimmer()
        _TRIMMER.start()
    return _TRIMMER


def trim_soon() -> None:
    """Ask the trimmer to trim now (on its thread); without one, trim here."""
    if _TRIMMER is not None and _TRIMMER.is_alive():
        _TRIMMER.wake()
    else:
        give_back_freed_memory()
