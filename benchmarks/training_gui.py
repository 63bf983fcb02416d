"""Training in the real window (offscreen, 1400 x 900, the Train tab shown): GUI stall and
seconds to the phase change.

For each seed the recipe (TrainConfig defaults: 500 steps) is started with the tab's Start
button; the run's chunks (app/training.py) and every redraw they cause (curves, the heads grid)
happen in the window's event loop. A 5 ms QTimer measures the event loop: a gap is the time
between two of its ticks minus 5 ms, so the max gap is the longest the window could not answer
(the issue's goal: ≤ 33 ms). Seconds to the phase change: from Start to the delivery whose
records first give a phase-change step (core.training.phase_change_step; the delivery, not the
logged step, so it includes the snapshot drawing). Medians over the seeds, with the load
average (the machine may be shared: the numbers say how loaded it was).

    python benchmarks/training_gui.py [--seeds 0 1 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from latency import close_window, wait_for  # noqa: E402

TICK_MS = 5
STALL_GOAL_MS = 33.0
PHASE_GOAL_S = 30.0


def one_run(app, window, seed: int) -> dict:
    from PySide6.QtCore import QTimer
    from explorer.core.training import phase_change_step, switch_steps
    from explorer.gui.training.curves import records_arrays
    view = window.train_view
    view.reset()
    view.controls.seed.setValue(seed)
    gaps, last, phase = [], [None], {}

    def tick():
        now = time.perf_counter()
        if last[0] is not None:
            gaps.append((now - last[0]) * 1000 - TICK_MS)
        last[0] = now

    def on_progress(_records, _snapshots):
        if "seconds" in phase or len(view.session.records) < 2:
            return
        c = records_arrays(view.session.records)
        step = phase_change_step(switch_steps(c["steps"], c["scores"]))
        if step is not None:
            phase["seconds"], phase["step"] = time.perf_counter() - start, step

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    view.session.progress.connect(on_progress)
    timer.start()
    start = time.perf_counter()
    view.controls.start_button.click()
    wait_for(app, lambda: view.session.status == "done", 600)
    total = time.perf_counter() - start
    timer.stop()
    view.session.progress.disconnect(on_progress)
    gaps.sort()
    return {"seed": seed, "seconds": total, "max_gap_ms": gaps[-1],
            "p99_gap_ms": gaps[int(0.99 * (len(gaps) - 1))], "ticks": len(gaps),
            "phase_change_step": phase.get("step"), "seconds_to_phase_change": phase.get("seconds")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication
    from explorer.app.course.state import AppState
    from explorer.gui.window.main_window import MainWindow
    app = QApplication.instance() or QApplication([])
    load_before = os.getloadavg()
    state = AppState()
    window = MainWindow(state)
    window.resize(1400, 900)
    window.show()
    window.tabs.setCurrentWidget(window.train_view)
    wait_for(app, lambda: state.result is not None, 60)
    runs = [one_run(app, window, seed) for seed in args.seeds]
    close_window(app, state, window)
    phases = [r["seconds_to_phase_change"] for r in runs if r["seconds_to_phase_change"] is not None]
    summary = {"load_before": load_before[0], "load_after": os.getloadavg()[0], "runs": runs,
               "median_max_gap_ms": statistics.median(r["max_gap_ms"] for r in runs),
               "median_p99_gap_ms": statistics.median(r["p99_gap_ms"] for r in runs),
               "median_seconds_to_phase_change": statistics.median(phases) if phases else None,
               "phase_changes": f"{len(phases)}/{len(runs)}"}
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"load average before {load_before[0]:.2f}, after {summary['load_after']:.2f}")
    for r in runs:
        phase = "none" if r["phase_change_step"] is None else \
            f"step {r['phase_change_step']} at {r['seconds_to_phase_change']:.1f} s"
        print(f"seed {r['seed']}: {r['seconds']:.1f} s for 500 steps, max gap {r['max_gap_ms']:.0f} ms, "
              f"p99 {r['p99_gap_ms']:.0f} ms, phase change {phase}")
    print(f"median max gap {summary['median_max_gap_ms']:.0f} ms (goal ≤ {STALL_GOAL_MS:.0f}), "
          f"median p99 {summary['median_p99_gap_ms']:.0f} ms, median to phase change "
          f"{summary['median_seconds_to_phase_change']} s (goal ≤ {PHASE_GOAL_S:.0f}), "
          f"phase changes {summary['phase_changes']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
