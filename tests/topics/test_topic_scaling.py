"""Why √d_head: score variance grows with d_head, scaling removes that; the d_model sweep."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, ConfigError, forward
from explorer.core.topics import (d_model_sweep, draw_qk, expected_raw_variance, histogram,
                                  raw_score_variance, score_statistics, sweep_d_models)
from explorer.core.weights import draw_weights
from numeric import assert_close
from topic_support import softmax_scale

N_SEEDS = 24
N_TOKENS = 16


def mean_variances(d_model, n_heads, seed, init):
    raw = np.mean([raw_score_variance((seed + i) % 2**32, N_TOKENS, d_model, n_heads, init).mean()
                   for i in range(N_SEEDS)])
    return raw, raw / (d_model // n_heads)  # scaled variance = raw / d_head


@settings(max_examples=12, deadline=None)
@given(log_d=st.integers(4, 8), log_h=st.integers(0, 2), seed=st.integers(0, 2**32 - 1))
def test_unit_init_raw_variance_is_d_head_and_scaled_is_one(log_d, log_h, seed):
    d_model, n_heads = 2 ** log_d, 2 ** log_h
    raw, scaled = mean_variances(d_model, n_heads, seed, "unit")
    # statistical, not rounding: a mean of 24 sample variances against its expectation
    assert raw == pytest.approx(d_model // n_heads, rel=0.3)
    assert scaled == pytest.approx(1.0, rel=0.3)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_course_init_raw_variance_grows_with_d_head_at_fixed_d_model(seed):
    """Same d_model, more heads -> smaller d_head: raw variance ∝ d_head, scaled constant."""
    results = {h: mean_variances(64, h, seed, "course") for h in (1, 4, 16)}
    for h, (raw, scaled) in results.items():  # statistical, not rounding (as above)
        assert raw == pytest.approx(expected_raw_variance(64, h, "course"), rel=0.3)
        assert scaled == pytest.approx(expected_raw_variance(64, 1, "course") / 64, rel=0.3)
    assert results[1][0] > 3 * results[4][0] > 9 * results[16][0]


def test_draw_qk_course_is_the_apps_draw():
    x, w_q, w_k = draw_qk(3, 5, 16, "course")
    w = draw_weights(3, 5, 16)
    np.testing.assert_array_equal(x, w.x)
    np.testing.assert_array_equal(w_q, w.w_q)
    np.testing.assert_array_equal(w_k, w.w_k)
    _, u_q, _ = draw_qk(3, 5, 16, "unit")
    # randn · 1/√16 and randn · 0.5 / 0.5 / 4: scalings by powers of two, exact
    np.testing.assert_array_equal(u_q, w.w_q / 0.5 / 4.0)


def test_score_statistics_of_course_lab3():
    result = forward(AttentionConfig())
    s = score_statistics(result)
    raw = result.raw_scores.ravel()
    # a variance sums (score − mean)² over each head's 16 scores (both sides read the same
    # scores): its rounding errors scale with the largest square, not with the variance
    square = np.square(raw).max()
    assert_close(s.raw_variance, result.stats.raw_variance, dtype="float64", reduction=16,
                 scale=square)
    assert_close(s.scaled_variance, result.stats.scaled_variance, dtype="float64", reduction=16,
                 scale=square / 4)
    np.testing.assert_array_equal(s.scaled_variance * 4, s.raw_variance)  # ÷ d_head = 4: exact
    assert s.n_scores == s.counts.sum() == raw.size == 32
    np.testing.assert_array_equal(s.counts, np.histogram(raw, bins=s.raw_edges)[0])  # counts
    assert (s.raw_edges[0], s.raw_edges[-1]) == (raw.min(), raw.max())
    np.testing.assert_array_equal(s.scaled_edges, s.raw_edges / 2)  # ÷ √4: exact
    # pooled: both heads' 32 scores in one variance
    assert_close(s.pooled_raw_variance, raw.var(), dtype="float64", reduction=32, scale=square)
    assert_close(s.pooled_scaled_variance, (raw / 2).var(), dtype="float64", reduction=32,
                 scale=square / 4)
    # means over the 4 query rows of each head
    assert_close(s.max_weight, result.stats.max_weight.mean(axis=1), dtype="float64", reduction=4)
    assert_close(s.entropy, result.stats.entropy.mean(axis=1), dtype="float64", reduction=4)
    assert_close(s.max_entropy, np.log(4), dtype="float64", reduction=4)  # mean of 4 × log 4
    # d_head · Var(q) · Var(k), each variance over the 4 × 8 entries of Q or K: the relative
    # errors of the two variances (largest square / variance) add up in the product
    q2, k2 = np.square(result.q).max(), np.square(result.k).max()
    assert_close(s.predicted_raw_variance, 4 * np.var(result.q) * np.var(result.k),
                 dtype="float64", reduction=32,
                 scale=4 * (q2 * np.var(result.k) + np.var(result.q) * k2))


def test_score_statistics_skips_masked_cells_and_empty_rows():
    config = AttentionConfig(tokens=("<pad>", "a", "b"), padding={0}, causal=True)
    result = forward(config)
    s = score_statistics(result)
    assert s.n_scores == 2 * result.mask.sum() == 6
    assert_close(s.raw_variance, [result.raw_scores[h][result.mask].var() for h in range(2)],
                 dtype="float64", reduction=3,  # the 3 allowed scores of each head
                 scale=np.square(result.raw_scores[:, result.mask]).max())
    assert_close(s.max_weight, result.stats.max_weight[:, 1:].mean(axis=1), dtype="float64",
                 reduction=2)  # the mean over the 2 rows that are not empty


def test_sweep_shows_saturation_without_scaling():
    sweep = d_model_sweep(6, 2, seed=1, n_seeds=3, init="unit")
    assert list(sweep.d_models) == [8, 16, 32, 64, 128, 256, 512, 1024]
    for arr in (sweep.max_weight_scaled, sweep.max_weight_unscaled, sweep.entropy_scaled,
                sweep.entropy_unscaled, sweep.raw_variance, sweep.scaled_variance):
        assert arr.shape == (8,) and np.isfinite(arr).all()
    assert sweep.max_weight_unscaled[-1] > 0.9 > sweep.max_weight_scaled[-1]
    assert sweep.entropy_unscaled[-1] < 0.3 < sweep.entropy_scaled[-1]
    # statistical, not rounding: 3 seeds' sample variances against their expectation d_head
    np.testing.assert_allclose(sweep.raw_variance / (sweep.d_models / 2), 1.0, rtol=0.6)
    np.testing.assert_array_equal(sweep.series("entropy", False), sweep.entropy_unscaled)


def test_sweep_first_point_is_the_mean_of_forward_over_seeds():
    sweep = d_model_sweep(4, 2, seed=1, n_seeds=2, init="course", d_models=(8,))
    # the sums on the way: x·W (d_model 8), q·k (d_head 4), the softmax and the entropy (4 keys
    # each), the means over 2 heads × 4 rows and over 2 seeds
    reduction = 8 + 4 + 4 + 4 + 2 * 4 + 2
    for scaled in (True, False):
        r = [forward(AttentionConfig(seed=s, scaled=scaled)) for s in (1, 2)]
        scale = max(softmax_scale(x.scores) for x in r)
        assert_close(sweep.series("max_weight", scaled)[0],
                     np.mean([x.stats.max_weight.mean() for x in r]),
                     dtype="float64", reduction=reduction, scale=scale)
        assert_close(sweep.series("entropy", scaled)[0],
                     np.mean([x.stats.entropy.mean() for x in r]),
                     dtype="float64", reduction=reduction, scale=scale)


def test_sweep_widths_follow_the_head_count_and_stop_early():
    assert sweep_d_models(3) == ()
    assert sweep_d_models(16) == (16, 32, 64, 128, 256, 512, 1024)
    with pytest.raises(ConfigError, match="divisible by 3 heads"):
        d_model_sweep(4, 3, seed=1)
    with pytest.raises(ConfigError, match="unknown weight init"):
        d_model_sweep(4, 2, seed=1, init="xavier")
    assert d_model_sweep(4, 2, seed=1, should_stop=lambda: True) is None


def test_histogram_counts_every_value():
    edges, counts = histogram(np.array([1.0, 2.0, 2.0, 3.0]), bins=4)
    assert counts.sum() == 4 and len(edges) == 5
    edges, counts = histogram(np.array([2.0, 2.0]))
    assert counts.sum() == 2 and edges[0] < 2 < edges[-1]
    assert histogram(np.array([]))[1].sum() == 0
