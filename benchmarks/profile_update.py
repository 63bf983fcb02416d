"""Where one seed change's milliseconds go, on both threads (issue 10 profiling).

    python benchmarks/profile_update.py 128 512 8 [--exact-precision] [--top 15]

Compute thread: ``core.forward`` timed on its own for this config (cold: new seed, weights
drawn), in the precision the window computes. GUI thread: cProfile over `repeats` seed changes
in the real window (latency.py's method), cumulative times per update of the heaviest calls.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import latency  # noqa: E402  (sets QT_QPA_PLATFORM, the repo on sys.path)


def forward_ms(config, repeats: int = 5) -> float:
    from explorer.core import forward
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        forward(config.replace(seed=config.seed + 100 + i))
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int)
    parser.add_argument("d", type=int)
    parser.add_argument("h", type=int)
    parser.add_argument("--exact-precision", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--top", type=int, default=18)
    args = parser.parse_args()
    latency.AUTO_PRECISION = not args.exact_precision
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([])
    from explorer.gui.plotting.fonts import load_bundled_fonts
    load_bundled_fonts()
    state, window = latency.open_window(app, args.n, args.d, args.h)
    config = state.computed_config
    print(f"compute thread: forward {config.dtype} cold, median {forward_ms(config):.1f} ms")
    watch = latency.PaintWatch(window.heads_grid.graphics_view().viewport())
    arrived = {}
    state.result_changed.connect(lambda r: arrived.setdefault(r.config.seed, watch.paints))
    profile = cProfile.Profile()
    for i in range(args.repeats + 1):
        target = state.config.seed + 1
        if i == 1:
            profile.enable()
        window.controls.seed.spin.setValue(target)
        latency.wait_for(app, lambda: target in arrived and watch.paints > arrived[target])
    profile.disable()
    stats = pstats.Stats(profile)
    rows = sorted(((v[3], f"{Path(k[0]).name}:{k[1]}({k[2]})") for k, v in stats.stats.items()),
                  reverse=True)
    print(f"GUI thread, cumulative ms per update over {args.repeats} (cProfile overhead included):")
    for cum, name in rows[:args.top]:
        print(f"  {cum * 1e3 / args.repeats:8.1f}  {name}")
    latency.close_window(app, state, window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
