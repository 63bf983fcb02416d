"""Padding, causal and combined masks; a fully masked row has no NaN and says why."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, ConfigError, forward
from explorer.core.topics import check_no_nan, mask_layers


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 8), causal=st.booleans(), data=st.data())
def test_combined_is_padding_and_causal_and_matches_forward(n, causal, data):
    padding = data.draw(st.sets(st.integers(0, n - 1)))
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), causal=causal,
                             padding=padding)
    layers = mask_layers(config)
    result = forward(config)
    np.testing.assert_array_equal(layers.combined, result.mask)
    np.testing.assert_array_equal(layers.combined, layers.padding & layers.causal)
    np.testing.assert_array_equal(layers.empty_rows, result.empty_rows)
    for p in padding:
        assert not layers.padding[:, p].any()
    if causal:
        np.testing.assert_array_equal(layers.causal, np.tril(np.ones((n, n), bool)))
    else:
        assert layers.causal.all()
    assert set(layers.reasons) == set(np.flatnonzero(layers.empty_rows))
    assert check_no_nan(result)


def test_left_padding_with_causal_empties_row_zero_and_explains_it():
    config = AttentionConfig(tokens=("<pad>", "나는", "학교에", "버스로", "갔다"), padding={0},
                             causal=True)
    layers = mask_layers(config)
    assert list(layers.empty_rows) == [True, False, False, False, False]
    assert "causal" in layers.reasons[0] and "zero vector" in layers.reasons[0]
    result = forward(config)
    assert np.isfinite(result.weights).all()
    assert np.all(result.weights[:, 0] == 0) and np.all(result.output[0] == 0)
    assert list(layers.open_counts) == [0, 1, 2, 3, 4]


def test_all_padding_without_causal_explains_every_row():
    config = AttentionConfig(tokens=("a", "b"), padding={0, 1})
    layers = mask_layers(config)
    assert layers.empty_rows.all()
    assert "every key is padding" in layers.reasons[1]


def test_check_no_nan_catches_nan():
    result = forward(AttentionConfig())
    bad = result.weights.copy()
    bad[0, 0, 0] = np.nan
    object.__setattr__(result, "weights", bad)
    assert not check_no_nan(result)


def test_invalid_padding_is_a_config_error():
    with pytest.raises(ConfigError, match="outside the sentence"):
        mask_layers(AttentionConfig(tokens=("a",), padding={3}))
