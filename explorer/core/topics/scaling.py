"""Topic 2: why scores are divided by √d_head.

A score q·k sums d_head products. If the components of q and k have variances
σ_q², σ_k² (and are independent), Var(q·k) = d_head · σ_q² · σ_k²: it grows with
d_head, softmax saturates (one key takes almost all the weight, entropy → 0) and
the gradient through softmax vanishes. Dividing by √d_head brings the variance
back to σ_q² · σ_k², independent of d_head.

That only gives "unit" scores when σ_q = σ_k = 1, i.e. when the weights are
initialised with variance 1/d_model (init="unit", the textbook/Xavier-like
assumption). The course draws every weight as randn × 0.5 whatever d_model is
(init="course"), so σ_q² = d_model / 4 and even scaled scores grow with d_model:
the sweep offers both so the view can show the difference honestly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..attention import AttentionResult
from ..config import QT_TRANSLATE_NOOP, ConfigError
from ..masks import build_mask, fully_masked_rows, masked_softmax
from ..backends.numpy_ops import split_heads
from ..stats import masked_variance, row_entropy
from ..weights import INITS, weight_std  # noqa: F401  (INITS re-exported by topics)

SWEEP_D_MODELS = (8, 16, 32, 64, 128, 256, 512, 1024)


def expected_raw_variance(d_model: int, n_heads: int, init: str = "course") -> float:
    """Var(q·k) for X ~ N(0, 1): d_head · (d_model · s²)², s = weight_std."""
    component_var = d_model * weight_std(d_model, init) ** 2  # Var of one q (or k) entry
    return (d_model // n_heads) * component_var ** 2


# --------------------------------------------------------------- the current result
@dataclass(frozen=True)
class ScoreStats:
    """Raw vs scaled scores of one result, and how peaked its softmax is per head.

    The histogram pools every allowed (query, key) score of every head. The scaled scores
    are the raw ones ÷ √d_head, so their histogram has the same counts on edges ÷ √d_head.
    """

    d_head: int
    raw_edges: np.ndarray           # (bins + 1,) histogram of allowed raw scores q·k, all heads
    counts: np.ndarray              # (bins,)
    n_scores: int                   # allowed cells × heads (= counts.sum())
    raw_variance: np.ndarray        # (h,)
    scaled_variance: np.ndarray     # (h,)
    pooled_raw_variance: float      # variance of all allowed raw scores, heads pooled
    q_variance: float               # variance of all Q entries
    k_variance: float               # variance of all K entries
    entropy: np.ndarray             # (h,) mean softmax entropy over non-empty rows (nats)
    max_weight: np.ndarray          # (h,) mean largest weight over non-empty rows
    max_entropy: float              # log(keys a row may see), averaged: the uniform case

    @property
    def scaled_edges(self) -> np.ndarray:
        return self.raw_edges / np.sqrt(self.d_head)

    @property
    def pooled_scaled_variance(self) -> float:
        return self.pooled_raw_variance / self.d_head

    @property
    def predicted_raw_variance(self) -> float:
        """d_head · Var(q) · Var(k): what Var(q·k) should be for independent entries."""
        return self.d_head * self.q_variance * self.k_variance


def score_statistics(result: AttentionResult, bins: int | None = None) -> ScoreStats:
    """Statistics of the scores in `result`, whether or not it was computed scaled.

    Works one head at a time (never more than one (n, n) copy), so 256 heads of 1024
    tokens cost no more memory than the result itself. bins=None: 1.5·√(scores), 8 … 60.
    """
    d_head = result.config.d_head
    allowed = result.mask  # (n, n)
    raw = result.raw_scores  # (h, n, n)
    heads = raw.shape[0]
    n_allowed = int(allowed.sum())
    per_head = [raw[h][allowed] for h in range(heads)] if n_allowed else []
    lo = min((float(v.min()) for v in per_head), default=0.0)
    hi = max((float(v.max()) for v in per_head), default=1.0)
    if bins is None:
        bins = int(np.clip(1.5 * np.sqrt(heads * n_allowed), 8, 60))
    edges = histogram(np.array([lo, hi]), bins)[0]
    counts = sum((np.histogram(v, bins=edges)[0] for v in per_head), np.zeros(bins))
    mean = sum(float(v.sum()) for v in per_head) / max(1, heads * n_allowed)
    pooled = sum(float(((v - mean) ** 2).sum()) for v in per_head) / max(1, heads * n_allowed)
    raw_var = np.array([v.var() for v in per_head]) if per_head else np.zeros(heads)
    rows = ~result.empty_rows  # (n,)
    n_visible = allowed[rows].sum(axis=-1)  # (m,)
    entropy = result.stats.entropy[:, rows]  # (h, m)
    max_weight = result.stats.max_weight[:, rows]  # (h, m)
    return ScoreStats(
        d_head=d_head, raw_edges=edges, counts=counts.astype(float),
        n_scores=heads * n_allowed, raw_variance=raw_var, scaled_variance=raw_var / d_head,
        pooled_raw_variance=pooled,
        q_variance=float(np.var(result.q)), k_variance=float(np.var(result.k)),
        entropy=_mean_rows(entropy), max_weight=_mean_rows(max_weight),
        max_entropy=uniform_entropy(n_visible),
    )


def uniform_entropy(n_visible: np.ndarray) -> float:
    """Mean entropy of uniform rows over n_visible keys each: mean log(n); 0 without rows."""
    return float(np.mean(np.log(n_visible))) if n_visible.size else 0.0


def _mean_rows(per_row: np.ndarray) -> np.ndarray:
    """(h, m) -> (h,) mean over rows; 0 when there are no rows."""
    return per_row.mean(axis=-1) if per_row.shape[-1] else np.zeros(per_row.shape[0])


def histogram(values: np.ndarray, bins: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """(edges (bins+1,), counts (bins,)) of a 1-D array; a single value gets a unit-wide bin."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        return np.linspace(0.0, 1.0, bins + 1), np.zeros(bins)
    lo, hi = float(values.min()), float(values.max())
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    counts, edges = np.histogram(values, bins=bins, range=(lo, hi))
    return edges, counts.astype(float)


