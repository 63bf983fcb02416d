"""The PEFT topic's maths (core.topics.peft): LoRA, IA³, prefix and prompt tuning on the course's
random weights, checked against the course's forward (exact), hand formulas, and peft itself."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import PRESETS, AttentionConfig, ConfigError, forward, model_input
from explorer.core.backends.numpy_ops import self_attention
from explorer.core.config import divisors
from explorer.core.masks import build_mask
from explorer.core.topics.peft import (LORA_TARGETS, PeftConfig, delta_singular_values,
                                       delta_weight, draw_lora, lora_attention, lora_project,
                                       lora_scale, merged_weights, parameter_counts, peft_topic,
                                       prompt_mask)
from numeric import assert_close
from topic_support import attention_reduction, softmax_scale

LAB3 = PRESETS["course-lab3"].config
PAD = "<pad>"
# a leading <pad> with the causal mask: query 0 has no open key in the base
EMPTY_ROW = AttentionConfig(tokens=(PAD, "a", "b", PAD, "c"), d_model=12, n_heads=3, seed=5,
                            causal=True, padding=frozenset({0, 3}))
CONFIGS = [LAB3, LAB3.replace(causal=True, positional=True), EMPTY_ROW,
           AttentionConfig(tokens=tuple("abcdef"), d_model=16, n_heads=4, seed=3, init="unit")]


def course(config):
    return forward(config.replace(dtype="float64", backend="numpy"))


def merged_rule(config, rank, scores) -> dict:
    """merged (x·(W + ΔW)) against unmerged (x·W + s·(x·Aᵀ)·Bᵀ): the projections sum d_model + r
    terms in another order; then one attention layer; the softmax carries the scores' size."""
    d, n = config.d_model, config.n_tokens
    return {"dtype": "float64", "reduction": attention_reduction(d, config.d_head, n) + rank,
            "scale": softmax_scale(scores)}


# ----- B = 0: the adapted model is the base, bit for bit -------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
@pytest.mark.parametrize("target", LORA_TARGETS)
def test_b_zero_gives_the_base_attention_exactly(config, target):
    base = course(config)
    for b_init, steps in (("zero", 20), ("trained", 0)):
        result = peft_topic(PeftConfig(config, target=target, rank=3, alpha=16, b_init=b_init,
                                       steps=steps))
        assert not result.lora.b.any() and not result.lora.delta.any()
        np.testing.assert_array_equal(result.weights, base.weights)
        np.testing.assert_array_equal(result.output, base.output)
        np.testing.assert_array_equal(result.base_weights, base.weights)
        assert result.lora.check.max_difference == 0.0 and result.lora.check.ok


def test_ia3_strength_zero_gives_the_base_attention_exactly():
    for config in CONFIGS:
        result = peft_topic(PeftConfig(config, method="ia3", ia3_strength=0.0))
        np.testing.assert_array_equal(result.weights, course(config).weights)
        np.testing.assert_array_equal(result.output, course(config).output)


# ----- merged = unmerged ---------------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
@pytest.mark.parametrize("target", LORA_TARGETS)
@pytest.mark.parametrize("b_init", ["seed", "trained"])
def test_merged_weight_gives_the_unmerged_attention_to_float64_rounding(config, target, b_init):
    rank = 2
    result = peft_topic(PeftConfig(config, target=target, rank=rank, alpha=8, b_init=b_init,
                                   steps=5, adapter_seed=11))
    lora = result.lora
    assert lora.b.any()
    # merged the way peft's merge_and_unload does it, (out, in) += scale · B·A, transposed
    weights, _, x_in = model_input(config.replace(dtype="float64"))
    merged = merged_weights(weights, target, (lora.scale * (lora.b @ lora.a)).T)
    allowed = build_mask(config.n_tokens, config.n_tokens, config.causal, config.padding)
    expected = self_attention(x_in, merged, config.n_heads, allowed, config.scaled)
    rule = merged_rule(config, rank, expected["scores"])
    assert_close(result.weights, expected["weights"], **rule)
    out_size = max(1.0, float(np.abs(expected["output"]).max()))
    assert_close(result.output, expected["output"], dtype="float64",
                 reduction=rule["reduction"] + config.n_tokens + config.d_model,
                 scale=rule["scale"] * out_size)
    assert lora.check.ok and lora.check.max_difference < 1e-12


