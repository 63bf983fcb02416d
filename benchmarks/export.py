"""How long exporting the whole heads grid takes at 4× (PNG and SVG): medians per size.

Per case (n tokens, d_model, heads), timed separately, medians over repetitions:

- build:  the offscreen figure (HeadsGrid + frame, fed a precomputed result, laid out);
- png:    render at the scale into a QImage + PNG encoding (what is written to disk);
- svg:    QSvgGenerator + text tidying;
- total:  build + png, i.e. one `export --format png` figure without start-up or disk.

The target is "well under a second" for a 4× PNG of the grid.

    python benchmarks/export.py              # a table
    python benchmarks/export.py --json       # one JSON object
    python benchmarks/export.py --quick      # fewer repetitions (smoke run)
    python benchmarks/export.py --scale 2    # another scale
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtWidgets import QApplication  # noqa: E402

from explorer.core import AttentionConfig, forward  # noqa: E402
from explorer.gui.window.exports.figures import ExportOptions, build_figure, figure_bytes  # noqa: E402
from explorer.export.naming import FigureSpec  # noqa: E402
from explorer.cli.qt_app import ensure_qt_app  # noqa: E402

SIZES = [(4, 8, 2), (13, 64, 4), (13, 64, 8), (64, 256, 8), (256, 512, 16)]
TARGET_S = 1.0


def median_ms(fn, reps: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(reps):
        start = time.perf_counter()
        value = fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), value


def measure(n: int, d: int, h: int, scale: float, reps: int) -> dict:
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=h)
    result = forward(config)
    spec = FigureSpec("heads")
    frames = []

    def build():
        frame = build_figure(spec, result)
        frames.append(frame)
        return frame

    build_ms, frame = median_ms(build, reps)
    png_ms, png = median_ms(lambda: figure_bytes(frame, ExportOptions("png", scale=scale)), reps)
    svg_ms, svg = median_ms(lambda: figure_bytes(frame, ExportOptions("svg")), reps)
    size = frame.size()
    for f in frames:
        f.close()
        f.deleteLater()
    QApplication.processEvents()
    return {"n": n, "d_model": d, "heads": h, "scale": scale,
            "pixels": f"{round(size.width() * scale)}x{round(size.height() * scale)}",
            "build_ms": build_ms, "png_ms": png_ms, "svg_ms": svg_ms,
            "total_png_ms": build_ms + png_ms, "png_kib": len(png) / 1024, "svg_kib": len(svg) / 1024}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scale", type=float, default=4.0)
    args = parser.parse_args()
    app = ensure_qt_app()  # noqa: F841
    reps = 3 if args.quick else 7
    build_figure(FigureSpec("heads"), forward(AttentionConfig())).close()  # warm-up: fonts, imports
    rows = [measure(n, d, h, args.scale, reps) for n, d, h in SIZES]
    doc = {"machine": platform.platform(), "python": platform.python_version(),
           "cpus": os.cpu_count(), "repetitions": reps, "target_s": TARGET_S, "rows": rows}
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"heads grid export at {args.scale:g}×, medians of {reps} ({doc['machine']}, {doc['cpus']} CPUs)")
    print(f"{'n':>4} {'d':>4} {'h':>3} {'pixels':>11} {'build':>8} {'png':>8} {'svg':>8} "
          f"{'build+png':>10} {'png KiB':>8} {'svg KiB':>8}")
    for r in rows:
        flag = "" if r["total_png_ms"] < TARGET_S * 1e3 else "  over target"
        print(f"{r['n']:>4} {r['d_model']:>4} {r['heads']:>3} {r['pixels']:>11} {r['build_ms']:>6.0f}ms "
              f"{r['png_ms']:>6.0f}ms {r['svg_ms']:>6.0f}ms {r['total_png_ms']:>8.0f}ms "
              f"{r['png_kib']:>8.0f} {r['svg_kib']:>8.0f}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
