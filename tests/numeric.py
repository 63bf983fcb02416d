"""The one rule for comparing floating-point results in the tests.

Two right computations of the same numbers differ by rounding only, and how much depends on the
machine: the BLAS kernel (AVX-512 or AVX2, OpenBLAS's core type), the thread count and the matrix
shapes choose the blocking and so the order of every sum. A fixed `atol=1e-6` passes on one CPU and
fails on the next. The rounding error of a sum of n terms grows like √n · eps · |terms| (random-walk
rounding; the worst case n · eps is never approached by blocked BLAS sums), so the rule is

    tolerance = ULPS · eps(dtype) · √reduction · scale

- `dtype`: the precision the numbers were computed in (float32, float64, bfloat16 ...);
- `reduction`: the number of terms summed along the longest path to the result — the inner
  dimension of the matmul (d_model, d_head), times the layers the result went through;
- `scale`: the magnitude the error scales with — by default max(1, max |expected|); a softmax
  output's error scales with its scores, so pass the scores' size there.

ULPS = 16 leaves a margin of ten or more over every difference measured on AVX-512, AVX2 and one
thread (the closing note of issue 20 lists them), while a wrong result (a key not masked, a stale
cache entry, a missing √d_head) is off by orders of magnitude more and still fails.

Exact results stay exact: the course's float64 numbers and integer outputs are compared with
`np.testing.assert_array_equal`, not with this rule.

Set ATTENTION_EXPLORER_TOLERANCE_LOG=FILE to append one JSON line per comparison (test, place,
dtype, reduction, scale, tolerance, measured difference): `tools/tolerance_report.py` turns the logs
of several machine settings into the table of measured margins.
"""

from __future__ import annotations

import json
import math
import os
import sys

import numpy as np

ULPS = 16
LOG_ENV = "ATTENTION_EXPLORER_TOLERANCE_LOG"


def eps(dtype) -> float:
    """Machine epsilon of a numpy or torch dtype (or its name)."""
    name = str(dtype).replace("torch.", "")
    if name == "bfloat16":
        return 2.0 ** -7
    return float(np.finfo(np.dtype(name)).eps)


def tolerance(dtype, reduction: int = 1, scale: float = 1.0) -> float:
    """ULPS · eps(dtype) · √reduction · max(1, scale): the most two right results may differ."""
    return ULPS * eps(dtype) * math.sqrt(max(1, int(reduction))) * max(1.0, float(scale))


def _as_array(x) -> tuple[np.ndarray, str]:
    """(float64 array, the dtype it was computed in) for numpy arrays, torch tensors and numbers."""
    if hasattr(x, "detach"):  # a torch tensor
        name = str(x.dtype).replace("torch.", "")
        return x.detach().cpu().double().numpy(), name
    arr = np.asarray(x)
    name = arr.dtype.name if arr.dtype.kind == "f" else "float64"
    return arr.astype(np.float64), name


def _coarser(a: str, b: str) -> str:
    return a if eps(a) >= eps(b) else b


def max_difference(actual, expected) -> float:
    """max |actual − expected| (inf where one is non-finite and the other not, or shapes differ)."""
    a, _ = _as_array(actual)
    e, _ = _as_array(expected)
    if np.broadcast_shapes(a.shape, e.shape) != a.shape:
        return math.inf
    same = (a == e) | (np.isnan(a) & np.isnan(e))
    diff = np.where(same, 0.0, np.abs(a - e))
    return float(np.nan_to_num(diff, nan=math.inf).max(initial=0.0))


def _scale_of(expected: np.ndarray) -> float:
    finite = np.abs(expected[np.isfinite(expected)])
    return float(finite.max(initial=1.0))


def _log(record: dict) -> None:
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    frame = sys._getframe(1)
    while frame.f_code.co_filename == __file__:  # the first caller outside this module
        frame = frame.f_back
    record = {"test": os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0],
              "where": f"{os.path.relpath(frame.f_code.co_filename)}:{frame.f_lineno}", **record}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def assert_close(actual, expected, *, dtype=None, reduction: int = 1, scale: float | None = None,
                 err_msg: str = "", _check: str = "assert") -> float:
    """Assert |actual − expected| ≤ tolerance(dtype, reduction, scale) everywhere; return the
    measured max difference. `dtype` defaults to the coarser of the two inputs' dtypes, `scale` to
    max(1, max |expected|); shapes must broadcast to `actual`'s, non-finite values must agree."""
    a, a_dtype = _as_array(actual)
    e, e_dtype = _as_array(expected)
    dtype = dtype or _coarser(a_dtype, e_dtype)
    scale = _scale_of(e) if scale is None else scale
    tol = tolerance(dtype, reduction, scale)
    diff = max_difference(a, e)
    _log({"dtype": str(dtype).replace("torch.", ""), "reduction": int(reduction),
          "scale": float(scale), "tolerance": tol, "max_diff": diff, "check": _check})
    np.testing.assert_allclose(a, np.broadcast_to(e, a.shape), rtol=0, atol=tol,
                               err_msg=f"{err_msg} (rule: {ULPS} ulps · eps({dtype}) · "
                                       f"√{reduction} · {max(1.0, scale):.3g} = {tol:.3g})")
    return diff


def close(actual, expected, *, dtype=None, reduction: int = 1, scale: float | None = None) -> bool:
    """The same rule as a truth value (for `assert not close(...)` and for filters; logged as
    check "truth", which the margin report leaves out: a difference there may be the point)."""
    try:
        assert_close(actual, expected, dtype=dtype, reduction=reduction, scale=scale, _check="truth")
    except AssertionError:
        return False
    return True
