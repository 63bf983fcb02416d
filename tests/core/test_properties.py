"""hypothesis properties of the forward pass over random small configs.

Expected values are computed in the test (masks, softmax, FLOP formulas), not with
the core's helpers.
"""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, forward

from attention_rounding import score_size
from numeric import assert_close

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, database=None)


@st.composite
def configs(draw, backends=("numpy",), dtypes=("float64",)):
    n = draw(st.integers(1, 12))
    n_heads = draw(st.integers(1, 8))
    d_head = draw(st.integers(1, 8))
    padding = draw(st.frozensets(st.integers(0, n - 1), max_size=n))
    return AttentionConfig(
        tokens=tuple(f"t{i}" for i in range(n)), d_model=n_heads * d_head, n_heads=n_heads,
        seed=draw(st.integers(0, 2**32 - 1)), scaled=draw(st.booleans()),
        causal=draw(st.booleans()), padding=padding, positional=draw(st.booleans()),
        backend=draw(st.sampled_from(backends)), dtype=draw(st.sampled_from(dtypes)),
        init=draw(st.sampled_from(["course", "unit"])),
    )


def expected_allowed(config):
    n = config.n_tokens
    return np.array([[(not config.causal or j <= i) and j not in config.padding
                      for j in range(n)] for i in range(n)], dtype=bool).reshape(n, n)


def softmax_rows(scores, allowed):
    """Masked softmax written out: (h, n, n) scores, (n, n) allowed."""
    out = np.zeros_like(scores)
    for h in range(scores.shape[0]):
        for i in range(scores.shape[1]):
            keys = np.flatnonzero(allowed[i])
            if keys.size:
                e = np.exp(scores[h, i, keys] - scores[h, i, keys].max())
                out[h, i, keys] = e / e.sum()
    return out


ARRAYS = ("x", "x_in", "q", "k", "v", "qh", "kh", "vh", "raw_scores", "scores", "weights",
          "head_outputs", "concat", "output")


@PROPERTY_SETTINGS
@given(configs(backends=("numpy", "torch")))
def test_rows_sum_to_one_and_masked_cells_are_exactly_zero(config):
    r = forward(config)
    allowed = expected_allowed(config)
    empty = ~allowed.any(axis=1)
    np.testing.assert_array_equal(r.mask, allowed)
    np.testing.assert_array_equal(r.empty_rows, empty)
    sums = r.weights.sum(axis=-1)  # (h, n)
    # the softmax's normaliser and this sum: n terms each; the scores' size cancels out
    assert_close(sums[:, ~empty], 1.0, reduction=2 * config.n_tokens, scale=1.0)
    assert np.all(sums[:, empty] == 0.0)
    assert np.all(r.weights[:, ~allowed] == 0.0)  # exactly 0, not tiny
    assert np.all(r.weights >= 0.0)
    for name in ARRAYS:
        assert np.isfinite(getattr(r, name)).all(), name
    for name in ("entropy", "max_weight", "raw_variance", "scaled_variance"):
        assert np.isfinite(getattr(r.stats, name)).all(), name
    assert np.all(r.stats.argmax[:, empty] == -1)
    for h in range(config.n_heads):
        for i in np.flatnonzero(~empty):
            key = r.stats.argmax[h, i]
            assert allowed[i, key] and r.weights[h, i, key] == r.weights[h, i].max()
    assert np.all(r.output[empty] == 0.0)


@PROPERTY_SETTINGS
@given(configs())
def test_weights_are_the_masked_softmax_of_the_scores(config):
    r = forward(config)
    allowed = expected_allowed(config)
    expected_scores = r.raw_scores / math.sqrt(config.d_head) if config.scaled else r.raw_scores
    assert_close(r.scores, expected_scores)  # one division each
    # the same scores on both sides: exp(s - max) is off by eps·|s|, the normaliser sums n terms
    assert_close(r.weights, softmax_rows(r.scores, allowed), reduction=config.n_tokens,
                 scale=score_size(config, r))


