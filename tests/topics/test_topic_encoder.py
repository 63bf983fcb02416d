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
from numeric import assert_close
from topic_support import (attention_output_scale, attention_reduction, encoder_rule,
                           layer_norm_gain, softmax_scale)


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
    assert_close(ours.output, torch_block(config), **encoder_rule(ours))


def test_course_lab3_post_ln_and_pre_ln_differ_but_both_match_torch():
    post = EncoderConfig(AttentionConfig(), norm_first=False)
    pre = EncoderConfig(AttentionConfig(), norm_first=True)
    a, b = encoder_block(post), encoder_block(pre)
    assert_close(a.output, torch_block(post), **encoder_rule(a))
    assert_close(b.output, torch_block(pre), **encoder_rule(b))
    assert np.abs(a.output - b.output).max() > 0.1  # not rounding: a different block
    # Post-LN output rows are normalised (mean 0: the final LayerNorm's two means over d_model,
    # errors amplified by its gain); Pre-LN output rows are not
    assert_close(a.output.mean(axis=-1), 0.0, dtype="float64", reduction=2 * 8,
                 scale=layer_norm_gain(a.stage("h + FFN")))
    assert a.output.shape == b.output.shape == (4, 8)


def test_post_ln_attention_stage_is_the_core_forward():
    config = EncoderConfig(AttentionConfig(causal=True))
    block = encoder_block(config)
    core = forward(config.attention)
    assert_close(block.stage("attention"), core.output, dtype="float64",
                 reduction=attention_reduction(8, 4, 4),
                 scale=attention_output_scale(core.scores, core.output))
    assert_close(block.weights, core.weights, dtype="float64",
                 reduction=attention_reduction(8, 4, 4, output=False),
                 scale=softmax_scale(core.scores))


def test_stage_norms_are_the_norms_of_the_stages():
    block = encoder_block(EncoderConfig(AttentionConfig(), norm_first=True))
    names = block.stage_names()
    assert names[0] == "x" and names[-1].startswith("output")
    for i, (_, arr) in enumerate(block.stages):  # sums of squares of the same (4, 8) stage
        assert_close(block.stage_norms()[i], math.sqrt((arr ** 2).sum()), dtype="float64",
                     reduction=4 * 8)
        assert_close(block.row_norms()[i], np.sqrt((arr ** 2).sum(axis=1)), dtype="float64",
                     reduction=8)
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
    # elementwise; x/2 · (1 + erf): 1 + erf(x/√2) is off by eps near x = −9, times |x|
    assert_close(gelu(x), ref, dtype="float64", scale=np.abs(x).max())
    m = np.random.RandomState(0).randn(5, 7) * 3 + 1
    ref = torch.nn.functional.layer_norm(_t(m), (7,), eps=1e-5).numpy()
    # a mean and a variance over 7 entries, errors amplified by the row's gain
    assert_close(layer_norm(m), ref, dtype="float64", reduction=2 * 7, scale=layer_norm_gain(m))


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