# ------------------------------------------------------------------ the d_model sweep
def draw_qk(seed: int, n_tokens: int, d_model: int, init: str = "course"):
    """X, W_Q, W_K drawn in the course's order (a prefix of `draw_weights`' stream).

    With init="course" these equal draw_weights(seed, n, d).x/.w_q/.w_k exactly;
    init="unit" rescales the same draws to entries of variance 1/d_model. Not cached:
    a sweep must not evict the app's cached weights.
    """
    rng = np.random.RandomState(seed)
    x = rng.randn(n_tokens, d_model)  # (n, d)
    s = weight_std(d_model, init)
    w_q = rng.randn(d_model, d_model) * s  # (d, d)
    w_k = rng.randn(d_model, d_model) * s  # (d, d)
    return x, w_q, w_k


def raw_score_variance(seed: int, n_tokens: int, d_model: int, n_heads: int,
                       init: str = "course") -> np.ndarray:
    """(h,) variance of the unscaled scores of every (query, key) pair, per head."""
    x, w_q, w_k = draw_qk(seed, n_tokens, d_model, init)
    qh, kh = split_heads(x @ w_q, n_heads), split_heads(x @ w_k, n_heads)  # (h, n, d_head)
    raw = qh @ kh.transpose(0, 2, 1)  # (h, n, n)
    return raw.reshape(n_heads, -1).var(axis=-1)


@dataclass(frozen=True)
class SweepResult:
    """Softmax peakedness against d_model, with and without ÷√d_head (means over seeds)."""

    d_models: np.ndarray              # (m,)
    n_heads: int
    n_tokens: int
    seeds: tuple[int, ...]
    init: str
    max_weight_scaled: np.ndarray     # (m,) mean largest weight per row
    max_weight_unscaled: np.ndarray   # (m,)
    entropy_scaled: np.ndarray        # (m,) mean row entropy, nats
    entropy_unscaled: np.ndarray      # (m,)
    raw_variance: np.ndarray          # (m,) mean Var(q·k)
    scaled_variance: np.ndarray       # (m,) mean Var(q·k / √d_head)
    max_entropy: float                # entropy of a uniform row (log of visible keys, mean)

    def series(self, measure: str, scaled: bool) -> np.ndarray:
        """"max_weight" or "entropy" for scaled True/False."""
        return getattr(self, f"{measure}_{'scaled' if scaled else 'unscaled'}")


def sweep_d_models(n_heads: int, d_models=SWEEP_D_MODELS) -> tuple[int, ...]:
    """The sweep's widths that `n_heads` divides (each head needs whole columns)."""
    return tuple(d for d in d_models if d >= n_heads and d % n_heads == 0)


def d_model_sweep(n_tokens: int, n_heads: int, seed: int, *, n_seeds: int = 4,
                  init: str = "course", causal: bool = False, padding=frozenset(),
                  d_models=SWEEP_D_MODELS,
                  should_stop: Callable[[], bool] | None = None) -> SweepResult | None:
    """Mean max weight and entropy for each d_model, scaled and unscaled.

    Seeds seed, seed+1, … seed+n_seeds-1 (mod 2**32) are averaged. Returns None when
    `should_stop()` turned true (a newer request superseded this one).
    """
    weight_std(8, init)  # validates init
    widths = sweep_d_models(n_heads, d_models)
    if n_tokens < 1 or n_seeds < 1:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "the sweep needs at least one token and one seed"))
    if not widths:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "no d_model in {widths} is divisible by {heads} heads"),
                             widths=tuple(d_models), heads=n_heads)
    allowed = build_mask(n_tokens, n_tokens, causal, padding)  # (n, n)
    rows = ~fully_masked_rows(allowed)
    seeds = tuple((seed + i) % 2**32 for i in range(n_seeds))
    acc = np.zeros((len(widths), 6))
    for i, d in enumerate(widths):
        for s in seeds:
            if should_stop is not None and should_stop():
                return None
            acc[i] += _one_draw(s, n_tokens, d, n_heads, init, allowed, rows)
    acc /= len(seeds)
    n_visible = allowed[rows].sum(axis=-1)
    return SweepResult(np.array(widths), n_heads, n_tokens, seeds, init, *acc.T,
                       max_entropy=uniform_entropy(n_visible))


def _one_draw(seed, n, d, n_heads, init, allowed, rows) -> np.ndarray:
    """[max_w scaled, max_w unscaled, entropy scaled, entropy unscaled, raw var, scaled var]."""
    x, w_q, w_k = draw_qk(seed, n, d, init)
    qh, kh = split_heads(x @ w_q, n_heads), split_heads(x @ w_k, n_heads)  # (h, n, d_head)
    raw = qh @ kh.transpose(0, 2, 1)  # (h, n, n)
    scaled = raw / np.sqrt(d // n_heads)
    out = []
    for scores in (scaled, raw):
        w = masked_softmax(scores, allowed)[:, rows]  # (h, m, n)
        out.append((w.max(axis=-1, initial=0.0).mean() if w.size else 0.0,
                    row_entropy(w).mean() if w.size else 0.0))
    (mw_s, en_s), (mw_u, en_u) = out
    return np.array([mw_s, mw_u, en_s, en_u,
                     masked_variance(raw, allowed).mean(), masked_variance(scaled, allowed).mean()])
