"""A real KV cache, stepped one token at a time, checked against the full causal pass.

Step t (0-based) takes token t, projects q_t, k_t, v_t, appends k_t and v_t to the
cache and attends q_t over the t + 1 cached keys. Its output row must equal row t of
the full causal forward pass; each step records the max |difference| as evidence.
Runs in numpy in the config's dtype.

At 1024 tokens × d_model 2048 a trace takes close to a minute; `run_kv_cache` polls its
`should_stop` between steps (and inside the full causal pass) and raises
`core.cancel.Cancelled` once it turns true, so a newer request need not wait for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import flops
from .attention import AttentionResult, forward, model_input, read_only
from .cancel import StopCheck, check
from .config import AttentionConfig, validate
from .masks import masked_softmax


class KVCache:
    """Preallocated per-head key and value buffers that grow by one row per step."""

    def __init__(self, n_heads: int, capacity: int, d_head: int, dtype="float64"):
        self.k = np.zeros((n_heads, capacity, d_head), dtype=dtype)  # (h, capacity, d_head)
        self.v = np.zeros((n_heads, capacity, d_head), dtype=dtype)  # (h, capacity, d_head)
        self.length = 0

    def append(self, k_t: np.ndarray, v_t: np.ndarray) -> None:
        """k_t, v_t: (h, d_head) for the newest token."""
        if self.length >= self.k.shape[1]:
            raise IndexError("KV cache is full")
        self.k[:, self.length] = k_t
        self.v[:, self.length] = v_t
        self.length += 1

    def keys(self) -> np.ndarray:
        return self.k[:, :self.length]  # (h, t, d_head)

    def values(self) -> np.ndarray:
        return self.v[:, :self.length]  # (h, t, d_head)

    @property
    def nbytes(self) -> int:
        h, _, d_head = self.k.shape
        return flops.kv_cache_bytes(self.length, h, d_head, self.k.itemsize)


@dataclass(frozen=True)
class KVStep:
    step: int
    token: str
    cached: int                 # tokens in the cache after this step (step + 1)
    cache_bytes: int
    flops_cached: int           # this step, with the cache
    flops_recompute: int        # this step, recomputing the prefix
    cum_flops_cached: int
    cum_flops_recompute: int
    q: np.ndarray               # (h, d_head) the query of this token
    weights: np.ndarray         # (h, cached) attention over the cached keys
    output: np.ndarray          # (d,) this step's output row
    max_diff: float             # max |output - full causal output[step]|
    tolerance: float = 0.0      # the most max_diff may be for a right cache (see step_tolerance)

    def to_dict(self) -> dict:
        return {
            "step": self.step, "token": self.token, "cached": self.cached,
            "cache_bytes": self.cache_bytes,
            "flops_cached": self.flops_cached, "flops_recompute": self.flops_recompute,
            "cum_flops_cached": self.cum_flops_cached,
            "cum_flops_recompute": self.cum_flops_recompute,
            "max_diff": self.max_diff, "tolerance": self.tolerance,
        }


@dataclass(frozen=True)
class KVTrace:
    config: AttentionConfig     # causal, numpy
    steps: tuple[KVStep, ...]
    keys: np.ndarray            # (h, n, d_head) the final cache; at step t rows 0..t were filled
    values: np.ndarray          # (h, n, d_head)
    full: AttentionResult       # the full causal pass it is checked against

    def cache_at(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        """(K, V) as they stood after `step`: (h, step + 1, d_head) each."""
        return self.keys[:, :step + 1], self.values[:, :step + 1]


TOLERANCE_ULPS = 64  # random configs up to d_model 2048 stay under 6 (float32 and float64)


def step_tolerance(full: AttentionResult, t: int, dtype: str) -> float:
    """How far a right cache's row t may be from the full pass: rounding error grows with the
    output's size and, through softmax, with the scores' size (unscaled d_model 1024 has scores
    in the thousands), so an absolute bound either cries wolf in float32 or says nothing in
    float64. eps · max(1, |output|) · max(1, |scores|) · TOLERANCE_ULPS; a wrong cache (a key
    missing, a stale value) is off by about |output| and still fails."""
    scores = full.scores[:, t, :t + 1]  # (h, t + 1) the keys row t may see
    finite = np.abs(scores[np.isfinite(scores)])
    score_max = float(finite.max()) if finite.size else 1.0
    out = np.abs(full.output[t])
    out_max = float(out[np.isfinite(out)].max()) if np.isfinite(out).any() else 1.0
    eps = float(np.finfo(np.dtype(dtype)).eps)
    return TOLERANCE_ULPS * eps * max(1.0, out_max) * max(1.0, score_max)


def decode_step(cache: KVCache, x_t, weights, n_heads: int, key_allowed, scaled: bool):
    """One token through attention with the cache. Returns (q_t (h, dh), weights (h, t), out (d,))."""
    d = x_t.shape[0]
    q_t, k_t, v_t = (np.reshape(x_t @ w, (n_heads, d // n_heads))  # (h, d_head)
                     for w in (weights.w_q, weights.w_k, weights.w_v))
    cache.append(k_t, v_t)
    raw = np.einsum("hd,htd->ht", q_t, cache.keys())  # (h, t)
    scores = raw / math.sqrt(d // n_heads) if scaled else raw  # Python float: no float32 upcast
    attn = masked_softmax(scores, key_allowed[None, :])  # (h, t)
    head_out = np.einsum("ht,htd->hd", attn, cache.values())  # (h, d_head)
    return q_t, attn, head_out.reshape(d) @ weights.w_o  # (d,)


def run_kv_cache(config: AttentionConfig, should_stop: StopCheck = None) -> KVTrace:
    """Step through the whole sentence as a causal decoder (numpy, the config's dtype).

    `should_stop` (optional) is polled before each step and within the full causal pass;
    once it returns true, `Cancelled` is raised and nothing is returned.
    """
    config = validate(config).replace(causal=True, backend="numpy", device="cpu")
    weights, _, x_in = model_input(config, should_stop)
    full = forward(config, should_stop)  # (not reused from the view: it may be acausal or torch)
    n, h, d = config.n_tokens, config.n_heads, config.d_model
    cache = KVCache(h, n, config.d_head, dtype=config.dtype)
    key_allowed = np.array([i not in config.padding for i in range(n)])  # (n,)
    steps, cum_c, cum_r = [], 0, 0
    for t in range(n):
        check(should_stop, "KV-cache trace")
        q_t, attn, out = decode_step(cache, x_in[t], weights, h, key_allowed[:t + 1], config.scaled)
        f_c, f_r = flops.kv_step_flops(t, d), flops.kv_recompute_flops(t, d)
        cum_c, cum_r = cum_c + f_c, cum_r + f_r
        steps.append(KVStep(
            step=t, token=config.tokens[t], cached=cache.length, cache_bytes=cache.nbytes,
            flops_cached=f_c, flops_recompute=f_r, cum_flops_cached=cum_c,
            cum_flops_recompute=cum_r, q=q_t, weights=attn, output=out,
            max_diff=float(np.abs(out - full.output[t]).max()),
            tolerance=step_tolerance(full, t, config.dtype),
        ))
    read_only(cache.k, cache.v, *(a for step in steps for a in (step.q, step.weights, step.output)))
    return KVTrace(config, tuple(steps), cache.k, cache.v, full)
