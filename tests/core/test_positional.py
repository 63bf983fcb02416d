"""Sinusoidal positional encoding against the formula, and the relative-offset property."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, forward, offset_map, similarity, sinusoidal_table

from numeric import assert_close


def formula(pos, col, d):
    """Vaswani et al.: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same)."""
    angle = pos / 10000 ** (2 * (col // 2) / d)
    return math.sin(angle) if col % 2 == 0 else math.cos(angle)


@pytest.mark.parametrize("n,d", [(1, 1), (4, 8), (7, 5), (50, 64), (3, 2)])
def test_table_matches_the_formula(n, d):
    pe = sinusoidal_table(n, d)
    assert pe.shape == (n, d)
    expected = np.array([[formula(p, c, d) for c in range(d)] for p in range(n)]).reshape(n, d)
    # sin of an angle up to n − 1 radians, computed two ways: off by eps·|angle|
    assert_close(pe, expected, scale=n - 1)


@settings(max_examples=50, deadline=None, database=None)
@given(st.integers(1, 200), st.integers(1, 128))
def test_values_lie_in_minus_one_one(n, d):
    pe = sinusoidal_table(n, d)
    assert np.all(pe >= -1.0) and np.all(pe <= 1.0)
    np.testing.assert_array_equal(pe[0, 0::2], 0.0)  # sin 0
    np.testing.assert_array_equal(pe[0, 1::2], 1.0)  # cos 0


@settings(max_examples=80, deadline=None, database=None)
@given(st.integers(1, 32).map(lambda i: 2 * i), st.integers(0, 100), st.integers(-50, 50))
def test_offset_map_shifts_position_for_even_d(d, pos, k):
    """PE(pos + k) = PE(pos) @ M_k: one fixed matrix per offset, whatever pos."""
    pe = np.array([formula(p, c, d) for p in (pos, pos + k) for c in range(d)]).reshape(2, d)
    m = offset_map(d, k)
    assert m.shape == (d, d)
    # angles up to pos + |k| (the formula's) and |k| (the map's), then a d-term product
    assert_close(pe[0] @ m, pe[1], reduction=d, scale=pos + abs(k))
    assert_close(m @ m.T, np.eye(d), reduction=d)  # a rotation: length kept


@settings(max_examples=50, deadline=None, database=None)
@given(st.integers(0, 31).map(lambda i: 2 * i + 1), st.integers(0, 100), st.integers(1, 50))
def test_offset_map_for_odd_d_covers_all_but_the_lone_sine(d, pos, k):
    """Odd d: the first d-1 columns (complete sin/cos pairs) shift exactly; the last column is a
    sine with no cosine partner, so no linear map can shift it — offset_map leaves it as is."""
    pe = np.array([formula(p, c, d) for p in (pos, pos + k) for c in range(d)]).reshape(2, d)
    shifted = pe[0] @ offset_map(d, k)
    assert_close(shifted[:-1], pe[1, :-1], reduction=d, scale=pos + k)
    assert shifted[-1] == pe[0, -1]  # identity on the lone column: exact (one 1, zeros elsewhere)


@pytest.mark.parametrize("d", [2, 8, 64])
def test_similarity_depends_only_on_the_distance_for_even_d(d):
    n = 12
    sim = similarity(sinusoidal_table(n, d))
    assert_close(sim, sim.T, reduction=d)  # d-term dot products; |sim| ≤ d / 2
    for offset in range(n):
        diagonal = np.diagonal(sim, offset)
        # each term off by eps·|angle| (angles up to n − 1), d terms summed
        assert_close(diagonal, diagonal[0], reduction=d, scale=max(d / 2, n - 1))
    assert_close(np.diagonal(sim), d / 2, reduction=d)  # sin^2 + cos^2 per pair


def test_positional_adds_the_table_to_x():
    plain = forward(AttentionConfig())
    with_pe = forward(AttentionConfig(positional=True))
    assert plain.pe is None
    np.testing.assert_array_equal(with_pe.pe, sinusoidal_table(4, 8))  # the same table
    np.testing.assert_array_equal(with_pe.x, plain.x)
    np.testing.assert_array_equal(with_pe.x_in, plain.x + with_pe.pe)  # the same one addition


def test_table_is_read_only():
    with pytest.raises(ValueError):
        sinusoidal_table(4, 8)[0, 0] = 5.0
