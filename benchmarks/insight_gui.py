"""The Inside-attention views at 64 tokens in the real window, beside the heads grid (issue 25).

For each installed bundled model (MiniLM, SmolLM2), the sentence is set to ~64 tokens; then:

- `heads grid`: the Heads tab's set_result of the shown picture (what a new picture costs it);
- per view (sinks, rollout, values, lens): `job`, the background computation from choosing the
  view to idle (values and lens capture a forward pass), and `redraw`, the page's repaint of
  that result on the GUI thread (median of --repeats) — the figure that must stay within the
  heads grid's;
- `drop first`: the sinks page's first token dropped (a new forward, background);
- `words on`: the grid's pieces ↔ words switch, grouping in the background and the grid drawn;
- `lines`: a focused head drawn as lines, one repaint (median).

    python benchmarks/insight_gui.py [--repeats 5] [--only minilm-l6]

Offscreen at 1024 × 768; the load average before and after is printed (other processes skew it).
"""

from __future__ import annotations

import argparse
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

SENTENCE = " ".join(["the cat sat on the mat and"] * 9)  # ~64 pieces with the specials


def median_ms(app, call, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        app.processEvents()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def elapsed_ms(app, start_call, done, timeout: float = 300) -> float:
    start = time.perf_counter()
    start_call()
    wait_for(app, done, timeout)
    return (time.perf_counter() - start) * 1e3


def measure_model(app, window, name: str, repeats: int) -> list[str]:
    learned, insight = window.learned, window.insight
    learned.set_source(name)
    learned.set_text(SENTENCE)
    wait_for(app, lambda: learned.is_idle() and learned.analysis is not None
             and learned.analysis.n_tokens >= 60, 300)
    rows = [f"{name}, {learned.analysis.n_tokens} tokens"]
    window.tabs.setCurrentWidget(window.heads_grid)
    grid = median_ms(app, lambda: window.heads_grid.set_result(window.shown.picture), repeats)
    rows.append(f"  heads grid set_result       {grid:7.1f} ms")
    window.tabs.setCurrentWidget(window.inside_view)
    for view in ("sinks", "rollout", "values", "lens"):
        job = elapsed_ms(app, lambda: setattr(insight, "view", view), insight.is_idle)
        draw = median_ms(app, window.inside_view.redraw, repeats)
        rows.append(f"  {view:<8} job {job:7.0f} ms, redraw {draw:7.1f} ms")
    insight.view = "sinks"
    drop = elapsed_ms(app, lambda: setattr(insight, "variant", "drop_first"), insight.is_idle)
    rows.append(f"  drop first (job)            {drop:7.0f} ms")
    insight.variant = "as_is"
    window.tabs.setCurrentWidget(window.heads_grid)
    switches = window.grid_switches
    words = elapsed_ms(app, lambda: setattr(switches, "words", True),
                       lambda: switches.is_idle() and window.heads_grid.shown_result() is window.shown.picture)
    rows.append(f"  words on (group + draw)     {words:7.0f} ms")
    window.set_focus_head(0)
    switches.lines = True
    lines = median_ms(app, window.head_lines.canvas.repaint, repeats)
    rows.append(f"  lines, one repaint          {lines:7.1f} ms")
    switches.lines = False
    window.set_focus_head(None)
    switches.words = False
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="+", help="these models only")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication
    from explorer.app.course.state import AppState
    from explorer.core.learned import MODELS, is_installed
    from explorer.gui.window.main_window import MainWindow
    app = QApplication.instance() or QApplication([])
    load_before = os.getloadavg()
    state = AppState()
    window = MainWindow(state)
    window.resize(1024, 768)
    window.show()
    wait_for(app, lambda: state.is_idle() and state.result is not None, 120)
    rows = []
    for name in ("minilm-l6", "smollm2-135m"):
        if is_installed(MODELS[name]) and (not args.only or name in args.only):
            rows += measure_model(app, window, name, args.repeats)
    close_window(app, state, window)
    print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
