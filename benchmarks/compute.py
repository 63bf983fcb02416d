"""How long one forward pass takes, per size and backend: medians over repetitions.

Two timings per case, both the whole `forward(config)` call as the GUI worker makes it
(validation, draw, PE, mask, backend, stats):

- cold:   a new seed each repetition, so the weights are drawn (and cast / uploaded) again;
- toggle: the same weights (cached), only scaling or the causal mask changes.

`backend ms` is the part spent inside the backend (AttentionResult.elapsed_s); the rest of
the call is drawing, masks and statistics.

    python benchmarks/compute.py           # a table
    python benchmarks/compute.py --json    # one JSON object
    python benchmarks/compute.py --quick   # fewer repetitions (smoke run)
    python benchmarks/compute.py --threads 1   # one BLAS / torch thread

Other processes on the machine skew the medians: the load average before and after is printed.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _threads_from_argv(argv: list[str]) -> None:
    """--threads must take effect before numpy loads its BLAS, so it is read here, first."""
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--threads=") else (
            argv[i + 1] if arg == "--threads" and i + 1 < len(argv) else None)
        if value and value.isdigit():
            for name in THREAD_VARIABLES:
                os.environ[name] = value


if __name__ == "__main__":
    _threads_from_argv(sys.argv[1:])

from explorer.core import AttentionConfig, forward  # noqa: E402

SIZES = [(4, 8, 2), (16, 64, 4), (128, 512, 8), (512, 512, 16), (1024, 1024, 16)]
BACKENDS = [("numpy", "float64"), ("numpy", "float32"), ("torch", "float64"), ("torch", "float32")]
# (n, d_model, heads) -> toggle target in ms, met if the faster backend's median is below it
TARGETS_MS = {(16, 64, 4): 1.0, (128, 512, 8): 10.0, (512, 512, 16): 60.0}


def repetitions(n: int, d: int, quick: bool) -> int:
    work = n * d * d + n * n * d  # projections + attention, up to constants
    reps = 40 if work < 1e6 else 15 if work < 5e7 else 7 if work < 3e8 else 3
    return max(2, reps // 4) if quick else reps


def timed(config: AttentionConfig) -> tuple[float, float]:
    """(wall ms of the whole forward call, ms inside the backend)."""
    start = time.perf_counter()
    result = forward(config)
    return (time.perf_counter() - start) * 1e3, result.elapsed_s * 1e3


def median_pair(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def measure(n: int, d: int, h: int, backend: str, dtype: str, reps: int, seed_base: int) -> dict:
    base = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=h,
                           backend=backend, dtype=dtype)
    forward(base.replace(seed=0))  # warm-up: imports, BLAS threads, allocator
    cold = [timed(base.replace(seed=seed_base + r)) for r in range(reps)]
    cached = base.replace(seed=seed_base)
    forward(cached)  # draw (again: the cold loop may have evicted it) and upload once
    toggles = [cached.replace(scaled=r % 2 == 0, causal=r % 3 == 0) for r in range(reps)]
    toggle = [timed(c) for c in toggles]
    (cold_ms, cold_backend), (toggle_ms, toggle_backend) = median_pair(cold), median_pair(toggle)
    return {"n": n, "d_model": d, "heads": h, "backend": backend, "dtype": dtype, "reps": reps,
            "cold_ms": cold_ms, "cold_backend_ms": cold_backend,
            "toggle_ms": toggle_ms, "toggle_backend_ms": toggle_backend}


def check_targets(rows: list[dict]) -> list[dict]:
    out = []
    for (n, d, h), target in TARGETS_MS.items():
        case = [r for r in rows if (r["n"], r["d_model"], r["heads"]) == (n, d, h)]
        if not case:
            continue
        best = min(case, key=lambda r: r["toggle_ms"])
        out.append({"n": n, "d_model": d, "heads": h, "target_ms": target,
                    "best": f"{best['backend']}/{best['dtype']}", "best_toggle_ms": best["toggle_ms"],
                    "met": best["toggle_ms"] < target})
    return out


def machine() -> dict:
    import numpy as np
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "cpus": os.cpu_count(), "platform": platform.platform(),
            "blas_threads": os.environ.get("OMP_NUM_THREADS", "default")}
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        info.update(torch=torch.__version__, torch_threads=torch.get_num_threads())
    return info


def _load() -> float:
    """1-minute load average (0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def print_table(rows: list[dict], targets: list[dict], info: dict, total_s: float) -> None:
    print(f"forward() medians, ms  ({info['cpus']} CPUs, numpy {info['numpy']}, "
          f"torch {info.get('torch', '-')}, {info.get('torch_threads', '?')} torch threads, "
          f"BLAS threads {info['blas_threads']}, load average {info['load_before']:.2f} before, "
          f"{info['load_after']:.2f} after)")
    header = (f"{'n':>5} {'d':>5} {'h':>3}  {'backend':<14} {'reps':>4}  {'cold':>9} "
              f"{'(backend)':>9}  {'toggle':>9} {'(backend)':>9}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['n']:>5} {r['d_model']:>5} {r['heads']:>3}  {r['backend'] + '/' + r['dtype']:<14} "
              f"{r['reps']:>4}  {r['cold_ms']:>9.3f} {r['cold_backend_ms']:>9.3f}  "
              f"{r['toggle_ms']:>9.3f} {r['toggle_backend_ms']:>9.3f}")
    print()
    for t in targets:
        verdict = "met" if t["met"] else "MISSED"
        print(f"target ({t['n']}, {t['d_model']}, {t['heads']}) toggle < {t['target_ms']:g} ms: "
              f"{t['best_toggle_ms']:.3f} ms on {t['best']} -> {verdict}")
    print(f"total {total_s:.1f} s")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--max-n", type=int, default=1024, help="skip sizes with more tokens")
    parser.add_argument("--threads", type=int, help="BLAS and torch threads (default: theirs)")
    args = parser.parse_args(argv)
    if args.threads:
        import torch
        torch.set_num_threads(args.threads)
    load_before = _load()
    start = time.perf_counter()
    rows = []
    for i, (n, d, h) in enumerate(s for s in SIZES if s[0] <= args.max_n):
        for backend, dtype in BACKENDS:
            reps = repetitions(n, d, args.quick)
            rows.append(measure(n, d, h, backend, dtype, reps, seed_base=10_000 * (i + 1)))
    targets = check_targets(rows)
    total = time.perf_counter() - start
    info = {**machine(), "load_before": load_before, "load_after": _load()}
    if args.json:
        print(json.dumps({"machine": info, "results": rows, "targets": targets,
                          "total_s": total}))
    else:
        print_table(rows, targets, info, total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
