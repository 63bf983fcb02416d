"""Bad adapters: each is one AdapterError line naming the problem, exit 2 from `dump --adapter`,
nothing cached, nothing unpickled, and the base model still loads and is unchanged."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import struct
import threading

import pytest
from peft import LoraConfig, PrefixTuningConfig

from explorer.cli import main
from explorer.core.adapters import load as adapters_load
from explorer.core.adapters.adapter_files import open_adapter
from explorer.core.adapters.errors import AdapterError
from explorer.core.adapters.load import load_adapted
from explorer.core.checkpoints import load as checkpoints_load

from checkpoints.conftest import build_checkpoint  # noqa: E402

QV = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])


@pytest.fixture
def good(adapter):
    """A fresh copy of a good LoRA adapter of the tiny Llama (to break one file of it)."""
    def copy(tmp_path, config=QV, name="llama-lora-good"):
        return shutil.copytree(adapter("llama", name, config), tmp_path / "adapter")
    return copy


def edit_config(folder, **changes):
    path = folder / "adapter_config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))
    return folder


def refused(base, folder, capsys) -> str:
    """The one line load_adapted and `dump --adapter` both give; checks exit 2 and no cache."""
    with pytest.raises(AdapterError) as err:
        load_adapted(base, folder)
    line = str(err.value)
    assert "\n" not in line and str(folder) in line
    assert adapters_load.cached_count() == 0
    capsys.readouterr()  # what building the fixtures printed
    code = main(["dump", "--model", str(base), "--adapter", str(folder), "--text", "the cat sat"])
    out, cli_err = capsys.readouterr()
    assert code == 2 and out == "" and cli_err.strip().count("\n") == 0 and line in cli_err
    assert adapters_load.cached_count() == 0
    return line


def test_another_base_by_shape(tmp_path, bases, adapter, capsys):
    wider = build_checkpoint(tmp_path / "wider", "llama", hidden_size=48)
    line = refused(wider, adapter("llama", "llama-lora-good", QV), capsys)
    assert "adapter for another base" in line and "lora_A.weight has shape (4, 32)" in line and "(4, 48)" in line


def test_another_base_by_module(bases, adapter, capsys):
    line = refused(bases("gpt2"), adapter("llama", "llama-lora-good", QV), capsys)
    assert "adapter for another base: gpt2 has no module model.layers.0.self_attn" in line


def test_a_prefix_for_another_base(bases, adapter, capsys):
    folder = adapter("gpt2", "gpt2-prefix-bad", PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=2))
    line = refused(bases("llama"), folder, capsys)
    assert "adapter for another base: adapter_config.json says num_attention_heads 4, llama has 2" in line


def test_prefix_tuning_on_an_encoder(bases, adapter, capsys):
    folder = adapter("llama", "llama-prefix-enc", PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=2))
    assert "prefix tuning needs a decoder; bert is an encoder" in refused(bases("bert"), folder, capsys)


def test_dora_is_refused(bases, adapter, capsys):
    folder = adapter("llama", "llama-dora", LoraConfig(r=2, target_modules=["q_proj"], use_dora=True))
    line = refused(bases("llama"), folder, capsys)
    assert "sets use_dora to True, which is not supported (DoRA's magnitude vectors are not computed here)" in line


def test_modules_to_save_on_tied_embeddings_is_refused(bases, adapter, capsys):
    folder = adapter("gpt2", "gpt2-save-wte", LoraConfig(r=2, target_modules=["c_attn"], modules_to_save=["wte"]))
    line = refused(bases("gpt2"), folder, capsys)
    assert "modules_to_save to 'wte', which is not supported (the model's embeddings are tied" in line


def test_lora_on_the_embeddings_is_refused(bases, adapter, capsys):
    folder = adapter("llama", "llama-lora-embed", LoraConfig(r=2, target_modules=["embed_tokens", "q_proj"]))
    assert "LoRA on the embeddings (model.embed_tokens) is not supported" in refused(bases("llama"), folder, capsys)


class _LeavesAFile:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_pickled_adapter_is_refused_unopened(tmp_path, bases, good, capsys):
    folder = good(tmp_path)
    os.remove(folder / "adapter_model.safetensors")
    marker = tmp_path / "unpickled.txt"
    (folder / "adapter_model.bin").write_bytes(pickle.dumps(_LeavesAFile(str(marker))))
    line = refused(bases("llama"), folder, capsys)
    assert "holds only a pickled adapter (adapter_model.bin)" in line and "safe_serialization=True" in line
    assert not marker.exists()


@pytest.mark.parametrize("changes, expected", [
    ({"r": 10 ** 12}, "r must be a whole number from 1 to 4096, not 1000000000000"),
    ({"r": "8"}, "r must be a whole number from 1 to 4096, not '8'"),
    ({"r": True}, "r must be a whole number from 1 to 4096, not True"),
    ({"lora_alpha": -16}, "lora_alpha must be a positive finite number, not -16"),
    ({"lora_alpha": 0}, "lora_alpha must be a positive finite number, not 0"),
    ({"target_modules": 5}, "target_modules must be a list of module names or a regular expression, not 5"),
    ({"target_modules": "(a+)+$"}, "target_modules holds the pattern '(a+)+$', whose nested repetition"),
    ({"rank_pattern": {"q_proj": 0}}, "rank_pattern['q_proj'] must be a whole number from 1 to 4096"),
    ({"use_rslora": "yes"}, "use_rslora must be true or false, not 'yes'"),
    ({"bias": "some"}, "bias must be \"none\", \"all\" or \"lora_only\", not 'some'"),
    ({"peft_type": "LOHA"}, "LOHA adapters are not supported (LoRA, IA³, prefix tuning and prompt tuning are)"),
    ({"peft_type": 3}, "peft_type must be a text, not 3"),
    ({"r": 2}, "lora_A.weight has rank 4; adapter_config.json gives model.layers."),
    ({"target_modules": ["q_proj"]}, "v_proj.lora_A.weight, a module adapter_config.json does not target"),
    ({"trainable_token_indices": [1, 2]}, "sets trainable_token_indices to [1, 2], which is not supported"),
    ({"target_modules": ["q_proj"] * 5000}, "target_modules has 5000 entries, more than 1000"),
])
def test_a_hostile_config_is_one_line(tmp_path, bases, good, capsys, changes, expected):
    folder = edit_config(good(tmp_path), **changes)
    assert expected in refused(bases("llama"), folder, capsys)


@pytest.mark.parametrize("text, expected", [
    ("{not json", "adapter_config.json is not valid JSON"),
    ('{"peft_type": "LORA", "r": NaN}', "adapter_config.json is not valid JSON (NaN is not JSON"),
    ("[1, 2]", "adapter_config.json is not a JSON object"),
    ("\xff\xfe", "adapter_config.json is not valid JSON"),
    ('{"r": 4}', "adapter_config.json has no peft_type"),
])
def test_a_config_that_is_not_one(tmp_path, bases, good, capsys, text, expected):
    folder = good(tmp_path)
    (folder / "adapter_config.json").write_bytes(text.encode("utf-8", "surrogateescape") if text != "\xff\xfe"
                                                 else b"\xff\xfe")
    assert expected in refused(bases("llama"), folder, capsys)


def test_a_huge_config_is_refused_before_it_is_read(tmp_path, bases, good, capsys):
    folder = good(tmp_path)
    (folder / "adapter_config.json").write_bytes(b" " * (1 << 20) + b"{}")
    assert "is larger than" in refused(bases("llama"), folder, capsys)


def test_a_fifo_config_does_not_block(tmp_path, bases, good, capsys):
    folder = good(tmp_path)
    os.remove(folder / "adapter_config.json")
    os.mkfifo(folder / "adapter_config.json")
    done = []
    worker = threading.Thread(target=lambda: done.append(refused(bases("llama"), folder, capsys)), daemon=True)
    worker.start()
    worker.join(30)
    assert done and "is not a regular file (a FIFO)" in done[0]


@pytest.mark.parametrize("cut", ["header", "data"])
def test_a_truncated_safetensors_is_one_line(tmp_path, bases, good, capsys, cut):
    folder = good(tmp_path)
    path = folder / "adapter_model.safetensors"
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    path.write_bytes(data[:8 + length // 2] if cut == "header" else data[:-10])
    line = refused(bases("llama"), folder, capsys)
    assert "adapter_model.safetensors is not a valid safetensors file" in line
    assert "truncated" in line or "outside the file" in line


def test_not_a_folder_and_no_config(tmp_path, bases, capsys):
    assert "is not an adapter folder (it does not exist)" in refused(bases("llama"), tmp_path / "nowhere", capsys)
    (tmp_path / "empty").mkdir()
    assert "has no adapter_config.json: not a PEFT adapter folder" in refused(bases("llama"), tmp_path / "empty", capsys)


def test_after_a_refusal_the_base_loads_unchanged(tmp_path, bases, good, capsys):
    base = bases("llama")
    first = checkpoints_load.load_checkpoint(base)
    before = {k: v.clone() for k, v in first.weights.blocks[0].items()}
    refused(base, edit_config(good(tmp_path), r=2), capsys)
    again = checkpoints_load.load_checkpoint(base)
    assert again is first and all(again.weights.blocks[0][k].equal(v) for k, v in before.items())


def test_open_adapter_reads_no_weights(tmp_path, good):
    folder = good(tmp_path)
    adapter = open_adapter(folder)
    # two layers of q_proj (A (4, 32), B (32, 4)) and v_proj (A (4, 32), B (16, 4): 2 K/V heads of 8)
    assert adapter.method == "lora" and adapter.settings.r == 4
    assert adapter.parameters == 2 * ((4 * 32 + 32 * 4) + (4 * 32 + 16 * 4))


def test_a_file_of_too_many_tensors_is_not_an_adapter(tmp_path, bases, good, capsys):
    import torch
    from safetensors.torch import save_file
    folder = good(tmp_path)
    save_file({f"base_model.model.t{i}.lora_A.weight": torch.zeros(1) for i in range(20_001)},
              folder / "adapter_model.safetensors")
    assert "holds 20001 tensors, more than 20000: not an adapter" in refused(bases("llama"), folder, capsys)
