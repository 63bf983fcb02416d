"""Slider-to-pixels latency of the real window, and time to the first painted window.

latency (per case n x d_model x heads): a control change (the seed box, as a user would
nudge it) -> AppState validates -> the worker computes -> the result reaches the GUI thread
-> the heads grid has painted it. Measured offscreen (QT_QPA_PLATFORM=offscreen) in one
process with the real MainWindow at 1600 x 1000; the clock stops when the heads view's
viewport has finished a paint event after the new result arrived. Per-cell values are forced
on for n <= 16 (the "auto" rule shows them up to 12 tokens).

drag (512 x 512 x 16): the seed moves every 16 ms for one second, as a dragged slider does.
"drag_max_stall" is the longest the GUI thread was unavailable (how late the latest timer tick
came: the longest gap between ticks less the 16 ms interval), and "drag_settle" the time from
the last move to the last value painted. One drag is one sample: its max is noisy; --drags N
repeats it and reports the median of the N maxima.

startup: wall time from launching `python -m explorer` to its "first paint" line (run as a
subprocess with the quit-after and debug variables, settings in a temporary folder).

    python benchmarks/latency.py            # a table
    python benchmarks/latency.py --json     # one JSON object: case -> median ms
    python benchmarks/latency.py --quick    # fewer repetitions
    python benchmarks/latency.py --kv       # only the KV-tab case below (minutes at full size)

kv (1024 x 2048 x 16, `--kv`; `--kv-size N D H` for another size): with the KV tab open,
"kv_seed_change" is the time from a seed change to the KV panel showing that seed's trace (one
event-loop pass after set_trace), and "kv_second_change" the same for a seed change made
KV_SECOND_AFTER_S after the previous one, whose work (forward pass, then trace, ~15 s at that
size) is still running: it must give way to the new one.

Other processes on the machine skew the numbers: the load average is printed with the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CASES = ((4, 8, 2), (16, 64, 4), (32, 256, 8), (128, 512, 8), (512, 512, 16))
# the goals of issue 10 ("never freeze at any size"), on a quiet 2-core machine
TARGETS_MS = {"4x8x2": 10, "16x64x4": 16, "32x256x8": 16, "128x512x8": 33,
              "512x512x16": 100, "drag_max_stall": 33, "startup": 1000}


def case_name(n: int, d: int, h: int) -> str:
    return f"{n}x{d}x{h}"


class PaintWatch:
    """Event filter: notes when the heads view's viewport gets a Paint event."""

    def __init__(self, viewport):
        from PySide6.QtCore import QEvent, QObject

        class _Filter(QObject):
            def eventFilter(inner, obj, event):  # noqa: N802, N805 - Qt override
                if event.type() == QEvent.Type.Paint:
                    self.paints += 1
                return False

        self.paints = 0
        self._filter = _Filter()
        viewport.installEventFilter(self._filter)


def wait_for(app, condition, timeout_s: float = 60.0) -> None:
    """Run the event loop until condition() holds, sleeping when idle as app.exec() does.

    (A busy processEvents() loop would steal the GIL from the worker thread and measure
    itself.) A 50 ms timer keeps the wait from blocking forever.
    """
    from PySide6.QtCore import QEventLoop, QTimer
    deadline = time.perf_counter() + timeout_s
    keep_alive = QTimer()
    keep_alive.start(50)
    try:
        while not condition():
            if time.perf_counter() > deadline:
                raise TimeoutError("the window did not catch up")
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    finally:
        keep_alive.stop()


AUTO_PRECISION = True  # as the app runs (gui.window.app); --exact-precision: always float64


def open_window(app, n: int, d: int, h: int):
    from explorer.core import AttentionConfig
    from explorer.gui.window.main_window import MainWindow
    from explorer.app.course.state import AppState
    state = AppState(AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d,
                                     n_heads=h, seed=1), auto_precision=AUTO_PRECISION)
    state.view.show_values = "on" if n <= 16 else "auto"
    window = MainWindow(state)
    window.resize(1600, 1000)
    window.show()
    wait_for(app, lambda: state.is_idle() and state.result is not None)
    return state, window


