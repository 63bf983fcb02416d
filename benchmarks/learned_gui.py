"""Sentence edit -> pictures for the pretrained models in the real window (offscreen, 1600 x 1000).

For each installed model and each length (tokens, specials included): the text is set on the
model source (as the typing pause ends), LearnedState runs the analysis on its runner, the
result reaches the GUI thread, and the clock stops when the view has painted it: the heads
grid (Heads tab) or the overview canvas (Model overview tab). Median of `--repeats`, after one
warm-up (the model is loaded before timing). The load average is printed with the table.

`--kv K`: for a decoder also the KV-cache tab: sentence edit -> the decoder stepped through the
sentence and K tokens of its own with the real cache (checked against one full causal pass) ->
the tab's cache view painted.

    python benchmarks/learned_gui.py [--repeats 5] [--lengths 16 64] [--kv 8] [--json]
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

from latency import PaintWatch, close_window, wait_for  # noqa: E402

WORDS = ("the quick brown fox jumps over a lazy dog while seven tired students walk to their "
         "school by bus and read about attention heads in transformers").split()


def text_of(model, n: int, salt: int) -> str:
    """Words whose tokenization is n tokens long (or the first length above n)."""
    from explorer.core.learned.analysis import tokenize
    words = [WORDS[(i + salt) % len(WORDS)] for i in range(4 * n)]
    for k in range(1, len(words) + 1):
        text = " ".join(words[:k])
        if len(tokenize(model, text).ids) >= n:
            return text
    return " ".join(words)


def measure(app, window, name: str, n: int, repeats: int, overview: bool) -> tuple[int, list[float]]:
    from explorer.core.learned import load_model
    learned = window.learned
    model = load_model(name, "cpu")
    target = window.model_overview.canvas if overview else window.heads_grid.graphics_view().viewport()
    window.tabs.setCurrentWidget(window.model_overview if overview else window.heads_grid)
    watch = PaintWatch(target)
    arrived = {}
    learned.picture_changed.connect(lambda p: arrived.setdefault(p.analysis.text, watch.paints))
    times, tokens = [], 0
    for i in range(repeats + 1):
        text = text_of(model, n, i)
        start = time.perf_counter()
        learned.set_text(text)
        wait_for(app, lambda: text in arrived and watch.paints > arrived[text])
        tokens = learned.analysis.n_tokens
        arrived.pop(text)
        if i:
            times.append((time.perf_counter() - start) * 1e3)
    return tokens, times


def measure_kv(app, window, name: str, n: int, repeats: int, k: int) -> tuple[int, list[float]]:
    """Sentence edit -> the KV tab's real cache for that sentence painted."""
    from explorer.app.models.learned_kv import LearnedKVTrace
    from explorer.core.learned import load_model
    learned, panel = window.learned, window.kv_panel
    model = load_model(name, "cpu")
    window.generation_view.count.setValue(k)
    window.tabs.setCurrentWidget(panel)
    watch = PaintWatch(panel.cache_view.viewport())
    arrived = {}  # text -> paints when its run reached the tab (update_kv has set the trace)
    learned.generation_changed.connect(lambda run: run is not None and arrived.setdefault(run.text, watch.paints))
    times, steps = [], 0
    for i in range(repeats + 1):
        text = text_of(model, n, 100 + i)
        start = time.perf_counter()
        learned.set_text(text)
        wait_for(app, lambda: text in arrived and watch.paints > arrived[text], 600)
        assert isinstance(panel.trace, LearnedKVTrace) and panel.trace.run.text == text
        steps = panel.step_count
        if i:
            times.append((time.perf_counter() - start) * 1e3)
    return steps, times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--lengths", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--kv", type=int, default=0, help="also the KV tab, generating K tokens")
    parser.add_argument("--only", nargs="+", help="these models only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication
    from explorer.app.course.state import AppState
    from explorer.core.learned import MODELS, is_installed
    from explorer.gui.window.main_window import MainWindow
    app = QApplication.instance() or QApplication([])
    load_before = os.getloadavg()
    rows = {}
    for name, spec in MODELS.items():
        if not is_installed(spec) or (args.only and name not in args.only):
            continue
        state = AppState()
        window = MainWindow(state)
        window.resize(1600, 1000)
        window.show()
        window.learned.set_source(name)
        wait_for(app, lambda: window.learned.is_idle() and window.learned.analysis is not None, 120)
        for n in args.lengths:
            for overview in (False, True):
                tokens, times = measure(app, window, name, n, args.repeats, overview)
                rows[f"{name} {tokens} tokens {'overview' if overview else 'heads'}"] = statistics.median(times)
            if args.kv and spec.kind == "decoder":
                steps, times = measure_kv(app, window, name, n, args.repeats, args.kv)
                rows[f"{name} {n} tokens + {args.kv} KV tab ({steps} steps)"] = statistics.median(times)
        close_window(app, state, window)
    if args.json:
        print(json.dumps(rows))
    else:
        print(f"load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
        for key, ms in rows.items():
            print(f"{key:<45} {ms:8.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
