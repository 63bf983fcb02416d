"""Role scores and switch steps against hand-built attention matrices."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.training import (induction_score, phase_change_step, previous_token_score,
                                    role_scores, switch_step, switch_steps)

from numeric import assert_close


def shifted(t: int, back: int) -> np.ndarray:
    """Each query i attends only to key i − back (or to itself if that does not exist). (T, T)"""
    a = np.zeros((t, t))
    for i in range(t):
        a[i, i - back if i >= back else i] = 1.0
    return a


def uniform_causal(t: int) -> np.ndarray:
    return np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]


def test_a_perfect_previous_token_head_scores_one_and_no_induction():
    a = shifted(24, 1)
    assert previous_token_score(a) == 1.0
    # induction looks L − 1 = 11 back; a previous-token head puts nothing there
    assert induction_score(a) == 0.0


def test_a_perfect_induction_head_scores_one():
    t, half = 24, 12
    a = uniform_causal(t)
    a[half:] = 0.0
    for i in range(half, t):
        a[i, i - half + 1] = 1.0  # the token after the earlier copy of token i
    assert induction_score(a) == 1.0
    # a mean over the T − 1 queries, of weights computed another way: float64 rounding
    assert_close(previous_token_score(a), np.mean([1 / (i + 1) for i in range(1, half)]) * (half - 1) / (t - 1),
                 reduction=t)


def test_a_head_one_position_off_the_induction_line_scores_zero():
    assert induction_score(shifted(24, 12)) == 0.0  # the earlier copy itself, not the token after it


def test_uniform_causal_attention_gives_the_harmonic_means():
    t = 24
    a = uniform_causal(t)
    assert_close(previous_token_score(a), np.mean([1 / (i + 1) for i in range(1, t)]), reduction=t)
    assert_close(induction_score(a), np.mean([1 / (i + 1) for i in range(12, 24)]), reduction=t)


def test_role_scores_stack_both_roles_over_leading_axes():
    a = np.stack([shifted(8, 1), shifted(8, 3)])[None]  # (1 layer, 2 heads, 8, 8)
    s = role_scores(a)
    assert s.shape == (1, 2, 2)
    np.testing.assert_array_equal(s[0, 0], [1.0, 0.0])  # one-hot rows: exact, as above
    np.testing.assert_array_equal(s[0, 1], [0.0, 1.0])  # L = 4: i − L + 1 = i − 3


@settings(max_examples=50, deadline=None)
@given(t=st.integers(4, 20), seed=st.integers(0, 2**16))
def test_scores_of_any_row_stochastic_matrix_lie_in_0_1(t, seed):
    logits = np.random.default_rng(seed).normal(size=(t, t)) * 3
    a = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    for score in (previous_token_score(a), induction_score(a)):
        assert 0.0 <= score <= 1.0


def test_switch_step_is_the_first_step_from_which_the_score_stays_above_threshold():
    steps = np.array([0, 10, 20, 30, 40, 50])
    assert switch_step(steps, [0.1, 0.35, 0.2, 0.4, 0.6, 0.7], 0.3) == 30  # the blip at 10 fell back
    assert switch_step(steps, [0.3, 0.4, 0.5, 0.6, 0.7, 0.8], 0.3) == 0
    assert switch_step(steps, [0.1, 0.5, 0.6, 0.7, 0.8, 0.2], 0.3) is None  # fell back at the end
    assert switch_step(steps[:0], [], 0.3) is None


def test_switch_steps_per_head_and_the_phase_change():
    steps = np.array([0, 10, 20, 30])
    scores = np.zeros((4, 2, 2, 2))  # (logged, layers, heads, roles)
    scores[2:, 0, 1, 0] = 0.6   # layer 0 head 1: previous-token from step 20
    scores[3:, 1, 0, 1] = 0.8   # layer 1 head 0: induction from step 30
    switches = switch_steps(steps, scores, 0.3)
    assert switches[0][1] == {"previous_token": 20, "induction": None}
    assert switches[1][0] == {"previous_token": None, "induction": 30}
    assert switches[0][0] == {"previous_token": None, "induction": None}
    assert phase_change_step(switches) == 30
    assert phase_change_step(switches[:1]) is None  # one layer: no induction circuit
    scores[:, 1, 0, 1] = 0.0
    assert phase_change_step(switch_steps(steps, scores, 0.3)) is None
