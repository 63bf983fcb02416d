"""app.heap: freed heap pages go back to the system from the trimmer's thread (glibc only).

The glibc scenarios (heap_scenarios.py) each run in a fresh interpreter: what they measure, RSS
and the arenas' free bytes, is process-wide, and in the full suite earlier tests' threads and
arenas moved it (a clean-clone CI run failed one of them)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.app import heap

HERE = Path(__file__).resolve().parent
glibc = pytest.mark.skipif(heap.rss_mb() is None or heap._malloc_trim() is False,
                           reason="needs glibc and /proc")


def _run_scenario(name: str) -> None:
    code = f"import heap_scenarios as s; s.scenario_{name}()"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parents[1])]))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    if proc.returncode == 3:
        pytest.skip(proc.stdout.strip())
    assert proc.returncode == 0, proc.stderr


@glibc
@pytest.mark.parametrize("name", ["the_trimmer_gives_back_what_a_thread_freed",
                                  "at_rest_the_trimmer_does_not_trim", "woken_it_trims_at_once",
                                  "memory_freed_while_rss_stays_flat_is_trimmed_too",
                                  "glibc_alone_carves_freed_sizes_from_the_heap",
                                  "mapped_large_blocks_stay_mapped",
                                  "starting_the_trimmer_maps_large_blocks"])
def test_heap_trimmer(name):
    _run_scenario(name)


def test_without_glibc_nothing_starts_and_trim_soon_is_harmless(monkeypatch):
    monkeypatch.setattr(heap, "_malloc_trim", lambda: False)
    monkeypatch.setattr(heap, "_TRIMMER", None)
    assert heap.start_trimming() is None
    assert heap.give_back_freed_memory() is False
    heap.trim_soon()  # no trimmer, no glibc: does nothing, raises nothing
