"""The head statistics' shortcuts against their definitions, in float64 from the same inputs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.masks import masked_softmax
from explorer.core.stats import masked_variance, softmax_entropy

from numeric import assert_close

SETTINGS = settings(max_examples=80, deadline=None, database=None)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(["float32", "float64"]),
       st.integers(1, 4), st.integers(1, 300), st.floats(-1e3, 1e3), st.floats(1e-3, 10.0))
def test_variance_matches_the_two_pass_definition(seed, dtype, heads, cells, offset, spread):
    """E[x²] − E[x]² where the mean is small, numpy's var where it dominates (offset ≫ spread:
    the difference would cancel to noise): either way the float64 two-pass variance within the
    rule for a sum over the cells, scaled by the variance (not by the squares: the fallback's
    point)."""
    rng = np.random.default_rng(seed)
    x = (offset + spread * rng.standard_normal((heads, 1, cells))).astype(dtype)  # (h, 1, m)
    allowed = np.ones((1, cells), bool)
    want = x.astype(np.float64).reshape(heads, -1).var(axis=-1)  # (h,)
    got = masked_variance(x, allowed)
    for h in range(heads):
        scale = 2 * want[h] + abs(x[h].astype(np.float64).mean()) * spread
        assert_close(got[h], want[h], dtype=dtype, reduction=cells, scale=scale)


def test_variance_of_a_constant_is_zero_and_a_masked_out_head_zero():
    x = np.full((2, 3, 3), 7.25)
    np.testing.assert_array_equal(masked_variance(x, np.ones((3, 3), bool)), [0.0, 0.0])
    np.testing.assert_array_equal(masked_variance(x, np.zeros((3, 3), bool)), [0.0, 0.0])


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(["float32", "float64"]),
       st.integers(1, 40), st.floats(0.0, 60.0), st.booleans())
def test_entropy_from_the_scores_matches_minus_sum_p_log_p(seed, dtype, n, spread, causal):
    rng = np.random.default_rng(seed)
    scores = (spread * rng.standard_normal((2, n, n))).astype(dtype)  # (h, n, n)
    allowed = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
    allowed[0] = False  # one empty row
    empty = ~allowed.any(axis=1)
    weights = masked_softmax(scores, allowed)
    got = softmax_entropy(weights, scores, weights.argmax(axis=-1), empty)
    p = weights.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=-1)  # (h, n)
    assert not np.signbit(got).any()
    np.testing.assert_array_equal(got[:, empty], 0.0)
    for h in range(2):
        for i in np.flatnonzero(~empty):
            largest = float(np.abs(scores[h, i][allowed[i]]).max())
            assert_close(got[h, i], want[h, i], dtype=dtype, reduction=n, scale=max(largest, want[h, i]))
