"""Value-weighted attention (Kobayashi et al. 2020): what key j really adds to query i.

A head's output for query i is Σ_j α_ij · f_h(x_j), with f_h(x_j) = v_j^h W_O^h the value of key
j through the head's slice of the output projection. A big weight on a tiny vector moves nothing,
so the norm

    N[l, h, i, j] = ‖α_ij · v_j^h W_O^h‖ = α_ij · ‖v_j^h W_O^h‖

says more than α alone. Values include their bias (the value projection's); the output
projection's bias is the same for every key and is left out, as in the paper. Where a norm
follows the attention (Gemma 2's post-attention norm) the vectors are those before it.

    norms = key_norms(values, w_o, heads)            # (layers, heads, n): ‖v_j^h W_O^h‖
    weighted = value_norms(attentions, norms)        # (layers, heads, n, n): α_ij times it
    tv = norm_disagreement(attentions, weighted)     # (layers, heads) in [0, 1]

A natively run model's key norms come from its capture run, computed in torch where the forward
ran (core.insight.capture: `captured.key_norms`); `key_norms` here is the same in numpy (the
course model's, float64).

The disagreement is the total-variation distance between each query's attention row and its
row of norms made a distribution (N_i / Σ_j N_ij), averaged over the queries: 0 where the two
rank and weigh the keys alike, 1 where they put their mass on different keys.
"""

from __future__ import annotations

import numpy as np

from .rollout import check_attentions


def layer_key_norms(values: np.ndarray, w_o: np.ndarray, heads: int) -> np.ndarray:
    """One layer: ‖v_j^h W_O^h‖ for every query head h and key j -> (heads, n).

    values (kv_heads, n, d_head): query head h reads KV head h // (heads / kv_heads);
    w_o (d_model, heads · d_head) in the (out, in) layout the models store: head h's slice is
    the columns h · d_head .. (h + 1) · d_head − 1."""
    kv_heads, n, d_head = values.shape
    d_model = w_o.shape[0]
    if w_o.shape[1] != heads * d_head or heads % kv_heads:
        raise ValueError(f"W_O {w_o.shape} does not fit {heads} heads of values {values.shape}")
    # contiguous: numpy's stacked matmul over a transposed view leaves BLAS (1000× slower here)
    per_head = np.ascontiguousarray(w_o.reshape(d_model, heads, d_head).transpose(1, 2, 0))  # (heads, d_head, d_model)
    v = np.repeat(values, heads // kv_heads, axis=0)  # (heads, n, d_head)
    return np.linalg.norm(v @ per_head, axis=-1)  # (heads, n)


def key_norms(values, w_o, heads: int) -> np.ndarray:
    """(layers, heads, n) ‖v_j^h W_O^h‖ from each layer's values (kv_heads, n, d_head) and W_O
    (d_model, heads · d_head) (core/checkpoints/native.py: forward(..., capture=("values",)))."""
    if len(values) != len(w_o):
        raise ValueError(f"{len(values)} layers of values and {len(w_o)} of W_O")
    return np.stack([layer_key_norms(np.asarray(v), np.asarray(w), heads) for v, w in zip(values, w_o)])


def value_norms(attentions: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """(layers, heads, n, n) ‖α_ij · v_j^h W_O^h‖ = α_ij · norms[l, h, j], from the attentions
    (layers, heads, n, n) and the key norms (layers, heads, n). In the attentions' dtype."""
    a = check_attentions(attentions)
    norms = np.asarray(norms)
    if norms.shape != a.shape[:3]:
        raise ValueError(f"key norms {norms.shape} for attentions {a.shape}")
    return a * norms[:, :, None, :].astype(a.dtype)


def course_value_norms(result) -> np.ndarray:
    """(1, heads, n, n) for the course model's one layer (a core.attention.AttentionResult): its
    values vh and the W_O it was computed with (output = concat @ W_O, so head h's rows of W_O)."""
    from ..weights import draw_weights
    c = result.config
    w_o = draw_weights(c.seed, c.n_tokens, c.d_model, c.init).as_dtype(c.dtype).w_o  # (d, d), x @ w_o
    norms = key_norms(result.vh[None], [np.asarray(w_o).T], c.n_heads)  # (1, heads, n)
    return value_norms(result.weights[None], norms)


def norm_disagreement(attentions: np.ndarray, norms: np.ndarray, n_real: int | None = None) -> np.ndarray:
    """(layers, heads): the mean over the real queries of the total-variation distance between
    α_i and N_i / Σ_j N_ij (module docstring). A row without norm (no key) is left out. float64."""
    a = check_attentions(attentions).astype(np.float64)
    n = a.shape[-1] if n_real is None else n_real
    a, norm = a[:, :, :n, :], np.asarray(norms, dtype=np.float64)[:, :, :n, :]  # (layers, heads, q, n)
    total = norm.sum(axis=-1, keepdims=True)  # (layers, heads, q, 1)
    has = total[..., 0] > 0  # (layers, heads, q)
    shares = np.divide(norm, total, out=np.zeros_like(norm), where=total > 0)
    distance = 0.5 * np.abs(a - shares).sum(axis=-1)  # (layers, heads, q)
    counted = has.sum(axis=-1)
    return np.divide((distance * has).sum(axis=-1), counted, out=np.zeros(counted.shape), where=counted > 0)