def close_window(app, state, window) -> None:
    from PySide6.QtCore import QEvent
    window.close()
    state.shutdown()
    window.deleteLater()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def measure_latency(app, n: int, d: int, h: int, repeats: int, warmup: int = 2) -> list[float]:
    """ms per seed change until the heads view has painted the new result."""
    state, window = open_window(app, n, d, h)
    watch = PaintWatch(window.heads_grid.graphics_view().viewport())
    spin = window.controls.seed.spin
    arrived = {}  # seed -> paint count when its result reached the GUI thread
    state.result_changed.connect(lambda r: arrived.setdefault(r.config.seed, watch.paints))
    times = []
    for i in range(warmup + repeats):
        target = state.config.seed + 1
        start = time.perf_counter()
        spin.setValue(target)
        wait_for(app, lambda: target in arrived and watch.paints > arrived[target])
        if i >= warmup:
            times.append((time.perf_counter() - start) * 1e3)
    close_window(app, state, window)
    return times


def settle_first_paint(app, window, quiet_s: float = 0.3) -> None:
    """Wait for the heads view's first paint, then `quiet_s` of idle event loop: a drag that
    started before it timed the window's first paint (every axis laid out, ~200 ms), which
    no later move pays again."""
    import threading
    watch = PaintWatch(window.heads_grid.graphics_view().viewport())
    window.heads_grid.graphics_view().viewport().update()
    wait_for(app, lambda: watch.paints > 0)
    quiet = threading.Event()
    threading.Timer(quiet_s, quiet.set).start()
    wait_for(app, quiet.is_set)


def measure_drag(app, n: int = 512, d: int = 512, h: int = 16, moves: int = 60,
                 every_ms: int = 16) -> dict:
    """Seed moves every `every_ms` ms; the longest GUI stall and the settle time after."""
    from PySide6.QtCore import QTimer
    state, window = open_window(app, n, d, h)
    spin = window.controls.seed.spin
    settle_first_paint(app, window)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(every_ms)

    def tick():
        ticks.append(time.perf_counter())
        spin.setValue(spin.value() + 1)
        if len(ticks) >= moves:
            timer.stop()

    timer.timeout.connect(tick)
    timer.start()
    wait_for(app, lambda: len(ticks) >= moves, timeout_s=120)
    last = state.config.seed
    wait_for(app, lambda: state.result.config.seed == last, timeout_s=120)
    settle = (time.perf_counter() - ticks[-1]) * 1e3
    gaps = [(b - a) * 1e3 for a, b in zip(ticks, ticks[1:])]
    shown = state.worker.computes
    close_window(app, state, window)
    return {"drag_max_stall": max(gaps) - every_ms, "drag_settle": settle,
            "drag_computes": shown, "drag_moves": moves}


KV_CASE = (1024, 2048, 16)
KV_SECOND_AFTER_S = 8.0


def measure_kv_seed_change(app, n: int, d: int, h: int, repeats: int = 1) -> dict:
    """ms from a seed change to its trace in the KV panel, alone and while a trace runs."""
    import threading
    state, window = open_window(app, n, d, h)
    window.tabs.setCurrentWidget(window.kv_panel)
    panel = window.kv_panel
    wait_for(app, lambda: panel.trace is not None, timeout_s=600)
    spin = window.controls.seed.spin

    def change_and_wait(first_change_s: float | None) -> float:
        if first_change_s is not None:  # a change whose work still runs when the next one comes
            spin.setValue(spin.value() + 1)
            moved = threading.Event()
            threading.Timer(first_change_s, moved.set).start()
            wait_for(app, moved.is_set, timeout_s=600)
        target = spin.value() + 1
        start = time.perf_counter()
        spin.setValue(target)
        wait_for(app, lambda: panel.trace is not None and panel.trace.config.seed == target,
                 timeout_s=900)
        app.processEvents()  # the paint the new trace asked for
        return (time.perf_counter() - start) * 1e3

    single = [change_and_wait(None) for _ in range(repeats)]
    second = [change_and_wait(KV_SECOND_AFTER_S) for _ in range(repeats)]
    close_window(app, state, window)
    return {"kv_seed_change": statistics.median(single), "kv_second_change": statistics.median(second)}


