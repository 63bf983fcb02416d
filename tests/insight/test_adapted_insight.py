"""The insight keys of `dump --model M --adapter DIR`: on the adapted analysis' axes (prefix and
prompt tuning put their virtual tokens first), and a LoRA adapter's value norms are its own."""

import json
import warnings

import numpy as np
import pytest

from explorer.cli import main

TEXT = "the cat sat on the mat and the dog sat"
FLAGS = ("--sinks", "--rollout", "--words", "--value-norms", "--logit-lens")
VIRTUAL = 3


@pytest.fixture(scope="module")
def adapters(tiny_pair, tmp_path_factory):
    """{kind: adapter folder} for the tiny Llama: LoRA on q/v, prefix and prompt tuning, perturbed."""
    peft = pytest.importorskip("peft")
    import torch
    from transformers import AutoModelForCausalLM
    base_folder = tiny_pair("llama").folder
    configs = {"lora": peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
               "prefix": peft.PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=VIRTUAL),
               "prompt": peft.PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=VIRTUAL)}
    folders = {}
    for kind, config in configs.items():
        with warnings.catch_warnings():  # transformers' FutureWarnings from inside peft
            warnings.simplefilter("ignore")
            model = peft.get_peft_model(AutoModelForCausalLM.from_pretrained(base_folder), config)
        generator = torch.Generator().manual_seed(1)
        with torch.no_grad():  # peft starts LoRA's B at 0: an adapter that changes nothing tests nothing
            for p in model.parameters():
                if p.requires_grad:
                    p.add_(torch.randn(p.shape, generator=generator) * 0.3)
        folders[kind] = tmp_path_factory.mktemp("adapter") / kind
        model.save_pretrained(folders[kind])
    return base_folder, folders


def dump(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("kind", ["lora", "prefix", "prompt"])
def test_every_key_is_on_the_adapted_axes(adapters, capsys, kind):
    base, folders = adapters
    doc = dump(capsys, "dump", "--model", base, "--adapter", folders[kind], "--text", TEXT, *FLAGS)
    v = 0 if kind == "lora" else VIRTUAL
    n = len(doc["ids"])
    axis = len(doc["tokens"])
    assert axis == v + n
    layers, heads = doc["model"]["layers"], doc["model"]["heads"]
    assert np.array(doc["rollout"]["weights"]).shape == (layers, axis, axis)
    assert np.array(doc["value_norms"]["weights"]).shape == (layers, heads, axis, axis)
    groups = doc["words"]["groups"]
    assert groups[:v] == [[i] for i in range(v)] and doc["words"]["words"][v:] == TEXT.split()
    assert doc["sinks"]["queries"] == (axis - 1 if kind == "prompt" else n - 1)
    assert doc["logit_lens"]["positions"] == list(range(v, axis))  # the text's streams
    if kind == "prefix":  # the virtual tokens are keys only: their rows carry nothing
        assert not np.any(np.array(doc["value_norms"]["weights"])[:, :, :v])


def test_lora_value_norms_are_the_adapted_models(adapters, capsys):
    base, folders = adapters
    plain = dump(capsys, "dump", "--model", base, "--text", TEXT, "--value-norms")
    adapted = dump(capsys, "dump", "--model", base, "--adapter", folders["lora"], "--text", TEXT, "--value-norms")
    difference = np.abs(np.array(adapted["value_norms"]["weights"]) - np.array(plain["value_norms"]["weights"]))
    assert difference.max() > 0.05  # LoRA on v_proj changes the values, not only the weights
