"""How fast the KV timeline steps: median per-step redraw time and the implied steps/s.

Offscreen (QT_QPA_PLATFORM=offscreen unless set), panel shown at 1500 × 950. For each
(n_tokens, d_model, n_heads) the trace is computed first (not timed: the window's worker
does it), then each measured step is `set_step(t)` followed by processing events, which
includes the scene updates and the paint. A second figure plays at the top speed for a
few seconds and counts the steps actually shown by the timer. steps/s = 1 / median wall time.

    python benchmarks/kv_steps.py            # the four sizes of the issue
    python benchmarks/kv_steps.py 64 128 4   # one size
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = [(4, 8, 2), (128, 512, 8), (512, 512, 16), (1024, 1024, 16)]
MAX_TIMED_STEPS = 200
PLAY_SECONDS = 3.0


def trace_for(n: int, d: int, h: int):
    from explorer.core import AttentionConfig, run_kv_cache
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=h,
                             positional=True)
    return run_kv_cache(config)


def measure_steps(app, panel, n: int) -> tuple[list[float], list[float]]:
    """(wall, CPU) seconds per redraw for up to MAX_TIMED_STEPS steps over the trace (both ways).

    CPU time (this process) is also reported because the wall time on a shared machine
    includes waiting for other processes.
    """
    stride = max(1, n // MAX_TIMED_STEPS)
    order = list(range(0, n, stride)) + list(range(n - 1, -1, -stride))
    wall, cpu = [], []
    for t in order:
        start, start_cpu = time.perf_counter(), time.process_time()
        panel.set_step(t)
        app.processEvents()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def measure_play(app, panel, seconds: float) -> float:
    """Steps per second the timer really achieves at the top speed."""
    from explorer.gui.kv.controls import MAX_SPEED
    panel.set_step(0)
    panel.set_speed(MAX_SPEED)
    shown = []
    panel.step_changed.connect(shown.append)
    panel.play()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds and panel.is_playing:
        app.processEvents()
        time.sleep(0.0005)
    elapsed = time.perf_counter() - start
    panel.pause()
    panel.step_changed.disconnect(shown.append)
    return len(shown) / elapsed


def main(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([])
    from explorer.gui.kv.panel import KVPanel
    sizes = [tuple(int(a) for a in argv[:3])] if len(argv) >= 3 else SIZES
    print(f"{'n, d, h':>18} {'trace s':>8} {'median ms':>10} {'p90 ms':>8} {'cpu ms':>7} "
          f"{'steps/s':>8} {'played/s':>9}")
    for n, d, h in sizes:
        start = time.perf_counter()
        trace = trace_for(n, d, h)
        trace_s = time.perf_counter() - start
        panel = KVPanel()
        panel.resize(1500, 950)
        panel.show()
        panel.set_trace(trace)
        app.processEvents()
        wall, cpu = measure_steps(app, panel, n)
        times = sorted(wall)
        median, cpu_median = statistics.median(times), statistics.median(cpu)
        p90 = times[int(0.9 * (len(times) - 1))]
        played = measure_play(app, panel, PLAY_SECONDS) if n > 1 else float("nan")
        print(f"{str((n, d, h)):>18} {trace_s:8.2f} {median * 1e3:10.2f} {p90 * 1e3:8.2f} "
              f"{cpu_median * 1e3:7.2f} {1 / median:8.0f} {played:9.1f}")
        panel.close()
        panel.deleteLater()
        app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
