"""Where a process's memory is (Linux, glibc), for benchmarks/soak.py: RSS at rest and after a
trim, peak RSS, glibc's bytes in use, pymalloc's arenas, resident memory by kind of mapping."""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time
from pathlib import Path

from explorer.app.heap import give_back_freed_memory, malloc_info, rss_mb

def trimmed_rss_mb() -> float:
    """RSS after glibc's malloc_trim(0) hands freed heap pages back to the system: memory still in
    use, without the freed arenas glibc keeps for reuse (a 2x PNG render frees tens of MB that
    RSS goes on counting). NaN where there is no glibc."""
    return rss_mb() if give_back_freed_memory() else float("nan")


IDLE_S = 5.0  # > 2 checks of the window's heap trimmer (explorer.app.heap.CHECK_EVERY_S)


def idle_rss_mb(app) -> float:
    """RSS after IDLE_S of an idle event loop: what a user's window at rest holds."""
    end = time.perf_counter() + IDLE_S
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.05)
    return rss_mb()


def print_python_growth(before, after, top: int) -> None:
    """The source lines (and their callers) whose live Python allocations grew most."""
    print(f"Python allocations that grew most after warm-up (tracemalloc, top {top}):")
    for stat in after.compare_to(before, "traceback")[:top]:
        print(f"  {stat.size_diff / 2**20:+8.2f} MB  {stat.count_diff:+8d} blocks")
        for line in stat.traceback.format()[-8:]:
            print(f"      {line}")


def pymalloc_mb() -> tuple[float, float]:
    """(MB of pymalloc arenas, MB in their allocated blocks): Python's small-object allocator maps
    1 MiB arenas itself (heaptrack and mallinfo do not see them) and returns one only when all of it
    is free. NaN while tracemalloc runs (its hooks hide pymalloc's statistics)."""
    import tracemalloc
    if tracemalloc.is_tracing():
        return float("nan"), float("nan")
    with tempfile.TemporaryFile() as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode(errors="replace")
    def number(label):
        line = next(l for l in text.splitlines() if l.startswith(label))
        return int(line.split("=")[1].replace(",", ""))
    arena_bytes = 1 << 20  # ARENA_SIZE of CPython 3.10+ (with mmap)
    return (number("# arenas allocated current") * arena_bytes / 2**20,
            number("# bytes in allocated blocks") / 2**20)


def mapped_mb() -> collections.Counter:
    """Resident MB by kind of mapping (/proc/self/smaps): the brk heap, anonymous maps (glibc's
    thread arenas, large mallocs, pymalloc arenas, Qt's shared-memory images), and files."""
    kinds, kind = collections.Counter(), None
    with open("/proc/self/smaps") as fh:
        for line in fh:
            first = line.split()
            if first and "-" in first[0] and not first[0].endswith(":"):
                name = first[5] if len(first) > 5 else ""
                kind = ("heap" if name == "[heap]" else "anon" if not name or name.startswith("[anon")
                        else "stack" if name.startswith("[stack") else
                        "memfd/shm" if "memfd" in name or name.startswith("/dev/shm") or "SYSV" in name
                        else "file")
            elif first and first[0] == "Rss:":
                kinds[kind] += int(first[1]) / 1024
    return kinds


def file_pages_mb() -> collections.Counter:
    """Resident MB of each mapped file (/proc/self/smaps): which libraries, fonts and model files
    the file-backed part of RSS is."""
    files, name = collections.Counter(), None
    with open("/proc/self/smaps") as fh:
        for line in fh:
            first = line.split()
            if first and "-" in first[0] and not first[0].endswith(":"):
                name = first[5] if len(first) > 5 and first[5].startswith("/") else None
            elif name and first and first[0] == "Rss:":
                files[name] += int(first[1]) / 1024
    return files


def print_file_growth(before: collections.Counter, after: collections.Counter, top: int = 6) -> None:
    grown = after.copy()
    grown.subtract(before)
    parts = [f"{Path(name).name} {mb:+.1f} (of {after[name]:.0f})"
             for name, mb in grown.most_common(top) if mb >= 0.1]
    print("  file pages that grew most (MB): " + (", ".join(parts) or "none"))


