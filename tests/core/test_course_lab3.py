"""The course-lab3 preset reproduces the numbers printed in the course (Lab 3).

The tables below are copied from the course text (/work/shared/course-lab3.md), not from our code.
"""

import numpy as np
import pytest

from explorer.core import AttentionConfig, forward, get_preset

TOKENS = ("나는", "학교에", "버스로", "갔다")

# Printed by the course, 2 decimals; rows = query, columns = key.
COURSE_HEAD0 = [
    [0.13, 0.04, 0.57, 0.26],
    [0.12, 0.69, 0.01, 0.18],
    [0.16, 0.71, 0.02, 0.11],
    [0.08, 0.80, 0.01, 0.11],
]
COURSE_HEAD1 = [
    [0.05, 0.89, 0.03, 0.03],
    [0.06, 0.49, 0.10, 0.34],
    [0.56, 0.01, 0.34, 0.10],
    [0.22, 0.09, 0.46, 0.22],
]
COURSE_SPLIT_Q_HEAD0_TOKEN0 = [-1.19, -2.72, -0.72, 2.36]
COURSE_MOST_ATTENDED = {
    0: {"나는": "버스로", "학교에": "학교에", "버스로": "학교에", "갔다": "학교에"},
    1: {"나는": "학교에", "학교에": "학교에", "버스로": "나는", "갔다": "버스로"},
}

BACKENDS = [("numpy", "float64"), ("torch", "float64"), ("numpy", "float32"), ("torch", "float32")]


def rounded(a, decimals=2):
    """Round as the course prints: the value in float64, to `decimals` places."""
    return np.round(np.asarray(a, dtype=np.float64), decimals)


def course_result(backend="numpy", dtype="float64"):
    config = get_preset("course-lab3").config.replace(backend=backend, dtype=dtype)
    return forward(config)


def test_preset_is_the_course_setting():
    config = get_preset("course-lab3").config
    assert config.tokens == TOKENS
    assert (config.d_model, config.n_heads, config.d_head, config.seed) == (8, 2, 4, 1)
    assert config.scaled and not config.causal and not config.positional and not config.padding


@pytest.mark.parametrize("backend,dtype", BACKENDS)
def test_head_weights_match_the_course_table(backend, dtype):
    weights = course_result(backend, dtype).weights  # (2, 4, 4)
    assert weights.shape == (2, 4, 4)
    np.testing.assert_array_equal(rounded(weights[0]), COURSE_HEAD0)
    np.testing.assert_array_equal(rounded(weights[1]), COURSE_HEAD1)


@pytest.mark.parametrize("backend,dtype", BACKENDS)
def test_split_q_of_first_token(backend, dtype):
    result = course_result(backend, dtype)
    np.testing.assert_array_equal(rounded(result.qh[0, 0]), COURSE_SPLIT_Q_HEAD0_TOKEN0)
    # the course's remark: head 0 of token 0 is the first 4 columns of Q's first row
    np.testing.assert_array_equal(result.qh[0, 0], result.q[0, :4])


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_shapes_printed_by_the_course(backend):
    r = course_result(backend)
    assert r.x.shape == (4, 8)
    assert r.q.shape == r.k.shape == r.v.shape == (4, 8)
    assert r.qh.shape == r.kh.shape == r.vh.shape == (2, 4, 4)
    assert r.head_outputs.shape == (2, 4, 4)
    assert r.concat.shape == (4, 8)
    assert r.output.shape == (4, 8)
    assert r.param_count == 256


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_most_attended_key_per_query(backend):
    r = course_result(backend)
    for head, expected in COURSE_MOST_ATTENDED.items():
        got = {TOKENS[q]: TOKENS[k] for q, k in enumerate(r.stats.argmax[head])}
        assert got == expected, f"head {head}"


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_parameter_count_is_256_whatever_the_heads(n_heads):
    r = forward(AttentionConfig(d_model=8, n_heads=n_heads))
    assert r.param_count == 256


@pytest.mark.parametrize("d_model,n_heads", [(1, 1), (6, 3), (12, 4), (64, 8), (100, 5)])
def test_parameter_count_is_four_d_squared(d_model, n_heads):
    r = forward(AttentionConfig(d_model=d_model, n_heads=n_heads))
    assert r.param_count == 4 * d_model * d_model
