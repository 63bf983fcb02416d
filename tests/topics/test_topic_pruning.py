"""Head pruning: contributions sum to the output, masks drop exactly their heads."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, ConfigError, forward, model_input
from explorer.core.topics import (ALL_PRUNED_NOTE, head_contributions, head_importance,
                                  prune_heads)
from numeric import assert_close

configs = st.builds(
    lambda n, h, dh, seed, causal: AttentionConfig(tokens=tuple("abcdefg"[:n]), d_model=h * dh,
                                                   n_heads=h, seed=seed, causal=causal),
    st.integers(1, 7), st.integers(1, 5), st.integers(1, 4), st.integers(0, 10_000), st.booleans())


@settings(max_examples=30, deadline=None)
@given(config=configs)
def test_contributions_sum_to_the_forward_output(config):
    result = forward(config)
    c = head_contributions(result)
    assert c.shape == (config.n_heads, config.n_tokens, config.d_model)
    n, d = config.n_tokens, config.d_model
    # both sum the d_model products head_out · W_O of each output entry (in other groupings)
    assert_close(c.sum(axis=0), result.output, dtype="float64", reduction=d)
    all_on = prune_heads(result, np.ones(config.n_heads, bool))
    assert_close(all_on.output, result.output, dtype="float64", reduction=d)
    # ‖Δ‖ over n · d entries, each within the rule for d terms
    assert_close(all_on.delta_norm, 0.0, dtype="float64", reduction=d * n * d,
                 scale=np.abs(result.output).max())


@settings(max_examples=30, deadline=None)
@given(config=configs, data=st.data())
def test_keeping_one_head_equals_that_heads_own_pass(config, data):
    """Independent oracle: zero every other head's output, then concat · W_O."""
    result = forward(config)
    keep = data.draw(st.integers(0, config.n_heads - 1))
    mask = np.zeros(config.n_heads, bool)
    mask[keep] = True
    pruned = prune_heads(result, mask)
    head_out = np.zeros_like(result.head_outputs)
    head_out[keep] = result.head_outputs[keep]
    concat = head_out.transpose(1, 0, 2).reshape(config.n_tokens, config.d_model)
    expected = concat @ model_input(config)[0].w_o
    n, d = config.n_tokens, config.d_model
    assert_close(pruned.output, expected, dtype="float64", reduction=d)  # concat · W_O
    # a difference of two such outputs: its errors scale with theirs, not with the difference
    size = max(np.abs(expected).max(), np.abs(result.output).max())
    assert_close(pruned.delta, expected - result.output, dtype="float64", reduction=d, scale=size)
    norm = np.sqrt(((expected - result.output) ** 2).sum())
    assert_close(pruned.delta_norm, norm, dtype="float64", reduction=d * n * d,
                 scale=max(size, norm))  # ‖Δ‖ over n · d entries


def test_importance_is_the_contribution_norm_and_ranks_heads():
    result = forward(AttentionConfig())  # course-lab3
    imp = head_importance(result)
    c = head_contributions(result)
    n, d, d_head = 4, 8, 4
    for h in range(2):
        # ‖c_h‖ over n · d entries, each a sum of d_head products
        norm = np.sqrt((c[h] ** 2).sum())
        assert_close(imp.contribution_norm[h], norm, dtype="float64", reduction=n * d * d_head)
        # removing head h alone moves the output by ‖c_h‖ (up to rounding: Δ is the difference
        # of two outputs of d_model-term sums, its errors scale with the output's size)
        mask = np.ones(2, bool)
        mask[h] = False
        assert_close(prune_heads(result, mask).delta_norm, imp.contribution_norm[h],
                     dtype="float64", reduction=n * d * d,
                     scale=max(norm, np.abs(result.output).max()))
    assert_close(imp.share.sum(), 1.0, dtype="float64", reduction=2)  # 2 shares of one total
    assert list(imp.ranking()) == list(np.argsort(-imp.contribution_norm))
    assert_close(imp.mean_entropy, result.stats.entropy.mean(axis=1), dtype="float64",
                 reduction=n)  # the mean over 4 query rows


def test_all_heads_pruned_gives_zero_output_and_a_note():
    result = forward(AttentionConfig())
    pruned = prune_heads(result, [False, False])
    assert pruned.all_pruned and pruned.note == ALL_PRUNED_NOTE
    assert np.all(pruned.output == 0)
    assert pruned.relative == 1.0  # ‖0 − y‖ / ‖y‖: the same norm twice, exactly 1
    assert prune_heads(result, [True, False]).note == ""


@pytest.mark.parametrize("mask, message", [
    ([True], "one entry per head"),
    ([[True, False]], "one entry per head"),
    ([2, 0], "on/off"),
])
def test_bad_head_masks_raise_config_error(mask, message):
    with pytest.raises(ConfigError, match=message):
        prune_heads(forward(AttentionConfig()), mask)


def test_empty_rows_are_left_out_of_the_entropy_mean():
    config = AttentionConfig(tokens=("<pad>", "a", "b"), padding={0}, causal=True)
    result = forward(config)
    imp = head_importance(result)
    assert_close(imp.mean_entropy, result.stats.entropy[:, 1:].mean(axis=1), dtype="float64",
                 reduction=2)  # the mean over the 2 rows that are not empty
