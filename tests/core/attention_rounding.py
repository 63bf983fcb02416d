"""The rule's arguments (tests/numeric.py) for the course attention layer's result arrays.

Two right computations of the layer (numpy and torch, one chunk or many, a KV-cache step or
the full pass, our engine or an oracle) differ by rounding only. How much depends on where the
array sits in the layer, so both arguments are derived here from the config, once:

- reduction: the terms summed along the longest path from x to the array: x @ W (d_model),
  q · k (d_head), the softmax's normaliser and weights @ V (n keys each), concat @ W_O (d_model);
- scale: the array's own size; for the scores the size of the products q_i·k_i they sum; past
  the softmax, times that score size as well (a score off by δ·|s| moves its weight by δ·|s|·w:
  unscaled scores at d_model 64 reach the hundreds).
"""

from __future__ import annotations

import numpy as np

# how many of each kind of sum lie on the path to each array
_PATH = {  # name: (d_model sums, d_head sums, n-key sums)
    "x_in": (0, 0, 0),
    "q": (1, 0, 0), "k": (1, 0, 0), "v": (1, 0, 0), "qh": (1, 0, 0), "kh": (1, 0, 0), "vh": (1, 0, 0),
    "raw_scores": (1, 1, 0), "scores": (1, 1, 0),
    "weights": (1, 1, 1),
    "head_outputs": (1, 1, 2), "concat": (1, 1, 2),
    "output": (2, 1, 2),
}
_PAST_SOFTMAX = ("weights", "head_outputs", "concat", "output")


def reduction(config, name: str) -> int:
    """Terms summed along the longest path to result array `name` of `config`'s forward pass."""
    by_d, by_dh, by_n = _PATH[name]
    return max(1, by_d * config.d_model + by_dh * config.d_head + by_n * config.n_tokens)


def _magnitude(a) -> float:
    a = np.abs(np.asarray(a, dtype=np.float64))
    finite = a[np.isfinite(a)]
    return max(1.0, float(finite.max(initial=0.0)))


def score_size(config, reference, scaled: bool | None = None) -> float:
    """max(1, |scores|, |q|·|k| (÷ √d_head when scaled)): a score's rounding error scales with
    the size of the products q_i·k_i it sums, which often cancel to a smaller score. `scaled`
    (default config.scaled): the scores fed to the softmax (True) or the raw ones (False)."""
    scaled = config.scaled if scaled is None else scaled
    terms = _magnitude(reference.qh) * _magnitude(reference.kh)
    if scaled:
        terms /= np.sqrt(config.d_head)
    return max(_magnitude(reference.scores if scaled else reference.raw_scores), terms)


def scale(config, reference, name: str, expected=None) -> float:
    """The size `name`'s rounding error scales with: max(1, |expected|) (by default the
    reference's own array); for the scores, their terms' size (score_size); past the softmax,
    times the score size as well. `reference` is an AttentionResult of `config`."""
    size = _magnitude(getattr(reference, name) if expected is None else expected)
    if name == "raw_scores":
        return max(size, score_size(config, reference, scaled=False))
    if name == "scores":
        return max(size, score_size(config, reference))
    if name in _PAST_SOFTMAX:
        size *= score_size(config, reference)
    return size


def rule(config, reference, name: str, expected=None) -> dict:
    """{reduction, scale} for assert_close(actual, expected, **rule(...))."""
    return {"reduction": reduction(config, name), "scale": scale(config, reference, name, expected)}
