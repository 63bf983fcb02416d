"""Oracle: an adapter the app saves loads in peft 0.21.2 onto the tiny model and is the same model.

`PeftModel.from_pretrained(TinyTransformer with the base's weights, folder)` must give the app's
adapted model's logits and every attention, for every combination of q, k, v, o (the fused-qkv
layout of core/training/lora_save.py: block-structured B, rank_pattern / alpha_pattern), for an
adapter with perturbed matrices and for one really fine-tuned. The saved config must hold every
key peft's own LoraConfig writes, and peft must count the LoRA parameters it loaded as ours plus
the stored zeros of the block-structured B.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings

import pytest

torch = pytest.importorskip("torch")
peft = pytest.importorskip("peft")
pytest.importorskip("safetensors")

from explorer.core.training import TrainConfig, build_model  # noqa: E402
from explorer.core.training.lora import LoraModel  # noqa: E402
from explorer.core.training.lora_config import LoraConfig  # noqa: E402
from explorer.core.training.lora_save import adapter_files, write_adapter  # noqa: E402
from explorer.core.training.lora_tune import FineTune  # noqa: E402
from explorer.core.training.model import TinyTransformer  # noqa: E402
from numeric import assert_close  # noqa: E402

BASE = TrainConfig(d_model=16, n_heads=2, vocab=16, seq_len=16, batch=8, steps=5, seed=5)
TARGET_SETS = [t for k in range(1, 5) for t in itertools.combinations("qkvo", k)]


def tokens(seed=0):
    return torch.randint(0, BASE.vocab, (3, BASE.seq_len), generator=torch.Generator().manual_seed(seed))


def peft_model(base: TinyTransformer, folder):
    fresh = TinyTransformer(base.config)
    fresh.load_state_dict(base.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # peft: "the model has no config.json" and the like
        return peft.PeftModel.from_pretrained(fresh, str(folder)).eval()


def score_scale(model, x) -> float:
    """max |q·k / √d_head| over the layers: what a softmax's rounding error scales with."""
    seen = []
    hooks = [layer.qkv.register_forward_hook(lambda m, i, out: seen.append(out))
             for layer in model.model.layers]
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    d, heads = BASE.d_model, BASE.n_heads
    top = 0.0
    for out in seen:
        q, k, _ = (t.view(*t.shape[:2], heads, d // heads).transpose(1, 2) for t in out.split(d, -1))
        top = max(top, float((q @ k.transpose(-2, -1)).abs().max()) / math.sqrt(d // heads))
    return top


def assert_same_model(ours: LoraModel, theirs, x):
    with torch.no_grad():
        logits, attentions = ours(x)
        peft_logits, peft_attentions = theirs(x)
    reduction = BASE.d_model * BASE.n_layers
    assert_close(peft_logits, logits, dtype="float32", reduction=reduction)
    scale = score_scale(ours, x)
    for got, want in zip(peft_attentions, attentions):
        assert_close(got, want, dtype="float32", reduction=reduction, scale=scale)


@pytest.mark.parametrize("targets", TARGET_SETS, ids="".join)
def test_peft_loads_the_saved_adapter_as_the_same_model(targets, tmp_path):
    base = build_model(BASE)
    ours = LoraModel(base, LoraConfig(rank=3, alpha=5.0, targets=targets))
    gen = torch.Generator().manual_seed(len(targets))
    with torch.no_grad():  # B = 0 would make every adapter the base: perturb
        for p in ours.lora_parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    write_adapter(tmp_path / "adapter", adapter_files(ours, 0, "base.safetensors"))
    theirs = peft_model(base, tmp_path / "adapter")
    assert_same_model(ours, theirs, tokens())
    with torch.no_grad():
        moved = (ours(tokens())[1][-1] - base(tokens())[1][-1]).abs().max()
    assert moved > 0.05  # the adapter changes the attention: a loader that ignored it would fail
    blocks = sum(t in "qkv" for t in targets)
    stored = sum(p.numel() for n, p in theirs.named_parameters() if "lora_" in n)
    d, r, layers = BASE.d_model, 3, BASE.n_layers
    assert stored == layers * (blocks * r * d + 3 * d * blocks * r * (blocks > 0) + ("o" in targets) * 2 * r * d)
    assert ours.trainable_count() == layers * len(targets) * 2 * r * d


def test_a_fine_tuned_adapter_loads_in_peft(tmp_path):
    from explorer.core.training import Trainer
    trainer = Trainer(BASE.replace(task="induction", steps=20))
    trainer.step(20)
    tune = FineTune(trainer.model, LoraConfig(task="previous-token", rank=2, steps=30,
                                              targets=("q", "k", "v", "o")))
    list(tune.run())
    write_adapter(tmp_path / "a", adapter_files(tune.model, tune.step_count, "base.safetensors"))
    theirs = peft_model(trainer.model, tmp_path / "a")
    assert_same_model(tune.model, theirs, tokens(1))
    with torch.no_grad(), theirs.disable_adapter():  # peft's base is ours, untouched
        assert torch.equal(theirs(tokens(1))[0], trainer.model(tokens(1))[0])


def test_the_config_has_every_key_peft_writes(tmp_path):
    base = build_model(BASE)
    ours = LoraModel(base, LoraConfig(rank=2, targets=("q", "v")))
    write_adapter(tmp_path / "a", adapter_files(ours, 0, "tiny.safetensors"))
    saved = json.loads((tmp_path / "a" / "adapter_config.json").read_text())
    reference = peft.LoraConfig(r=2, lora_alpha=2, target_modules=["qkv"]).to_dict()
    assert set(saved) == set(json.loads(json.dumps(reference, default=str)))
    assert saved["peft_type"] == "LORA" and saved["task_type"] is None and saved["bias"] == "none"
    assert saved["base_model_name_or_path"] == "tiny.safetensors" and saved["fan_in_fan_out"] is False
    assert saved["rank_pattern"] == {"qkv": 4} and saved["alpha_pattern"] == {"qkv": 4}
    assert saved["target_modules"] == ["qkv"] and saved["use_rslora"] is False
    loaded = peft.PeftConfig.from_pretrained(str(tmp_path / "a"))
    assert loaded.r == 2 and set(loaded.target_modules) == {"qkv"}
