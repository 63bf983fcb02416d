"""Reduced large heatmaps keep each row's maximum visible; small ones pass through unchanged."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from explorer.gui.plotting.heatmap_item import max_pool, pool_factor


def test_factor_is_one_while_every_cell_has_a_pixel():
    assert pool_factor(4, 300) == 1
    assert pool_factor(300, 300) == 1
    assert pool_factor(301, 300) == 2
    assert pool_factor(512, 300) == 2
    assert pool_factor(1024, 300) == 4
    assert pool_factor(512, 0) == 1


def test_small_matrices_pass_through_unchanged():
    weights = np.random.default_rng(0).random((4, 4))
    assert max_pool(weights, 1, 1) is weights


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.integers(1, 70), st.integers(1, 9), st.integers(1, 9),
       st.integers(0, 2**31 - 1))
def test_every_rows_maximum_survives_in_its_block(n, m, fr, fc, seed):
    matrix = np.random.default_rng(seed).random((n, m))
    pooled = max_pool(matrix, fr, fc)
    assert pooled.shape == (-(-n // fr), -(-m // fc))
    for row in range(n):
        col = int(matrix[row].argmax())
        block = pooled[row // fr, col // fc]
        assert block >= matrix[row, col]
        # and the block is exactly its largest cell: nothing brighter than what is there
        assert block == matrix[row // fr * fr:(row // fr + 1) * fr,
                               col // fc * fc:(col // fc + 1) * fc].max()


def test_attention_rows_keep_their_peak():
    """A softmax row with one sharp peak among 512 keys: the peak's block is the peak."""
    rng = np.random.default_rng(3)
    weights = rng.random((512, 512)) * 1e-3
    peaks = rng.integers(0, 512, 512)
    weights[np.arange(512), peaks] = 0.9
    pooled = max_pool(weights, 2, 2)
    assert np.all(pooled[np.arange(512) // 2, peaks // 2] == 0.9)


def test_pool_factor_never_exceeds_the_cells():
    """A Train-tab panel laid out ~0 px high gave pool_factor(24, 1.4e-14) = 1.7e15 and the
    pooling loop ran that many times on the GUI thread (found by the soak)."""
    from explorer.gui.plotting.heatmap_item import pool_factor
    assert pool_factor(24, 24 * 5.9e-16) == 24
    assert pool_factor(6, 0.13) == 6
    assert pool_factor(24, 12.0) == 2
