"""Operation counts (matrix multiplies only; 1 multiply-add = 2 FLOPs; softmax not counted).

Kept in one module so the forward pass, the KV cache and the tests agree on the formulas.
"""

from __future__ import annotations


def param_count(d_model: int) -> int:
    """W_Q, W_K, W_V, W_O: 4 * d^2, whatever the number of heads."""
    return 4 * d_model * d_model


def forward_flops(n_query: int, d_model: int, n_key: int | None = None) -> int:
    """Full forward over n queries and n_key keys: Q,K,V,O projections + QK^T + weights.V.

    Heads split d_model, so the attention terms do not depend on the head count:
    h * (2 * nq * nk * d_head) = 2 * nq * nk * d.
    """
    n_key = n_query if n_key is None else n_key
    projections = 2 * n_query * d_model * d_model * 2 + 2 * n_key * d_model * d_model * 2  # Q,O + K,V
    attention = 2 * (2 * n_query * n_key * d_model)  # scores + weighted sum
    return projections + attention


def kv_step_flops(t: int, d_model: int) -> int:
    """Step t (0-based) with a cache: project one token (q, k, v, o) and attend over t+1 keys."""
    return 4 * 2 * d_model * d_model + 2 * (2 * (t + 1) * d_model)


def kv_recompute_flops(t: int, d_model: int) -> int:
    """Step t without a cache: a full causal forward over the prefix of t+1 tokens."""
    return forward_flops(t + 1, d_model)


def kv_cache_bytes(tokens_cached: int, n_heads: int, d_head: int, bytes_per_value: int,
                   layers: int = 1, batch: int = 1) -> int:
    """2 (K and V) * layers * batch * heads * t * d_head * bytes."""
    return 2 * layers * batch * n_heads * tokens_cached * d_head * bytes_per_value