def test_the_merge_check_fails_when_merged_and_unmerged_differ():
    """The ✓ is a real comparison: a check handed a wrong merged picture says ✗."""
    from explorer.core.topics.peft import merge_check
    weights, _, x_in = model_input(LAB3)
    allowed = np.ones((4, 4), bool)
    a, b = draw_lora(1, 2, 8, 8, "seed")
    unmerged = lora_attention(x_in, weights, "q", a, b, 4.0, 2, allowed, True)
    right = self_attention(x_in, merged_weights(weights, "q", delta_weight(a, b, 4.0)), 2, allowed, True)
    wrong = self_attention(x_in, merged_weights(weights, "q", delta_weight(a, b, 2.0)), 2, allowed, True)
    assert merge_check(right, unmerged, 8, 2, 4).ok
    assert not merge_check(wrong, unmerged, 8, 2, 4).ok


def test_unmerged_projection_is_x_w_plus_scaled_low_rank_path():
    rng = np.random.RandomState(0)
    x, w = rng.randn(5, 6), rng.randn(6, 6)
    a, b = draw_lora(3, 2, 6, 6, "seed")
    expected = x @ w + 2.5 * (x @ a.T @ b.T)
    assert_close(lora_project(x, w, a, b, 2.5), expected, dtype="float64", reduction=6 + 2)
    zero = np.zeros_like(b)
    np.testing.assert_array_equal(lora_project(x, w, a, zero, 2.5), x @ w)


# ----- ΔW, its rank and its singular values --------------------------------------------------
@pytest.mark.parametrize("rank", [1, 2, 5, 8])
def test_delta_w_has_rank_at_most_r(rank):
    d = 8
    a, b = draw_lora(7, rank, d, d, "seed")
    delta = delta_weight(a, b, lora_scale(16, rank))
    sv = np.linalg.svd(delta, compute_uv=False)  # (d,) the oracle: a full SVD of ΔW
    size = float(sv[0])
    assert_close(sv[rank:], 0.0, dtype="float64", reduction=d * rank, scale=size)
    assert sv[rank - 1] > 1e-3 * size  # exactly r of them are not 0 (a random draw)
    assert_close(delta_singular_values(a, b, lora_scale(16, rank)), sv[:rank], dtype="float64",
                 reduction=d * rank, scale=size)


def test_a_is_kaiming_uniform_and_grows_by_rows():
    a2, b2 = draw_lora(4, 2, 64, 32, "seed")
    a5, b5 = draw_lora(4, 5, 64, 32, "seed")
    assert a2.shape == (2, 64) and b2.shape == (32, 2)
    np.testing.assert_array_equal(a5[:2], a2)  # r = 5 keeps r = 2's rows
    # B's first columns are the same draws, on nn.Linear's 1/√r scale
    assert_close(b5[:, :2] * math.sqrt(5), b2 * math.sqrt(2), dtype="float64")
    assert np.abs(a5).max() <= 1 / math.sqrt(64) and np.abs(b5).max() <= 1 / math.sqrt(5)
    _, zero = draw_lora(4, 5, 64, 32, "zero")
    assert zero.shape == (32, 5) and not zero.any()


def test_rslora_scale():
    assert lora_scale(8, 4) == 2.0
    assert lora_scale(8, 4, rslora=True) == 4.0
    assert lora_scale(16, 1, rslora=True) == lora_scale(16, 1) == 16.0
    result = peft_topic(PeftConfig(LAB3, rank=4, alpha=8, rslora=True, b_init="seed"))
    assert result.lora.scale == 4.0


def test_lora_matches_peft_on_a_linear_layer():
    """peft's own LoRA layer (the oracle): the same A, B give the unmerged output and, merged,
    the weight W + ΔW; its scaling is α/r or α/√r."""
    torch = pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    d_in, d_out, rank = 6, 5, 3
    for rslora in (False, True):
        model = torch.nn.Sequential(torch.nn.Linear(d_in, d_out, bias=False)).double()
        config = peft.LoraConfig(r=rank, lora_alpha=7, target_modules=["0"], use_rslora=rslora,
                                 lora_dropout=0.0)
        wrapped = peft.get_peft_model(model, config)
        layer = wrapped.base_model.model[0]
        a, b = draw_lora(2, rank, d_in, d_out, "seed")
        with torch.no_grad():
            layer.lora_A["default"].weight.copy_(torch.from_numpy(a))
            layer.lora_B["default"].weight.copy_(torch.from_numpy(b))
        scale = lora_scale(7, rank, rslora)
        assert layer.scaling["default"] == pytest.approx(scale, rel=1e-15)
        x = np.random.RandomState(1).randn(4, d_in)
        w = layer.base_layer.weight.detach().numpy().T.copy()  # the course's (in, out); merging writes in place
        with torch.no_grad():
            theirs = wrapped(torch.from_numpy(x)).numpy()
        assert_close(lora_project(x, w, a, b, scale), theirs, dtype="float64", reduction=d_in + rank)
        merged = wrapped.merge_and_unload()[0].weight.detach().numpy().T
        assert_close(w + delta_weight(a, b, scale), merged, dtype="float64", reduction=rank)