@PROPERTY_SETTINGS
@given(configs())
def test_scaling_off_is_scaling_on_times_sqrt_d_head(config):
    on = forward(config.replace(scaled=True))
    off = forward(config.replace(scaled=False))
    root = math.sqrt(config.d_head)
    np.testing.assert_array_equal(off.raw_scores, on.raw_scores)
    assert_close(off.scores, on.scores * root)  # ÷ √d_head, then × √d_head
    allowed = expected_allowed(config)
    assert_close(off.weights, softmax_rows(on.scores * root, allowed), reduction=config.n_tokens,
                 scale=score_size(config.replace(scaled=False), off))
    # a variance sums over every allowed cell of a head: up to n² terms of the size of a score²
    cells, squares = config.n_tokens ** 2, score_size(config.replace(scaled=False), off) ** 2
    assert_close(off.stats.scaled_variance, on.stats.scaled_variance * root**2, reduction=cells,
                 scale=squares)
    assert_close(off.stats.raw_variance, off.stats.scaled_variance, reduction=cells, scale=squares)


@PROPERTY_SETTINGS
@given(configs())
def test_flop_and_parameter_counts(config):
    r = forward(config)
    n, d = config.n_tokens, config.d_model
    projections = 4 * (2 * n * d * d)      # Q, K, V, O: n x d times d x d, 2 FLOPs per multiply-add
    attention = 2 * (2 * n * n * d)        # QK^T and weights.V summed over heads: h * d_head = d
    assert r.flop_count == projections + attention
    assert r.param_count == 4 * d * d


@PROPERTY_SETTINGS
@given(configs(), st.sampled_from(["float64", "float32"]))
def test_toggles_do_not_change_the_projections(config, dtype):
    """Scaling and masks act after the projections: q, k, v are the same for every toggle."""
    config = config.replace(dtype=dtype)
    a = forward(config)
    b = forward(config.replace(scaled=not config.scaled, causal=not config.causal,
                               padding=frozenset()))
    for name in ("x", "x_in", "q", "k", "v", "raw_scores"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@PROPERTY_SETTINGS
@given(configs(backends=("numpy", "torch"), dtypes=("float64", "float32")))
def test_head_stats_match_their_definitions(config):
    r = forward(config)
    allowed = expected_allowed(config)
    for name in ("entropy", "argmax", "max_weight", "raw_variance", "scaled_variance"):
        assert np.isfinite(getattr(r.stats, name)).all(), name
    for h in range(config.n_heads):
        cells_raw = r.raw_scores[h][allowed].astype(np.float64)
        cells_scaled = r.scores[h][allowed].astype(np.float64)
        expected_raw = cells_raw.var() if cells_raw.size else 0.0
        expected_scaled = cells_scaled.var() if cells_scaled.size else 0.0
        # the same cells, the variance's sums (one term per cell, of a score's square) in dtype
        for got, want, cells in ((r.stats.raw_variance[h], expected_raw, cells_raw),
                                 (r.stats.scaled_variance[h], expected_scaled, cells_scaled)):
            squares = float(np.square(cells).max(initial=0.0))
            assert_close(got, want, dtype=config.dtype, reduction=cells.size, scale=squares)
        for i in range(config.n_tokens):
            row = r.weights[h, i].astype(np.float64)
            p = row[row > 0]
            entropy = float(-(p * np.log(p)).sum()) if p.size else 0.0
            # from the scores (H = m + log Z − Σ p s): a sum over n keys in dtype, its error
            # scaling with the largest score of the row (stats.softmax_entropy)
            scores = np.abs(r.scores[h, i][allowed[i]])
            assert_close(r.stats.entropy[h, i], entropy, dtype=config.dtype, reduction=config.n_tokens,
                         scale=max(entropy, float(scores.max(initial=0.0))))
            assert r.stats.max_weight[h, i] == r.weights[h, i].max()
    assert not np.signbit(r.stats.entropy).any()  # no -0.0 for certain rows
