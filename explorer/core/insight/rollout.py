"""Attention rollout (Abnar & Zuidema 2020): how much of each input token reaches each position.

A layer's output at position i is its attention mix PLUS the residual stream x_i itself, so the
layer's token-to-token matrix is the heads' mean attention with the identity added,

    Â_l = rownorm(0.5 · mean_h A_l + 0.5 · I)          (forgetting the identity is the usual pitfall)

and the layers compose by matrix products, rows (queries) on the left:

    R_0 = Â_0,   R_l = Â_l · R_{l-1}

R_l[i, j] is the share of input token j in position i after layer l; every row sums to 1.
Computed in the attentions' dtype (float32 for the models, float64 for the course model).
"""

from __future__ import annotations

import numpy as np


def check_attentions(attentions: np.ndarray) -> np.ndarray:
    """The (layers, heads, n, n) array as numpy; ValueError for any other shape."""
    a = np.asarray(attentions)
    if a.ndim != 4 or a.shape[-1] != a.shape[-2] or 0 in a.shape[:2]:
        raise ValueError(f"attentions must be (layers, heads, n, n), not {a.shape}")
    return a


def residual_attention(attentions: np.ndarray) -> np.ndarray:
    """(layers, heads, n, n) -> (layers, n, n): each layer's Â = rownorm(0.5 · mean_h A + 0.5 · I).

    A row that is all zero (a query with no key: a padding row of some families) becomes the
    identity's, so nothing divides by zero."""
    a = check_attentions(attentions)
    mean = a.mean(axis=1)  # (layers, n, n)
    n = mean.shape[-1]
    augmented = 0.5 * mean + 0.5 * np.eye(n, dtype=mean.dtype)  # (layers, n, n)
    return augmented / augmented.sum(axis=-1, keepdims=True)


def rollout(attentions: np.ndarray) -> np.ndarray:
    """(layers, heads, n, n) -> (layers, n, n): every layer's cumulative rollout R_l (module
    docstring); R[l] is what the input tokens contribute to each position after layer l.
    The course model's one layer: rollout(result.weights[None])."""
    steps = residual_attention(attentions)  # (layers, n, n)
    out = np.empty_like(steps)
    out[0] = steps[0]
    for layer in range(1, len(steps)):
        out[layer] = steps[layer] @ out[layer - 1]  # (n, n)
    return out