# ----- parameter counts ----------------------------------------------------------------------
def _counts(**kw) -> dict:
    return {c.key: c.trainable for c in parameter_counts(**kw)}


def test_parameter_counts_against_hand_formulas():
    assert _counts(d_model=8, layers=1, rank=2, virtual=2) == {
        "lora": 2 * (8 + 8), "lora_qv": 2 * 2 * 16, "lora_all": 4 * 2 * 16, "ia3": 16,
        "prefix": 2 * 2 * 8, "prompt": 16, "full": 4 * 64}
    got = _counts(d_model=768, layers=12, rank=8, virtual=4)
    assert got == {"lora": 8 * 1536 * 12, "lora_qv": 2 * 8 * 1536 * 12, "lora_all": 4 * 8 * 1536 * 12,
                   "ia3": 2 * 768 * 12, "prefix": 2 * 4 * 768 * 12, "prompt": 4 * 768,
                   "full": 4 * 768 * 768 * 12}
    shares = {c.key: c.share for c in parameter_counts(768, 12, 8, 4)}
    assert shares["full"] == 1.0 and shares["lora"] == pytest.approx(8 * 1536 / (768 * 768 * 4))


def test_parameter_counts_match_peft_on_attention_projections():
    """peft counts the same trainable numbers on four bias-free (d, d) projections."""
    torch = pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    d, rank = 16, 3

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for name in ("q", "k", "v", "o"):
                setattr(self, name, torch.nn.Linear(d, d, bias=False))

    expected = _counts(d_model=d, layers=1, rank=rank, virtual=1)
    for targets, key in ((["q"], "lora"), (["q", "v"], "lora_qv"), (["q", "k", "v", "o"], "lora_all")):
        model = peft.get_peft_model(Attention(), peft.LoraConfig(r=rank, target_modules=targets))
        assert model.get_nb_trainable_parameters()[0] == expected[key]
    ia3 = peft.get_peft_model(Attention(), peft.IA3Config(target_modules=["k", "v"],
                                                          feedforward_modules=[]))
    assert ia3.get_nb_trainable_parameters()[0] == expected["ia3"]
    assert sum(p.numel() for p in Attention().parameters()) == expected["full"]


# ----- prefix and prompt tuning --------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
@pytest.mark.parametrize("virtual", [1, 4])
def test_prefix_shapes_masks_and_row_sums(config, virtual):
    n, h = config.n_tokens, config.n_heads
    result = peft_topic(PeftConfig(config, method="prefix", virtual=virtual))
    assert result.weights.shape == (h, n, virtual + n)
    assert result.col_labels[:virtual] == tuple(f"⟨p{i + 1}⟩" for i in range(virtual))
    base_mask = build_mask(n, n, config.causal, config.padding)
    np.testing.assert_array_equal(result.mask[:, :virtual], True)  # every query sees the prefix
    np.testing.assert_array_equal(result.mask[:, virtual:], base_mask)
    np.testing.assert_array_equal(result.weights[..., ~result.mask], 0.0)
    # every row sums to 1, the base's empty rows too (they now have the virtual keys)
    assert_close(result.weights.sum(axis=-1), 1.0, dtype="float64", reduction=virtual + n)
    np.testing.assert_array_equal(result.base_weights, course(config).weights)


@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
@pytest.mark.parametrize("virtual", [1, 3])
def test_prompt_shapes_masks_and_row_sums(config, virtual):
    n, h, v = config.n_tokens, config.n_heads, virtual
    result = peft_topic(PeftConfig(config, method="prompt", virtual=v))
    assert result.weights.shape == (h, v + n, v + n)
    assert result.row_labels == result.col_labels == tuple(f"⟨p{i + 1}⟩" for i in range(v)) + config.tokens
    mask = result.mask
    np.testing.assert_array_equal(mask[v:, :v], True)  # every real token sees every virtual one
    np.testing.assert_array_equal(mask[v:, v:], build_mask(n, n, config.causal, config.padding))
    if config.causal:
        np.testing.assert_array_equal(mask[:v, :v], np.tri(v, dtype=bool))
        np.testing.assert_array_equal(mask[:v, v:], False)
    np.testing.assert_array_equal(result.weights[..., ~mask], 0.0)
    assert_close(result.weights.sum(axis=-1), 1.0, dtype="float64", reduction=v + n)
    assert result.x_in.shape == (v + n, config.d_model)
    assert result.weights_difference.shape == (h, n, n)


