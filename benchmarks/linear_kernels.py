"""x @ W.T on the CPU, three kernels side by side: torch's F.linear (MKL), oneDNN's
`_linear_pointwise` (what core/backends/linear.py picks from MIN_ROWS rows) and numpy's matmul
(OpenBLAS: the numpy backend's).

Shapes: every layer product of MiniLM (384 wide, 1536 inner) and SmolLM2 (576, 192 for k/v, 1536)
and the random-weights 512 × 512 projection, at 1, 2, 4, 16, 64 and 256 rows (512 for the last);
medians of --reps calls, at 1 and 2 torch threads; the load average before and after. Each
kernel's result is checked against float64.

The kernels take turns in blocks of calls, not call by call: MKL's and OpenBLAS's threads each
spin a while after a call, and a call of one while the other's threads spin took ~4 ms at 2
threads whatever its size (on 2 cores the two pools take turns at the CPUs).

    python benchmarks/linear_kernels.py            # a table, microseconds
    python benchmarks/linear_kernels.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F

SHAPES = ((384, 384), (1536, 384), (384, 1536), (576, 576), (192, 576), (1536, 576), (576, 1536), (512, 512))
ROWS = (1, 2, 4, 16, 64, 256)
BLOCKS = 3  # each kernel's calls in 3 blocks, the kernels taking turns


def kernels(x: torch.Tensor, w: torch.Tensor) -> dict:
    xn, wtn = x.numpy(), np.ascontiguousarray(w.numpy().T)
    return {"F.linear": lambda: F.linear(x, w),
            "oneDNN": lambda: torch.ops.mkldnn._linear_pointwise(x, w, None, "none", [], ""),
            "numpy": lambda: torch.from_numpy(xn @ wtn)}


def measure(rows: int, out: int, d_in: int, reps: int) -> dict:
    g = torch.Generator().manual_seed(rows * out + d_in)
    x, w = torch.randn(rows, d_in, generator=g), torch.randn(out, d_in, generator=g)  # (n, in), (out, in)
    calls = kernels(x, w)
    expected = x.double() @ w.double().T  # (n, out)
    bound = 4 * 2 ** -24 * d_in * float(x.abs().max() * w.abs().max())  # float32 sums of d_in terms
    times = {name: [] for name in calls}
    with torch.inference_mode():
        for name, call in calls.items():
            assert float((call().double() - expected).abs().max()) <= bound, name
        for _ in range(BLOCKS):  # blocks, not call by call: see the docstring
            for name, call in calls.items():
                for r in range(reps // BLOCKS + 3):
                    start = time.perf_counter()
                    call()
                    if r >= 3:  # the block's first calls wake the kernel's threads
                        times[name].append((time.perf_counter() - start) * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=101)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    before = os.getloadavg()
    results = []
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for out, d_in in SHAPES:
            for rows in ROWS + ((512,) if (out, d_in) == (512, 512) else ()):
                results.append({"threads": threads, "rows": rows, "out": out, "in": d_in,
                                **measure(rows, out, d_in, args.reps)})
    after = os.getloadavg()
    if args.json:
        print(json.dumps({"load_before": before, "load_after": after, "results": results}))
        return 0
    print(f"load average before {before[0]:.2f}; torch {torch.__version__}, capability "
          f"{torch.backends.cpu.get_cpu_capability()}; medians of {args.reps} calls, microseconds "
          "(numpy's thread count is its own: OpenBLAS)")
    print(f"{'threads':>7} {'rows':>5} {'out x in':>11} {'F.linear':>9} {'oneDNN':>9} {'numpy':>9} {'F/oneDNN':>9}")
    for r in results:
        print(f"{r['threads']:>7} {r['rows']:>5} {r['out']:>5} x{r['in']:>4} {r['F.linear']:>9.1f} "
              f"{r['oneDNN']:>9.1f} {r['numpy']:>9.1f} {r['F.linear'] / r['oneDNN']:>9.2f}")
    print(f"load average after {after[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
