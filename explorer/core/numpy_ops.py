"""Multi-head attention in numpy: the float64 reference every other path is checked against."""

from __future__ import annotations

import math

import numpy as np

from .masks import masked_softmax


def split_heads(m: np.ndarray, n_heads: int) -> np.ndarray:
    """(n, d) -> (h, n, d_head): head i takes columns i*d_head .. (i+1)*d_head - 1."""
    n, d = m.shape
    return m.reshape(n, n_heads, d // n_heads).transpose(1, 0, 2)  # (h, n, d_head)


def merge_heads(m: np.ndarray) -> np.ndarray:
    """(h, n, d_head) -> (n, h * d_head), the inverse of split_heads."""
    h, n, dh = m.shape
    return m.transpose(1, 0, 2).reshape(n, h * dh)  # (n, d)


def attend(q, k, v, w_o, n_heads: int, allowed: np.ndarray, scaled: bool) -> dict:
    """Attention from projected q (nq, d), k and v (nk, d); returns every intermediate.

    allowed: (nq, nk) bool mask; masked weights are exactly 0, empty rows all 0.
    """
    qh, kh, vh = (split_heads(m, n_heads) for m in (q, k, v))  # (h, n, d_head)
    d_head = qh.shape[-1]
    raw = qh @ kh.transpose(0, 2, 1)  # (h, nq, nk)
    # math.sqrt: a Python float keeps float32 float32 (np.sqrt(int) is a float64 scalar and upcasts)
    scores = raw / math.sqrt(d_head) if scaled else raw  # (h, nq, nk)
    weights = masked_softmax(scores, allowed)  # (h, nq, nk)
    head_out = weights @ vh  # (h, nq, d_head)
    concat = merge_heads(head_out)  # (nq, d)
    return {
        "qh": qh, "kh": kh, "vh": vh, "raw_scores": raw, "scores": scores,
        "weights": weights, "head_outputs": head_out, "concat": concat,
        "output": concat @ w_o,  # (nq, d)
    }


def self_attention(x_in, weights, n_heads: int, allowed, scaled: bool) -> dict:
    """Project x_in (n, d) with W_Q, W_K, W_V and attend; adds q, k, v to the dict."""
    q, k, v = x_in @ weights.w_q, x_in @ weights.w_k, x_in @ weights.w_v  # (n, d) each
    out = attend(q, k, v, weights.w_o, n_heads, allowed, scaled)
    out.update(q=q, k=k, v=v)
    return out