def test_prompt_mask_moves_padding_past_the_virtual_tokens():
    mask = prompt_mask(2, 3, causal=False, padding={1})
    assert mask.shape == (5, 5)
    np.testing.assert_array_equal(mask[:, 3], False)
    assert mask[:, [0, 1, 2, 4]].all()


def test_prefix_of_a_query_with_no_open_key():
    """Under the causal mask a leading <pad> query sees nothing in the base (weights 0) but its
    virtual keys with prefix tuning, as peft's extended attention mask allows."""
    base = course(EMPTY_ROW)
    assert base.empty_rows[0]
    result = peft_topic(PeftConfig(EMPTY_ROW, method="prefix", virtual=2))
    np.testing.assert_array_equal(result.weights[:, 0, 2:], 0.0)
    assert_close(result.weights[:, 0, :2].sum(axis=-1), 1.0, dtype="float64", reduction=2)


# ----- IA³ -----------------------------------------------------------------------------------
def test_ia3_scales_keys_and_values():
    config = LAB3
    result = peft_topic(PeftConfig(config, method="ia3", ia3_strength=0.5, adapter_seed=2))
    l_k, l_v = result.ia3
    weights, _, x_in = model_input(config)
    scaled = type(weights)(weights.x, weights.w_q, weights.w_k * l_k, weights.w_v * l_v, weights.w_o)
    expected = self_attention(x_in, scaled, config.n_heads, np.ones((4, 4), bool), True)
    rule = merged_rule(config, 1, expected["scores"])
    assert_close(result.weights, expected["weights"], **rule)
    assert np.abs(result.weights_difference).max() > 0.05  # l_k really moved the heads


# ----- the property: over sizes, heads, r and seeds -------------------------------------------
@st.composite
def lora_settings(draw):
    d = draw(st.sampled_from([4, 6, 8, 12, 16]))
    heads = draw(st.sampled_from(divisors(d)))
    n = draw(st.integers(1, 6))
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=heads,
                             seed=draw(st.integers(0, 2**32 - 1)), causal=draw(st.booleans()))
    return PeftConfig(config, target=draw(st.sampled_from(LORA_TARGETS)), rank=draw(st.integers(1, d)),
                      alpha=draw(st.integers(1, 64)), rslora=draw(st.booleans()),
                      adapter_seed=draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=40, deadline=None)
@given(lora_settings())
def test_property_b_zero_exact_merged_equals_unmerged_and_rank(setting):
    att = setting.attention
    base = course(att)
    zero = peft_topic(setting)
    np.testing.assert_array_equal(zero.weights, base.weights)
    seeded = peft_topic(setting.replace(b_init="seed"))
    lora = seeded.lora
    assert lora.check.ok
    weights, _, x_in = model_input(att)
    merged = merged_weights(weights, setting.target, (lora.scale * (lora.b @ lora.a)).T)
    allowed = build_mask(att.n_tokens, att.n_tokens, att.causal, att.padding)
    expected = self_attention(x_in, merged, att.n_heads, allowed, att.scaled)
    assert_close(seeded.weights, expected["weights"], **merged_rule(att, setting.rank, expected["scores"]))
    sv = np.linalg.svd(lora.delta, compute_uv=False)
    assert_close(sv[setting.rank:], 0.0, dtype="float64", reduction=att.d_model * setting.rank,
                 scale=float(sv[0]))
    assert len(lora.delta_singular) == setting.rank


# ----- bad settings --------------------------------------------------------------------------
@pytest.mark.parametrize("change", [dict(rank=0), dict(rank=9), dict(method="dora"),
                                    dict(target="w_q"), dict(virtual=5), dict(alpha=-1),
                                    dict(ia3_strength=3.0), dict(steps=10_000), dict(layers=0),
                                    dict(rslora=1)])
def test_bad_settings_are_one_clear_config_error(change):
    with pytest.raises(ConfigError) as caught:
        peft_topic(PeftConfig(LAB3).replace(**change))
    assert "\n" not in str(caught.value)


def test_w_singular_values_are_left_out_above_the_svd_limit():
    from explorer.core.topics.peft import MAX_SVD_D_MODEL, weight_singular_values
    assert weight_singular_values(1, 2, MAX_SVD_D_MODEL + 16, "course", "q") is None
    values = weight_singular_values(1, 4, 8, "course", "k")
    assert_close(values, np.linalg.svd(model_input(LAB3)[0].w_k, compute_uv=False), dtype="float64",
                 reduction=8)
