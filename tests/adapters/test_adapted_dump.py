"""`dump --model M --adapter DIR` against PeftModel, and the adapted model as a model source
(app/models/adapter_source.py): labels, axes, base / difference, pruning, generation; the base
model bit-identical and still cached after an adapter was loaded."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from peft import IA3Config, LoraConfig, PrefixTuningConfig, PromptTuningConfig

from explorer.app.models.adapter_source import (AdaptedAnalysis, AdaptedSource, difference, head_change,
                                                layer_picture)
from explorer.app.models.checkpoint_source import source_for_folder
from explorer.cli import main
from explorer.core.adapters.load import cached_count, load_adapted
from explorer.core.checkpoints.load import load_checkpoint

from adapter_support import score_size  # noqa: E402
from numeric import assert_close  # noqa: E402

TEXT = "the cat sat on the mat and the dog sat"
CASES = {
    "llama-lora-qv": ("llama", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])),
    "gpt2-ia3": ("gpt2", lambda: IA3Config(target_modules=["c_attn", "mlp.c_proj"], feedforward_modules=["mlp.c_proj"],
                                           fan_in_fan_out=True)),
    "llama-prefix": ("llama", lambda: PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "llama-prompt": ("llama", lambda: PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "bert-prompt": ("bert", lambda: PromptTuningConfig(task_type="FEATURE_EXTRACTION", num_virtual_tokens=3)),
}


def dump(capsys, *args) -> dict:
    capsys.readouterr()
    code = main(["dump", *map(str, args)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("case", CASES)
def test_dump_with_an_adapter_equals_peft(case, bases, adapter, peft_run, capsys):
    family, config = CASES[case]
    base, folder = bases(family), adapter(family, case, config())
    doc = dump(capsys, "--model", base, "--adapter", folder, "--text", TEXT)
    plain = dump(capsys, "--model", base, "--text", TEXT)
    v = doc["virtual_tokens"]
    prompt = case.endswith("prompt")
    assert doc["ids"] == plain["ids"]  # the text's tokens only
    assert doc["tokens"] == [f"⟨p{i + 1}⟩" for i in range(v)] + plain["tokens"]
    weights, expected = np.array(doc["weights"]), peft_run(base, folder, doc["ids"], family)["attentions"]
    n = len(doc["ids"])
    assert weights.shape[2:] == ((v + n) if prompt else n, v + n)
    assert_close(weights, expected, dtype="float32", reduction=doc["model"]["d_model"] * doc["model"]["layers"],
                 scale=score_size(expected))
    info = doc["adapter"]
    assert info["type"] == {"lora": "LORA", "ia3": "IA3", "prefix": "PREFIX_TUNING", "prompt": "PROMPT_TUNING"}[
        case.split("-")[1]]
    assert info["trainable_parameters"] > 0 and set(info) >= {"type", "r", "alpha", "targets", "trainable_parameters"}
    if info["type"] == "LORA":
        assert info["r"] == 4 and info["alpha"] == 8 and info["targets"] == ["q_proj", "v_proj"]
        assert doc["model"]["name"].endswith("+ LoRA r=4")


def test_dump_layer_and_generation_with_an_adapter(bases, adapter, capsys):
    base, folder = bases("llama"), adapter("llama", "llama-prefix", CASES["llama-prefix"][1]())
    doc = dump(capsys, "--model", base, "--adapter", folder, "--text", TEXT, "--layer", "1", "--generate", "3", "--kv")
    n = len(doc["ids"])
    assert np.array(doc["weights"]).shape == (4, n, n + 3) and doc["layer"] == 1
    assert len(doc["generated"]) == 3 and doc["kv_cache"]["positions"] == 3 + n + 3
    assert all(step["max_diff"] < 1e-3 for step in doc["kv"])


def test_the_base_is_bit_identical_and_still_cached(bases, adapter, capsys):
    base = bases("llama")
    first = load_checkpoint(base)
    before = [{k: t.clone() for k, t in block.items()} for block in first.weights.blocks]
    plain = dump(capsys, "--model", base, "--text", TEXT)
    adapted = load_adapted(base, adapter("llama", "llama-lora-qv", CASES["llama-lora-qv"][1]()))
    assert adapted.weights is not first.weights
    assert not adapted.weights.blocks[0]["q"].equal(first.weights.blocks[0]["q"])
    again = load_checkpoint(base)
    assert again is first  # still the cached one
    for block, saved in zip(again.weights.blocks, before):
        assert all(block[k].equal(t) for k, t in saved.items())
    assert dump(capsys, "--model", base, "--text", TEXT)["weights"] == plain["weights"]
    assert load_adapted(base, adapter("llama", "llama-lora-qv", CASES["llama-lora-qv"][1]())) is adapted
    assert cached_count() == 1


def test_a_virtual_tokens_adapter_shares_the_cached_base(bases, adapter):
    base = bases("llama")
    adapted = load_adapted(base, adapter("llama", "llama-prompt", CASES["llama-prompt"][1]()))
    assert adapted.weights.base is load_checkpoint(base).weights
    assert adapted.spec.max_tokens == load_checkpoint(base).spec.max_tokens - 3


def source(bases, adapter, case) -> AdaptedSource:
    family, config = CASES[case]
    return AdaptedSource(source_for_folder(bases(family)), adapter(family, case, config()))


def test_the_adapted_source_is_one_more_source(bases, adapter):
    from explorer.app.models import sources
    s = source(bases, adapter, "llama-lora-qv")
    assert s.name not in {x.name for x in sources.listed()}  # nothing registered by itself
    assert s.label() == "llama (llama) + LoRA r=4"
    assert s.capabilities == dataclasses.replace(s.base.capabilities, adapters="adapted")  # the base's, declared adapted
    a, b = s.analyse("cpu", TEXT), s.analyse_base("cpu", TEXT)
    assert isinstance(a, AdaptedAnalysis) and a.virtual_tokens == 0 and a.labels == b.labels
    assert a.adapter.targets == ("q_proj", "v_proj") and a.adapter.modules
    change = head_change(a, b)
    assert change.shape == (2, 4) and change.max() > 0.05
    assert_close(difference(a, b), a.attentions - b.attentions)
    effect = s.prune("cpu", TEXT, "text", 0, frozenset({(0, 1)}))
    assert effect["heads_off"] == 1 and effect["loss_pruned"] != effect["loss"]
    run = s.generate("cpu", TEXT, 3)
    assert len(run.generated) == 3 and run.keys.shape[2] == len(a.ids) + 3


def test_prefix_tuning_shows_virtual_keys_with_empty_query_rows(bases, adapter):
    s = source(bases, adapter, "llama-prefix")
    a, b = s.analyse("cpu", TEXT), s.analyse_base("cpu", TEXT)
    v, n = 3, len(b.ids)
    assert a.attentions.shape == (2, 4, v + n, v + n) and a.labels[:v] == ("⟨p1⟩", "⟨p2⟩", "⟨p3⟩")
    assert (a.attentions[:, :, :v] == 0).all() and a.n_real == v + n and a.ids == b.ids
    assert np.allclose(a.attentions[:, :, v:].sum(-1), 1.0, atol=1e-5)
    picture = layer_picture(a, 1)
    assert picture.empty_rows[:v].all() and not picture.empty_rows[v:].any()
    assert not picture.mask[:v].any() and picture.mask[v:, :v].all()  # every query sees the prefix
    d = difference(a, b)
    assert d.shape == a.attentions.shape and (d[:, :, :, :v] == a.attentions[:, :, :, :v]).all()
    assert s.spec().max_tokens == source_for_folder(bases("llama")).spec().max_tokens - v
    assert s.label() == "llama (llama) + prefix tuning v=3"
    run = s.generate("cpu", TEXT, 2)
    assert run.keys.shape[2] == v + n + 2 and all(r.max_diff <= r.tolerance for r in run.records)


def test_prompt_tuning_on_an_encoder_puts_virtual_tokens_on_both_axes(bases, adapter):
    s = source(bases, adapter, "bert-prompt")
    a = s.analyse("cpu", TEXT)
    v, n = 3, len(a.ids)
    assert a.attentions.shape[2:] == (v + n, v + n) and a.virtual_queries
    assert np.allclose(a.attentions.sum(-1), 1.0, atol=1e-5)
    picture = layer_picture(a, 0)
    assert not picture.empty_rows.any() and picture.mask.all()


def test_a_bad_adapter_is_refused_when_the_source_is_made(bases, adapter):
    from explorer.core.adapters.errors import AdapterError
    with pytest.raises(AdapterError, match="adapter for another base"):
        AdaptedSource(source_for_folder(bases("gpt2")), adapter("llama", "llama-lora-qv", CASES["llama-lora-qv"][1]()))
    assert cached_count() == 0


def test_a_changed_adapter_loads_again(bases, adapter, tmp_path):
    import shutil
    base = bases("llama")
    folder = shutil.copytree(adapter("llama", "llama-lora-qv", CASES["llama-lora-qv"][1]()), tmp_path / "a")
    s = AdaptedSource(source_for_folder(base), folder)
    first = s.load()
    config = json.loads((folder / "adapter_config.json").read_text())
    (folder / "adapter_config.json").write_text(json.dumps({**config, "lora_alpha": 16}))
    second = s.load()
    assert second is not first and second.adapter.alpha == 16 and s.info.alpha == 16
    assert not second.weights.blocks[0]["q"].equal(first.weights.blocks[0]["q"])
