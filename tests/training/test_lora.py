"""LoRA on the tiny transformer (core.training.lora*): the maths, the frozen base, the fine-tune.

References are independent: a float64 forward written here with *separate* W_Q, W_K, W_V
matrices and one LoRA per target (the definition), against the app's fused-qkv modules; the
base's tensors are compared with torch.equal (bit for bit) after training.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings, strategies as st  # noqa: E402

from explorer.core import ConfigError  # noqa: E402
from explorer.core.training import TrainConfig, build_model  # noqa: E402
from explorer.core.training.lora import LoraModel  # noqa: E402
from explorer.core.training.lora_config import (LoraConfig, base_parameter_count,  # noqa: E402
                                                lora_parameter_count, parse_targets, validate_lora)
from explorer.core.training.lora_save import fused_qkv  # noqa: E402
from explorer.core.training.lora_tune import FineTune  # noqa: E402
from numeric import assert_close  # noqa: E402

BASE = TrainConfig(d_model=16, n_heads=2, vocab=16, seq_len=16, batch=8, steps=5, seed=3)
TARGET_SETS = [t for k in range(1, 5) for t in __import__("itertools").combinations("qkvo", k)]


def tokens(seed=0, batch=2):
    return torch.randint(0, BASE.vocab, (batch, BASE.seq_len), generator=torch.Generator().manual_seed(seed))


def perturbed(model: LoraModel, seed=0, std=0.3) -> LoraModel:
    """Non-zero B (and another A): with B = 0 every adapter would equal the base."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.lora_parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * std)
    return model


