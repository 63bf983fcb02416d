"""Q, K, V breakdown: products, head columns, the course's printed numbers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, forward
from explorer.core.topics import qkv_breakdown
from numeric import assert_close


def test_course_lab3_head0_query_row_is_the_printed_one():
    b = qkv_breakdown(forward(AttentionConfig()))
    # the course prints two decimals: rounded to them, the numbers are the printed ones exactly
    np.testing.assert_array_equal(np.round(b.head_slice(0).q[0], 2), [-1.19, -2.72, -0.72, 2.36])
    assert b.head_slice(1).label == "head 1: columns 4 … 7"
    assert [name for name, _ in b.matrices()][:4] == ["X", "W_Q", "W_K", "W_V"]
    assert [a.shape for _, a in b.matrices()] == [(4, 8)] + [(8, 8)] * 3 + [(4, 8)] * 3


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 6), heads=st.integers(1, 4), d_head=st.integers(1, 5),
       seed=st.integers(0, 1000), positional=st.booleans())
def test_products_and_head_columns(n, heads, d_head, seed, positional):
    config = AttentionConfig(tokens=tuple("abcdef"[:n]), d_model=heads * d_head, n_heads=heads,
                             seed=seed, positional=positional)
    b = qkv_breakdown(forward(config))
    d = heads * d_head  # each entry sums d_model products
    assert_close(b.q, b.x_in @ b.w_q, dtype="float64", reduction=d)
    assert_close(b.k, b.x_in @ b.w_k, dtype="float64", reduction=d)
    assert_close(b.v, b.x_in @ b.w_v, dtype="float64", reduction=d)
    for h in range(heads):
        cols = list(b.head_columns(h))
        assert cols == list(range(h * d_head, (h + 1) * d_head))
        s = b.head_slice(h)
        assert (s.first_col, s.last_col) == (cols[0], cols[-1])
        np.testing.assert_array_equal(s.q, b.q[:, cols])
        np.testing.assert_array_equal(s.k, b.k[:, cols])
        np.testing.assert_array_equal(s.v, b.v[:, cols])


def test_head_out_of_range():
    with pytest.raises(IndexError):
        qkv_breakdown(forward(AttentionConfig())).head_columns(2)