def measure_startup(repeats: int) -> list[float]:
    """ms from launching the app to its 'first paint' line."""
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_DEBUG="1",
                       ATTENTION_EXPLORER_QUIT_AFTER_MS="0",
                       ATTENTION_EXPLORER_SETTINGS_DIR=folder)
            start = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "explorer"], cwd=REPO, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            for line in proc.stdout:
                if line.startswith("attention-explorer: first paint"):
                    times.append((time.perf_counter() - start) * 1e3)
                    break
            proc.stdout.close()
            if proc.wait(timeout=120) != 0:
                raise RuntimeError("the app did not exit cleanly")
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--only", nargs="*", metavar="CASE",
                        help="run only these cases, e.g. 32x256x8 startup drag")
    parser.add_argument("--kv", action="store_true", help="run only the KV-tab case (minutes)")
    parser.add_argument("--drags", type=int, default=0, metavar="N",
                        help="drags to take the median stall of (default 3, --quick 1)")
    parser.add_argument("--kv-size", nargs=3, type=int, metavar=("N", "D", "H"), default=KV_CASE)
    parser.add_argument("--exact-precision", action="store_true",
                        help="always compute float64 (no automatic float32 at large sizes)")
    parser.add_argument("--no-prefetch", action="store_true",
                        help="do not draw seed ± 1's weights ahead on the idle compute thread")
    args = parser.parse_args(argv)
    if args.no_prefetch:
        try:
            from explorer.app.course.compute import ComputeWorker
            ComputeWorker.prefetch = False
        except ImportError:  # older trees: no prefetch to turn off
            pass
    global AUTO_PRECISION
    AUTO_PRECISION = not args.exact_precision
    wanted = set(args.only) if args.only else None
    if args.kv:
        return run_kv_case(args)
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([])
    from explorer.gui.plotting.fonts import load_bundled_fonts
    load_bundled_fonts()
    medians, spreads = {}, {}
    for n, d, h in CASES:
        if wanted is not None and case_name(n, d, h) not in wanted:
            continue
        repeats = 5 if args.quick else 15
        times = measure_latency(app, n, d, h, repeats)
        medians[case_name(n, d, h)] = statistics.median(times)
        spreads[case_name(n, d, h)] = (min(times), max(times))
    drag = None
    if wanted is None or "drag" in wanted:
        drags = [measure_drag(app, moves=20 if args.quick else 60)
                 for _ in range(args.drags or (1 if args.quick else 3))]
        drag = drags[-1]
        for key in ("drag_max_stall", "drag_settle"):
            values = [one[key] for one in drags]
            medians[key] = statistics.median(values)
            spreads[key] = (min(values), max(values))
    if wanted is None or "startup" in wanted:
        times = measure_startup(3 if args.quick else 5)
        medians["startup"] = statistics.median(times)
        spreads["startup"] = (min(times), max(times))
    if args.json:
        print(json.dumps({k: round(v, 2) for k, v in medians.items()}))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'case':>16} {'median ms':>10} {'min':>8} {'max':>8} {'target':>8}")
    for name, value in medians.items():
        low, high = spreads.get(name, (value, value))
        target = TARGETS_MS.get(name)
        verdict = "" if target is None else ("  ok" if value <= target else "  MISSES")
        print(f"{name:>16} {value:10.1f} {low:8.1f} {high:8.1f} "
              f"{'' if target is None else f'≤ {target}':>8}{verdict}")
    if drag is not None:
        print(f"drag (last of {len(drags)}): {drag['drag_moves']} moves -> "
              f"{drag['drag_computes']} computes")
    return 0


def run_kv_case(args) -> int:
    """`--kv`: the KV-tab case alone (kept apart from the other cases: it takes minutes)."""
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([])
    from explorer.gui.plotting.fonts import load_bundled_fonts
    load_bundled_fonts()
    n, d, h = args.kv_size
    result = measure_kv_seed_change(app, n, d, h)
    if args.json:
        print(json.dumps({k: round(v, 1) for k, v in result.items()}))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; KV tab open at {case_name(n, d, h)}")
    for name, value in result.items():
        print(f"{name:>18} {value:10.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
