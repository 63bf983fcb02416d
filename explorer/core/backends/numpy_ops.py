"""Multi-head attention in numpy: the float64 reference every other path is checked against."""

from __future__ import annotations

import math

import numpy as np

from ..cancel import StopCheck, check
from ..masks import masked_softmax

# Cells of (h, nq, nk) worked on between two polls of should_stop: at 1024 tokens one head
# (~0.15 s for its scores, softmax and output on a quiet 2-core machine, ~0.4 s on a busy one).
# Chunks never change a number: every step is per head (batched matmul) or per row (softmax), so
# a head computes the same alone or in a batch. (Smaller chunks pay only with glibc's trim
# threshold raised: tried and reverted, docs/benchmarks.md, session 12.)
CHUNK_CELLS = 1 << 20


def head_chunks(n_heads: int, cells_per_head: int, min_heads: int = 1) -> list[slice]:
    """Consecutive head ranges of about CHUNK_CELLS cells, each of at least `min_heads` heads
    (or all of them): a short last range joins the one before it."""
    step = max(1, min_heads, CHUNK_CELLS // max(1, cells_per_head))
    starts = list(range(0, n_heads, step))
    if len(starts) > 1 and n_heads - starts[-1] < min_heads:
        starts.pop()
    return [slice(a, b) for a, b in zip(starts, starts[1:] + [n_heads])]


def split_heads(m: np.ndarray, n_heads: int) -> np.ndarray:
    """(n, d) -> (h, n, d_head): head i takes columns i*d_head .. (i+1)*d_head - 1."""
    n, d = m.shape
    return m.reshape(n, n_heads, d // n_heads).transpose(1, 0, 2)  # (h, n, d_head)


def merge_heads(m: np.ndarray) -> np.ndarray:
    """(h, n, d_head) -> (n, h * d_head), the inverse of split_heads."""
    h, n, dh = m.shape
    return m.transpose(1, 0, 2).reshape(n, h * dh)  # (n, d)


def attend(q, k, v, w_o, n_heads: int, allowed: np.ndarray, scaled: bool,
           should_stop: StopCheck = None) -> dict:
    """Attention from projected q (nq, d), k and v (nk, d); returns every intermediate.

    allowed: (nq, nk) bool mask; masked weights are exactly 0, empty rows all 0.
    Works through the heads in chunks (see CHUNK_CELLS), polling `should_stop` before each
    (raises core.cancel.Cancelled).
    """
    qh, kh, vh = (split_heads(m, n_heads) for m in (q, k, v))  # (h, n, d_head)
    h, nq, d_head = qh.shape
    nk = kh.shape[1]
    raw = np.empty((h, nq, nk), np.result_type(qh, kh))  # (h, nq, nk)
    scores = np.empty_like(raw) if scaled else raw  # (h, nq, nk)
    weights = np.empty_like(raw)  # (h, nq, nk)
    head_out = np.empty((h, nq, d_head), np.result_type(raw, vh))  # (h, nq, d_head)
    for hs in head_chunks(h, nq * nk):
        check(should_stop, "forward pass")
        np.matmul(qh[hs], kh[hs].transpose(0, 2, 1), out=raw[hs])  # (hc, nq, nk)
        if scaled:
            # math.sqrt: a Python float keeps float32 float32 (np.sqrt(int) is a float64 scalar)
            np.divide(raw[hs], math.sqrt(d_head), out=scores[hs])
        masked_softmax(scores[hs], allowed, out=weights[hs])  # (hc, nq, nk), no temporary
        np.matmul(weights[hs], vh[hs], out=head_out[hs])  # (hc, nq, d_head)
    check(should_stop, "forward pass")
    concat = merge_heads(head_out)  # (nq, d)
    return {
        "qh": qh, "kh": kh, "vh": vh, "raw_scores": raw, "scores": scores,
        "weights": weights, "head_outputs": head_out, "concat": concat,
        "output": concat @ w_o,  # (nq, d)
    }


def self_attention(x_in, weights, n_heads: int, allowed, scaled: bool,
                   should_stop: StopCheck = None) -> dict:
    """Project x_in (n, d) with W_Q, W_K, W_V and attend; adds q, k, v to the dict.

    Polls `should_stop` between the projections (each ~0.3 s at 1024 × 2048) and in `attend`.
    """
    q, k, v = (_project(x_in, w, should_stop)  # (n, d) each
               for w in (weights.w_q, weights.w_k, weights.w_v))
    out = attend(q, k, v, weights.w_o, n_heads, allowed, scaled, should_stop)
    out.update(q=q, k=k, v=v)
    return out


def _project(x_in, w, should_stop: StopCheck):
    check(should_stop, "forward pass")
    return x_in @ w  # (n, d)
