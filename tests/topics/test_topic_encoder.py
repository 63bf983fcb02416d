"""The encoder block against torch.nn.TransformerEncoderLayer loaded with our weights (float64)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, ConfigError, forward, model_input
from explorer.core.topics import (FFN_SEED_OFFSET, EncoderConfig, draw_ffn, encoder_block, gelu,
                                  layer_norm)


def _t(a):
    return torch.tensor(np.array(a), dtype=torch.float64)


def torch_layer(config: EncoderConfig):
    att = config.attention
    weights, _, _ = model_input(att)
    ffn = draw_ffn(att.seed, att.d_model, config.ffn_width)
    layer = torch.nn.TransformerEncoderLayer(
        att.d_model, att.n_heads, dim_feedforward=config.ffn_width, dropout=0.0,
        activation=config.activation, batch_first=True, norm_first=config.norm_first,
        dtype=torch.float64)
    sa = layer.self_attn
    with torch.no_grad():  # torch computes x @ W.T: load transposes
        sa.in_proj_weight.copy_(_t(np.concatenate([weights.w_q.T, weights.w_k.T, weights.w_v.T])))
        sa.in_proj_bias.zero_()
        sa.out_proj.weight.copy_(_t(weights.w_o.T))
        sa.out_proj.bias.zero_()
        layer.linear1.weight.copy_(_t(ffn.w_1.T))
        layer.linear1.bias.copy_(_t(ffn.b_1))
        layer.linear2.weight.copy_(_t(ffn.w_2.T))
        layer.linear2.bias.copy_(_t(ffn.b_2))
        for norm in (layer.norm1, layer.norm2):
            norm.weight.fill_(1.0)
            norm.bias.zero_()
    return layer.eval()


def torch_block(config: EncoderConfig) -> np.ndarray:
    att = config.attention
    _, _, x = model_input(att)
    n = att.n_tokens
    src_mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1) if att.causal else None
    pad = torch.zeros(1, n, dtype=torch.bool)
    pad[0, sorted(att.padding)] = True
    with torch.no_grad():
        out = torch_layer(config)(_t(x)[None], src_mask=src_mask,
                                  src_key_padding_mask=pad if att.padding else None)
    return out[0].numpy()


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), heads=st.sampled_from([1, 2, 4]), d_head=st.integers(1, 6),
       seed=st.integers(0, 2**32 - 1), norm_first=st.booleans(),
       activation=st.sampled_from(["gelu", "relu"]), causal=st.booleans(),
       positional=st.booleans(), data=st.data())
def test_encoder_block_equals_torch_transformer_encoder_layer(n, heads, d_head, seed, norm_first,
                                                              activation, causal, positional, data):
    # padding that never empties a row: with causal, position 0 must stay a real token
    low = 1 if causal else 0
    padding = set()
    if n > 1:
        padding = data.draw(st.sets(st.integers(low, n - 1), max_size=n - 1))
    att = AttentionConfig(tokens=tuple("abcdef"[:n]), d_model=heads * d_head, n_heads=heads,
                          seed=seed, causal=causal, padding=padding, positional=positional)
    config = EncoderConfig(att, norm_first=norm_first, activation=activation)
    ours = encoder_block(config)
    np.testing.assert_allclose(ours.output, torch_block(config), rtol=1e-9, atol=1e-9)


def test_course_lab3_post_ln_and_pre_ln_differ_but_both_match_torch():
    post = EncoderConfig(AttentionConfig(), norm_first=False)
    pre = EncoderConfig(AttentionConfig(), norm_first=True)
    a, b = encoder_block(post), encoder_block(pre)
    np.testing.assert_allclose(a.output, torch_block(post), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(b.output, torch_block(pre), rtol=1e-10, atol=1e-10)
    assert not np.allclose(a.output, b.output)
    # Post-LN output rows are normalised; Pre-LN output rows are not
    np.testing.assert_allclose(a.output.mean(axis=-1), 0, atol=1e-12)
    assert a.output.shape == b.output.shape == (4, 8)


def test_post_ln_attention_stage_is_the_core_forward():
    config = EncoderConfig(AttentionConfig(causal=True))
    block = encoder_block(config)
    core = forward(config.attention)
    np.testing.assert_allclose(block.stage("attention"), core.output, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(block.weights, core.weights, rtol=1e-12, atol=1e-14)


def test_stage_norms_are_the_norms_of_the_stages():
    block = encoder_block(EncoderConfig(AttentionConfig(), norm_first=True))
    names = block.stage_names()
    assert names[0] == "x" and names[-1].startswith("output")
    for i, (_, arr) in enumerate(block.stages):
        assert block.stage_norms()[i] == pytest.approx(math.sqrt((arr ** 2).sum()))
        np.testing.assert_allclose(block.row_norms()[i], np.sqrt((arr ** 2).sum(axis=1)))
    np.testing.assert_array_equal(block.stages[-1][1], block.output)


def test_ffn_weights_are_the_documented_third_stream():
    ffn = draw_ffn(5, 8, 32)
    rng = np.random.RandomState(5 + FFN_SEED_OFFSET)
    np.testing.assert_array_equal(ffn.w_1, rng.randn(8, 32) / math.sqrt(8))
    np.testing.assert_array_equal(ffn.b_1, rng.randn(32) * 0.1)
    np.testing.assert_array_equal(ffn.w_2, rng.randn(32, 8) / math.sqrt(32))
    np.testing.assert_array_equal(ffn.b_2, rng.randn(8) * 0.1)
    assert draw_ffn(2**32 - 1, 4, 16).w_1.shape == (4, 16)  # seed wraps, no overflow


def test_default_d_ff_is_four_d_model_and_custom_width_is_used():
    att = AttentionConfig()
    assert encoder_block(EncoderConfig(att)).ffn_hidden.shape == (4, 32)
    assert encoder_block(EncoderConfig(att, d_ff=3)).ffn_hidden.shape == (4, 3)


def test_gelu_and_layer_norm_match_torch():
    x = np.linspace(-9, 9, 301)
    ref = torch.nn.functional.gelu(_t(x)).numpy()
    np.testing.assert_allclose(gelu(x), ref, rtol=1e-14, atol=1e-15)
    m = np.random.RandomState(0).randn(5, 7) * 3 + 1
    ref = torch.nn.functional.layer_norm(_t(m), (7,), eps=1e-5).numpy()
    np.testing.assert_allclose(layer_norm(m), ref, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("kwargs, message", [
    ({"d_ff": 0}, "d_ff must be between 1"),
    ({"d_ff": -4}, "d_ff must be between 1"),
    ({"d_ff": 2.5}, "whole number"),
    ({"activation": "tanh"}, "unknown activation"),
    ({"norm_first": "yes"}, "true or false"),
])
def test_bad_encoder_settings_raise_config_error(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        encoder_block(EncoderConfig(AttentionConfig(), **kwargs))


def test_fully_masked_row_stays_finite_in_the_block():
    att = AttentionConfig(tokens=("<pad>", "a", "b"), padding={0}, causal=True)
    block = encoder_block(EncoderConfig(att, norm_first=True))
    assert np.isfinite(block.output).all()
    assert np.all(block.weights[:, 0] == 0)
