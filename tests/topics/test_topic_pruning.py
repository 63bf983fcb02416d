"""Head pruning: contributions sum to the output, masks drop exactly their heads."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, ConfigError, forward, model_input
from explorer.core.topics import (ALL_PRUNED_NOTE, head_contributions, head_importance,
                                  prune_heads)

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
    np.testing.assert_allclose(c.sum(axis=0), result.output, rtol=1e-11, atol=1e-11)
    all_on = prune_heads(result, np.ones(config.n_heads, bool))
    np.testing.assert_allclose(all_on.output, result.output, rtol=1e-11, atol=1e-11)
    assert all_on.delta_norm == pytest.approx(0.0, abs=1e-9)


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
    np.testing.assert_allclose(pruned.output, expected, rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(pruned.delta, expected - result.output, rtol=1e-11, atol=1e-11)
    assert pruned.delta_norm == pytest.approx(np.sqrt(((expected - result.output) ** 2).sum()))


def test_importance_is_the_contribution_norm_and_ranks_heads():
    result = forward(AttentionConfig())  # course-lab3
    imp = head_importance(result)
    c = head_contributions(result)
    for h in range(2):
        assert imp.contribution_norm[h] == pytest.approx(np.sqrt((c[h] ** 2).sum()))
        # removing head h alone moves the output by exactly ‖c_h‖
        mask = np.ones(2, bool)
        mask[h] = False
        assert prune_heads(result, mask).delta_norm == pytest.approx(imp.contribution_norm[h])
    assert imp.share.sum() == pytest.approx(1.0)
    assert list(imp.ranking()) == list(np.argsort(-imp.contribution_norm))
    np.testing.assert_allclose(imp.mean_entropy, result.stats.entropy.mean(axis=1))


def test_all_heads_pruned_gives_zero_output_and_a_note():
    result = forward(AttentionConfig())
    pruned = prune_heads(result, [False, False])
    assert pruned.all_pruned and pruned.note == ALL_PRUNED_NOTE
    assert np.all(pruned.output == 0)
    assert pruned.relative == pytest.approx(1.0)
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
    np.testing.assert_allclose(imp.mean_entropy, result.stats.entropy[:, 1:].mean(axis=1))