def malloc_in_use_mb() -> float:
    """Bytes glibc has handed out and not had back (heap and mapped blocks), in MB: unlike RSS,
    not moved by fragmentation or trimming. NaN without mallinfo2."""
    info = malloc_info()
    if info is None:
        return float("nan")
    return (info.uordblks + info.hblkhd) / 2**20


def allocated_mb() -> float:
    """What the program has allocated and not freed, in MB: glibc's blocks in use (its heaps and
    its mapped blocks) and pymalloc's arenas. Anonymous RSS beyond this is memory the allocators
    hold free in pages they cannot return (fragmentation) or mappings made directly (thread
    stacks, BLAS buffers). NaN without mallinfo2 or while tracemalloc runs."""
    return malloc_in_use_mb() + pymalloc_mb()[0]


def composition() -> str:
    """One line of where resident memory is: glibc's view, pymalloc's, and the mappings'."""
    parts = []
    m = malloc_info()
    if m is not None:
        parts.append(f"malloc: in use {m.uordblks / 2**20:.0f} + mmapped {m.hblkhd / 2**20:.0f}, "
                     f"free {m.fordblks / 2**20:.0f} (brk+arenas {m.arena / 2**20:.0f})")
    arenas, used = pymalloc_mb()
    parts.append(f"pymalloc: {arenas:.0f} arenas, {used:.0f} MB in blocks")
    parts.append("resident: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(mapped_mb().items())))
    return "; ".join(parts)


def rss_parts_mb() -> dict[str, float]:
    """RSS split by what backs it (/proc/self/status): "anon" (RssAnon: heap, arenas, arrays,
    model weights read into memory: what a leak grows), "file" (RssFile: pages of mapped files —
    shared libraries, fonts, memory-mapped model files — reclaimable, bounded by the files' sizes)
    and "shmem" (RssShmem: Qt's shared-memory images). Empty without /proc."""
    keys = {"RssAnon:": "anon", "RssFile:": "file", "RssShmem:": "shmem"}
    parts = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                first = line.split()
                if first and first[0] in keys:
                    parts[keys[first[0]]] = int(first[1]) / 1024
    except OSError:
        pass
    return parts


def object_counts() -> collections.Counter:
    """Live objects the cyclic collector tracks, by type (module.name): what a Python leak grows.
    PySide wrappers whose Qt object is deleted are counted apart, as "(deleted) <type>": PySide6
    6.11 keeps the wrapper of a Qt-internal object (a label's QTextDocument) that findChildren()
    or a returned pointer made, held by the caller's wrapper, after the object is gone."""
    import gc
    try:
        from shiboken6 import Shiboken
    except ImportError:
        Shiboken = None
    gc.collect()
    counts = collections.Counter()
    for o in gc.get_objects():
        kind = f"{type(o).__module__}.{type(o).__qualname__}"  # type(), not isinstance: no __class__ lookups
        if Shiboken is not None and issubclass(type(o), Shiboken.Object) and not Shiboken.isValid(o):
            kind = "(deleted) " + kind
        counts[kind] += 1
    return counts


def weakref_ids() -> set[int]:
    """The ids of the live weak references (for print_new_weakrefs)."""
    import gc
    import weakref
    return {id(o) for o in gc.get_objects() if type(o) is weakref.ReferenceType}


def print_new_weakrefs(before: set[int], top: int) -> None:
    """Weak references made since `before` and still alive, by what they point to and what holds
    them: a signal connection or a registry that is never cleaned keeps one per use."""
    import gc
    import weakref
    new = [o for o in gc.get_objects() if type(o) is weakref.ReferenceType and id(o) not in before]
    targets, holders = collections.Counter(), collections.Counter()
    for ref in new:
        target = ref()
        targets["(dead)" if target is None else f"{type(target).__module__}.{type(target).__qualname__}"] += 1
    for holder in gc.get_referrers(*new):  # one walk of the heap for all of them
        if holder is not new:
            holders[f"{type(holder).__module__}.{type(holder).__qualname__}"] += 1
    print(f"weak references made after warm-up and alive: {len(new):,}")
    print("  to: " + ", ".join(f"{n:,} {kind}" for kind, n in targets.most_common(top)))
    print("  held by: " + ", ".join(f"{n:,} {kind}" for kind, n in holders.most_common(top)))


def print_object_growth(before: collections.Counter, after: collections.Counter, top: int) -> None:
    grown = after.copy()
    grown.subtract(before)
    deleted = sum(n for kind, n in after.items() if kind.startswith("(deleted) "))
    print(f"live objects by type, same state against warm-up (gc, top {top}): "
          f"{sum(after.values()) - sum(before.values()):+,} in all; {deleted:,} PySide wrappers of "
          f"deleted Qt objects")
    for kind, n in sorted(grown.items(), key=lambda kv: -abs(kv[1]))[:top]:
        if n:
            print(f"  {n:+8,d} {kind} ({after[kind]:,})")


def peak_rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


BUFFER_MIN_BYTES = 4 << 10  # smaller ones live in pymalloc or beside their objects: counted by --objects


def _buffer_root(array):
    """The ndarray that owns `array`'s memory (its chain of .base), or the non-array owner."""
    while getattr(array, "base", None) is not None:
        array = array.base
    return array


def buffer_census() -> dict[int, tuple[str, int]]:
    """The large live buffers Python can reach, by address: {data address: (description, bytes)}.
    numpy arrays are not tracked by the cyclic collector, so they are found as what tracked objects
    refer to; torch tensors by their storage. A view counts once, as the buffer it views."""
    import gc
    import numpy as np
    torch = sys.modules.get("torch")
    gc.collect()
    found: dict[int, tuple[str, int]] = {}
    seen: set[int] = set()

    def note(obj) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        kind = type(obj)  # type(), not isinstance: no __class__ lookups (torch's deprecated proxies warn)
        if issubclass(kind, np.ndarray):
            root = _buffer_root(obj)
            if isinstance(root, np.ndarray) and root.nbytes >= BUFFER_MIN_BYTES:
                found[root.__array_interface__["data"][0]] = (
                    f"ndarray {root.dtype} {root.shape}", root.nbytes)
        elif torch is not None and issubclass(kind, torch.Tensor) and obj.layout == torch.strided:
            try:
                storage = obj.untyped_storage()
            except (RuntimeError, NotImplementedError):
                return
            if storage.nbytes() >= BUFFER_MIN_BYTES:
                found[storage.data_ptr()] = (f"tensor {obj.dtype} {tuple(obj.shape)} {obj.device}",
                                             storage.nbytes())

    for obj in gc.get_objects():
        note(obj)
        for ref in gc.get_referents(obj):
            if issubclass(type(ref), np.ndarray) or (torch is not None and issubclass(type(ref), torch.Tensor)):
                note(ref)
    return found


def _under_1mb(census: dict) -> float:
    return sum(size for _, size in census.values() if size < 1 << 20) / 2**20


def print_buffer_growth(before: dict, after: dict, top: int) -> None:
    """The large buffers alive in the same state that were not alive after warm-up (by address), by
    description, and the total of those gone: what a leak or a cache that kept more holds."""
    new = collections.Counter()
    counts = collections.Counter()
    for address, (what, size) in after.items():
        if address not in before:
            new[what] += size
            counts[what] += 1
    gone = sum(size for address, (what, size) in before.items() if address not in after)
    print(f"buffers (>= {BUFFER_MIN_BYTES >> 10} KB) Python reaches: after warm-up "
          f"{sum(s for _, s in before.values()) / 2**20:.1f} MB in {len(before)}, same state "
          f"{sum(s for _, s in after.values()) / 2**20:.1f} MB in {len(after)}; new since warm-up "
          f"{sum(new.values()) / 2**20:.1f} MB, gone {gone / 2**20:.1f} MB")
    print(f"  of which under 1 MB: after warm-up {_under_1mb(before):.1f} MB, same state "
          f"{_under_1mb(after):.1f} MB")
    for what, size in new.most_common(top):
        print(f"  +{size / 2**20:8.1f} MB  {counts[what]:3d} x {what}")
