"""Attention masks as boolean "may attend" matrices: True = allowed, False = masked."""

from __future__ import annotations

import numpy as np


def build_mask(n_query: int, n_key: int, causal: bool, padding=frozenset()) -> np.ndarray:
    """(n_query, n_key) bool. Causal: query i sees keys 0..i. Padding: masked key columns."""
    allowed = np.ones((n_query, n_key), dtype=bool)
    if causal:
        allowed &= np.tri(n_query, n_key, dtype=bool)  # lower triangle incl. diagonal
    for p in padding:
        allowed[:, p] = False
    return allowed


def fully_masked_rows(allowed: np.ndarray) -> np.ndarray:
    """(n_query,) bool: rows where every key is masked (their weights are defined as 0)."""
    return ~allowed.any(axis=-1)


def masked_softmax(scores: np.ndarray, allowed: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Softmax over the last axis of (..., nq, nk) scores where `allowed` is True.

    Masked entries get exactly 0. A row with no allowed key gets all zeros (not NaN):
    there is nothing to attend to, so it contributes nothing. Works in place on one
    array (this runs on every slider move at up to 16 x 1024 x 1024): `out` when given
    (scores' shape and dtype; the same numbers either way), else a new one.
    """
    all_allowed = bool(allowed.all())
    if all_allowed:
        row_max = scores.max(axis=-1, keepdims=True)
        e = np.subtract(scores, row_max, out=out)  # no copy of the scores first
    else:
        e = np.empty_like(scores) if out is None else out
        e.fill(-np.inf)
        np.copyto(e, scores, where=allowed)  # np.where(allowed, scores, -inf), in place
        row_max = e.max(axis=-1, keepdims=True)
        row_max[~np.isfinite(row_max)] = 0.0  # fully masked rows: avoid inf - inf
        e -= row_max
    np.exp(e, out=e)  # masked -> exp(-inf) = 0
    total = e.sum(axis=-1, keepdims=True)
    if all_allowed:
        e /= total
        return e
    return np.divide(e, total, out=e, where=total > 0)