def reference_forward(base, lora: LoraModel, x_tokens):
    """float64, W_Q / W_K / W_V / W_O as separate matrices, W + (α/r)·B·A per target."""
    d, h = BASE.d_model, BASE.n_heads
    sd = {k: v.double() for k, v in base.state_dict().items()}
    x = torch.nn.functional.one_hot(x_tokens, BASE.vocab).double() @ sd["embed.weight"]
    x = x + sd["pos.weight"][: x_tokens.shape[1]]  # (B, T, d)
    attentions = []
    scale = lora.lora.scale
    for i, layer in enumerate(lora.model.layers):
        fused = sd[f"layers.{i}.qkv.weight"]  # (3d, d)
        weights = {"q": fused[:d], "k": fused[d:2 * d], "v": fused[2 * d:], "o": sd[f"layers.{i}.out.weight"]}
        for t in lora.lora.targets:
            module = layer.qkv if t != "o" else layer.out
            a = (module.lora_A[t] if t != "o" else module.lora_A).detach().double()  # (r, d)
            b = (module.lora_B[t] if t != "o" else module.lora_B).detach().double()  # (d, r)
            weights[t] = weights[t] + scale * b @ a
        q, k, v = (x @ weights[t].T for t in "qkv")  # (B, T, d)
        q, k, v = (m.view(*m.shape[:2], h, d // h).transpose(1, 2) for m in (q, k, v))  # (B, h, T, dh)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // h)  # (B, h, T, T)
        causal = torch.ones(scores.shape[-2:], dtype=torch.bool).tril()
        attn = torch.softmax(scores.masked_fill(~causal, -math.inf), -1)
        out = (attn @ v).transpose(1, 2).reshape(*x.shape)  # (B, T, d)
        x = x + out @ weights["o"].T
        attentions.append(attn)
    return x @ sd["unembed.weight"].T, attentions, scores.abs().max().item()


# ----- the maths ---------------------------------------------------------------------------------
@pytest.mark.parametrize("targets", TARGET_SETS, ids="".join)
def test_the_fused_lora_equals_separate_loras_per_target(targets):
    base = build_model(BASE)
    lora = perturbed(LoraModel(base, LoraConfig(rank=3, alpha=5.0, targets=targets)))
    logits, attentions = lora(tokens())
    ref_logits, ref_attentions, top_score = reference_forward(base, lora, tokens())
    reduction = BASE.d_model * BASE.n_layers
    assert_close(logits, ref_logits, dtype="float32", reduction=reduction)
    for got, want in zip(attentions, ref_attentions):
        assert_close(got, want, dtype="float32", reduction=reduction, scale=top_score)
    base_logits, _ = base(tokens())
    assert (logits - base_logits).abs().max() > 0.1  # the adapter really changes the model


def test_b_zero_at_start_gives_the_base_bit_for_bit():
    base = build_model(BASE)
    lora = LoraModel(base, LoraConfig(rank=4, targets=("q", "k", "v", "o")))
    assert all(float(b.detach().abs().max()) == 0 for n, b in lora.named_parameters() if "lora_B" in n)
    got, got_att = lora(tokens())
    want, want_att = base(tokens())
    assert torch.equal(got, want) and all(torch.equal(a, b) for a, b in zip(got_att, want_att))


@settings(max_examples=25, deadline=None)
@given(targets=st.sets(st.sampled_from("qkv"), min_size=1), rank=st.integers(1, 16),
       alpha=st.floats(0.5, 64), seed=st.integers(0, 2**16))
def test_a_lora_on_some_blocks_leaves_the_others_bit_identical(targets, rank, alpha, seed):
    base = build_model(BASE)
    lora = perturbed(LoraModel(base, LoraConfig(rank=rank, alpha=alpha, targets=tuple(targets))), seed)
    x = torch.randn(2, 5, BASE.d_model, generator=torch.Generator().manual_seed(seed))  # (B, T, d)
    module = lora.model.layers[0].qkv
    got, want = module(x).split(BASE.d_model, -1), base.layers[0].qkv(x).split(BASE.d_model, -1)
    for block, g, w in zip("qkv", got, want):
        if block in targets:
            a, b = module.lora_A[block].double(), module.lora_B[block].double()
            expected = w.double() + lora.lora.scale * (x.double() @ a.T) @ b.T
            assert_close(g, expected, dtype="float32", reduction=BASE.d_model + rank)
        else:
            assert torch.equal(g, w), block  # untouched rows: the base's output, copied
    # the saved (fused) layout gives the same ΔW: A (k·r, d) stacked, B (3d, k·r) block-structured
    fused_a, fused_b = fused_qkv(module, BASE.d_model, rank)
    assert_close(lora.lora.scale * fused_b.double() @ fused_a.double(), module.delta(),
                 dtype="float32", reduction=rank, scale=float(module.delta().abs().max()))


def test_merged_weights_give_the_adapted_model():
    base = build_model(BASE)
    lora = perturbed(LoraModel(base, LoraConfig(rank=2, targets=("q", "v", "o"))))
    merged = lora.merged()
    (got, got_att), (want, want_att) = merged(tokens()), lora(tokens())
    assert_close(got, want, dtype="float32", reduction=BASE.d_model * BASE.n_layers)
    for a, b in zip(got_att, want_att):
        assert_close(a, b, dtype="float32", reduction=BASE.d_model * BASE.n_layers, scale=10.0)


def test_adapters_off_is_the_base_and_the_handed_in_model_is_never_the_one_wrapped():
    base = build_model(BASE)
    lora = perturbed(LoraModel(base, LoraConfig(targets=("k", "o"))))
    with lora.adapters_off():
        assert torch.equal(lora(tokens())[0], base(tokens())[0])
    assert not torch.equal(lora(tokens())[0], base(tokens())[0])
    assert type(base.layers[0].qkv) is torch.nn.Linear and type(base.layers[0].out) is torch.nn.Linear


def test_alpha_defaults_to_r_and_the_scale_is_alpha_over_r():
    assert LoraConfig(rank=8).scale == 1.0 and LoraConfig(rank=8).lora_alpha == 8.0
    assert LoraConfig(rank=4, alpha=16).scale == 4.0


# ----- the fine-tune -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained():
    from explorer.core.training import Trainer
    trainer = Trainer(BASE.replace(task="induction", steps=30))
    trainer.step(30)
    return trainer.model


def test_only_the_lora_trains_and_the_base_is_bit_identical(trained):
    before = {k: v.clone() for k, v in trained.state_dict().items()}
    tune = FineTune(trained, LoraConfig(task="previous-token", rank=2, steps=40, log_every=10,
                                        compare_full=True))
    frozen = {k: v.clone() for k, v in tune.model.base_tensors().items()}
    list(tune.run())
    assert tune.done and tune.step_count == 40
    for name, tensor in tune.model.base_tensors().items():  # the frozen copy inside the adapter
        assert torch.equal(tensor, frozen[name]) and torch.equal(tensor, before[name]), name
    for name, tensor in trained.state_dict().items():  # the model handed in
        assert torch.equal(tensor, before[name]), name
    assert all(not p.requires_grad for p in tune.model.base_tensors().values())
    optimised = {id(p) for group in tune.lora.optimizer.param_groups for p in group["params"]}
    assert optimised == {id(p) for p in tune.model.lora_parameters()}
    assert any(float(p.detach().abs().max()) > 0 for n, p in tune.model.named_parameters() if "lora_B" in n)
    full = tune.full.model.state_dict()
    assert not torch.equal(full["layers.0.qkv.weight"], before["layers.0.qkv.weight"])  # full moved
    assert tune.base_heldout_loss() == tune.records[0].heldout_loss  # the base, bit for bit
    assert tune.records[-1].heldout_loss < tune.records[0].heldout_loss
    np.testing.assert_array_equal(tune.before_attention(), tune.snapshots[0].attention)


def test_lora_and_full_fine_tune_train_on_the_same_batches(trained):
    tune = FineTune(trained, LoraConfig(task="previous-token", steps=7, compare_full=True))
    list(tune.run())
    assert tune.lora._rng.bit_generator.state == tune.full._rng.bit_generator.state
    for a, b in zip(tune.lora._heldout, tune.full._heldout):
        assert torch.equal(a, b)
    assert [r.step for r in tune.records] == [r.step for r in tune.full_records]
    assert tune.full.config.lr == trained.config.lr and tune.lora.config.lr == LoraConfig().lr
    assert tune.records[0].heldout_loss == tune.full_records[0].heldout_loss  # both start at the base


def test_parameter_counts(trained):
    config = LoraConfig(rank=3, targets=("q", "k", "o"), steps=1)
    tune = FineTune(trained, config)
    counts = tune.parameter_counts()
    assert counts["trainable"] == sum(p.numel() for p in tune.model.lora_parameters())
    assert counts["trainable"] == lora_parameter_count(config, BASE) == 2 * 3 * 3 * 2 * 16
    assert counts["full"] == sum(p.numel() for p in trained.parameters()) == base_parameter_count(BASE)
    assert counts["total"] == counts["full"] + counts["trainable"]


def test_same_seed_same_fine_tune(trained):
    runs = []
    for _ in range(2):
        tune = FineTune(trained, LoraConfig(rank=2, steps=6, seed=11))
        list(tune.run())
        runs.append([r.heldout_loss for r in tune.records])
    assert runs[0] == runs[1]


# ----- bad settings: one line each -----------------------------------------------------------------
@pytest.mark.parametrize("changes, message", [
    ({"rank": 0}, "LoRA rank must be a whole number from 1 to d_model (16), got 0"),
    ({"rank": 17}, "got 17"),
    ({"rank": 2.0}, "got 2.0"),
    ({"rank": True}, "got True"),
    ({"alpha": -1.0}, "LoRA alpha must be a number above 0"),
    ({"alpha": float("nan")}, "got nan"),
    ({"alpha": 1e9}, "at most 65536"),
    ({"targets": ()}, "at least one target"),
    ({"targets": ("q", "x")}, "unknown LoRA target 'x'"),
    ({"targets": ("q", "q")}, "named twice"),
    ({"targets": "qv"}, "at least one target"),
    ({"task": "copy"}, "unknown task 'copy'"),
    ({"steps": 0}, "steps must be between 1"),
    ({"lr": 2.0}, "learning rate must be a number in (0, 1]"),
    ({"full_lr": 0.0}, "learning rate must be a number in (0, 1]"),
    ({"seed": -1}, "seed must be between 0"),
])
def test_bad_settings_are_one_config_error(changes, message):
    with pytest.raises(ConfigError) as caught:
        validate_lora(LoraConfig().replace(**changes), BASE)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_targets_parse_in_order():
    assert parse_targets(" v, q ") == ("q", "v")
    assert validate_lora(LoraConfig(targets=("o", "k")), BASE).targets == ("k", "o")
    with pytest.raises(ConfigError):
        parse_targets("q,,w")
