"""Cross-attention against torch.nn.MultiheadAttention (float64) and our own forward."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, ConfigError, forward, model_input
from explorer.core.masks import build_mask
from explorer.core.topics import (ENCODER_SEED_OFFSET, CrossConfig, cross_attend,
                                  cross_attention, encoder_input)
from numeric import assert_close
from topic_support import attention_output_scale, attention_reduction, softmax_scale


def torch_mha(weights, n_heads, scaled):
    """MultiheadAttention holding our W's. torch computes x @ W.T, so it gets W.T.

    torch always divides by √d_head; for an unscaled reference W_Q is multiplied by √d_head.
    """
    d = weights.w_q.shape[0]
    mha = torch.nn.MultiheadAttention(d, n_heads, bias=False, batch_first=True,
                                      dtype=torch.float64)
    w_q = np.array(weights.w_q) * (1.0 if scaled else math.sqrt(d // n_heads))
    with torch.no_grad():
        in_proj = np.concatenate([w_q.T, weights.w_k.T, weights.w_v.T])  # (3d, d)
        mha.in_proj_weight.copy_(torch.tensor(in_proj))
        mha.out_proj.weight.copy_(torch.tensor(np.array(weights.w_o).T))
    return mha.eval()


def torch_cross(result, n_heads, scaled):
    weights, _, _ = model_input(result.config.decoder)
    mha = torch_mha(weights, n_heads, scaled)
    pad = torch.zeros(1, len(result.encoder_tokens), dtype=torch.bool)
    for p in result.config.encoder_padding:
        pad[0, p] = True  # True = ignore this key
    with torch.no_grad():
        out, w = mha(torch.tensor(result.x_dec)[None], torch.tensor(result.x_enc)[None],
                     torch.tensor(result.x_enc)[None], key_padding_mask=pad,
                     need_weights=True, average_attn_weights=False)
    return out[0].numpy(), w[0].numpy()


@settings(max_examples=25, deadline=None)
@given(n_dec=st.integers(1, 6), n_enc=st.integers(1, 7), heads=st.sampled_from([1, 2, 4]),
       d_head=st.integers(1, 6), seed=st.integers(0, 2**32 - 1), scaled=st.booleans(),
       positional=st.booleans(), data=st.data())
def test_cross_attention_equals_torch_multihead_attention(n_dec, n_enc, heads, d_head, seed,
                                                          scaled, positional, data):
    padding = data.draw(st.sets(st.integers(0, n_enc - 1), max_size=n_enc - 1))  # never all keys
    dec = AttentionConfig(tokens=tuple(f"d{i}" for i in range(n_dec)), d_model=heads * d_head,
                          n_heads=heads, seed=seed, scaled=scaled, positional=positional)
    result = cross_attention(CrossConfig(dec, tuple(f"e{j}" for j in range(n_enc)), padding))
    out, w = torch_cross(result, heads, scaled)
    assert result.weights.shape == (heads, n_dec, n_enc)
    d = heads * d_head
    assert_close(result.weights, w, dtype="float64",
                 reduction=attention_reduction(d, d_head, n_enc, output=False),
                 scale=softmax_scale(result.scores))
    assert_close(result.output, out, dtype="float64",
                 reduction=attention_reduction(d, d_head, n_enc),
                 scale=attention_output_scale(result.scores, result.output))
    assert np.all(result.weights[:, :, sorted(padding)] == 0)


def test_course_lab3_self_attention_equals_torch_mha():
    result = forward(AttentionConfig())  # course-lab3
    weights, _, _ = model_input(result.config)
    x = torch.tensor(result.x)[None]
    with torch.no_grad():
        out, w = torch_mha(weights, 2, True)(x, x, x, average_attn_weights=False)
    assert_close(result.output, out[0].numpy(), dtype="float64",
                 reduction=attention_reduction(8, 4, 4),
                 scale=attention_output_scale(result.scores, result.output))
    assert_close(result.weights, w[0].numpy(), dtype="float64",
                 reduction=attention_reduction(8, 4, 4, output=False),
                 scale=softmax_scale(result.scores))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), heads=st.sampled_from([1, 2, 3]), d_head=st.integers(1, 5),
       seed=st.integers(0, 1000), causal=st.booleans(), scaled=st.booleans())
def test_cross_attend_with_the_same_sentence_is_self_attention(n, heads, d_head, seed, causal,
                                                               scaled):
    config = AttentionConfig(tokens=tuple("abcdef"[:n]), d_model=heads * d_head, n_heads=heads,
                             seed=seed, causal=causal, scaled=scaled)
    expected = forward(config)
    weights, _, x = model_input(config)
    parts = cross_attend(x, x, weights, heads, build_mask(n, n, causal), scaled)
    d = heads * d_head
    assert_close(parts["weights"], expected.weights, dtype="float64",
                 reduction=attention_reduction(d, d_head, n, output=False),
                 scale=softmax_scale(expected.scores))
    assert_close(parts["output"], expected.output, dtype="float64",
                 reduction=attention_reduction(d, d_head, n),
                 scale=attention_output_scale(expected.scores, expected.output))


def test_encoder_input_is_the_documented_second_stream():
    x = encoder_input(seed=7, n_tokens=3, d_model=8)
    np.testing.assert_array_equal(x, np.random.RandomState(7 + ENCODER_SEED_OFFSET).randn(3, 8))
    # rows depend only on (seed, d, row): a longer encoder sentence keeps the first rows
    np.testing.assert_array_equal(encoder_input(7, 5, 8)[:3], x)
    # the largest seed wraps instead of overflowing
    assert encoder_input(2**32 - 1, 2, 4).shape == (2, 4)


def test_decoder_side_is_the_apps_self_attention_draw():
    dec = AttentionConfig()
    result = cross_attention(CrossConfig(dec, ("a", "b", "c")))
    np.testing.assert_array_equal(result.x_dec, forward(dec).x)
    np.testing.assert_array_equal(result.q, forward(dec).q)
    assert result.k.shape == (3, 8) and result.output.shape == (4, 8)


def test_all_encoder_tokens_padded_gives_zero_rows_not_nan():
    result = cross_attention(CrossConfig(AttentionConfig(), ("a", "b"), {0, 1}))
    assert result.empty_rows.all()
    assert np.all(result.weights == 0) and np.all(result.output == 0)
    assert np.isfinite(result.stats.entropy).all()


@pytest.mark.parametrize("encoder, padding, message", [
    ((), (), "encoder sentence is empty"),
    (("a", ""), (), "must not be empty"),
    (("a", "b"), (2,), "outside the encoder sentence"),
])
def test_bad_cross_settings_raise_config_error(encoder, padding, message):
    with pytest.raises(ConfigError, match=message):
        cross_attention(CrossConfig(AttentionConfig(), encoder, padding))


def test_decoder_config_is_validated_too():
    with pytest.raises(ConfigError, match="divisible"):
        cross_attention(CrossConfig(AttentionConfig(d_model=9, n_heads=2), ("a",)))
