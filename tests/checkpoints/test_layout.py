"""core.checkpoints.layout and tensors: what a folder holds, and every bad folder refused in one line."""

import json
import pickle
import struct

import pytest

from explorer.core.checkpoints.layout import CONVERT_HINT, open_checkpoint, read_header
from explorer.core.checkpoints.native import CheckpointError
from explorer.core.checkpoints.tensors import check_memory, load_tensors, memory_needed
from explorer.core.cancel import Cancelled


def one_line(exc_info) -> str:
    text = str(exc_info.value)
    assert text and "\n" not in text
    return text


def test_a_save_pretrained_folder_opens_with_its_sizes(tiny_checkpoint):
    from safetensors.numpy import load_file
    folder = tiny_checkpoint("llama")
    ckpt = open_checkpoint(folder)
    arrays = load_file(str(folder / "model.safetensors"))
    assert (ckpt.name, ckpt.model_type, ckpt.kind, ckpt.dtype) == (folder.name, "llama", "decoder", "F32")
    assert ckpt.parameters == sum(a.size for a in arrays.values())
    assert ckpt.nbytes == (folder / "model.safetensors").stat().st_size
    assert ckpt.tokenizer_file == folder / "tokenizer.json" and ckpt.vocab_file is None
    assert ckpt.sizes["layers"] == 2 and ckpt.sizes["heads"] == 4 and ckpt.sizes["kv_heads"] == 2
    assert set(ckpt.tensors) == set(arrays)


def test_a_sharded_checkpoint_opens_every_shard(tiny_checkpoint):
    single, sharded = open_checkpoint(tiny_checkpoint("llama")), open_checkpoint(tiny_checkpoint("llama", sharded=True))
    assert len(sharded.weight_files) > 1 and sharded.parameters == single.parameters
    assert set(sharded.tensors) == set(single.tensors)
    a, b = load_tensors(single), load_tensors(sharded)
    assert all((a[k] == b[k]).all() for k in a)


def test_bfloat16_weights_are_read_as_float32_or_kept(tiny_checkpoint):
    import torch
    ckpt = open_checkpoint(tiny_checkpoint("llama", dtype="bfloat16"))
    assert ckpt.dtype == "BF16" and ckpt.dtype_name == "bfloat16"
    assert memory_needed(ckpt, "float32") == 2 * memory_needed(ckpt, None)
    wide, own = load_tensors(ckpt), load_tensors(ckpt, dtype=None)
    name = "model.embed_tokens.weight"
    assert wide[name].dtype == torch.float32 and own[name].dtype == torch.bfloat16
    assert (wide[name] == own[name].float()).all()


def test_loading_reports_progress_and_stops_when_asked(tiny_checkpoint):
    ckpt = open_checkpoint(tiny_checkpoint("llama", sharded=True))
    seen = []
    load_tensors(ckpt, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) > 3
    calls = []
    with pytest.raises(Cancelled):
        load_tensors(ckpt, should_stop=lambda: calls.append(1) or len(calls) > 2)


def test_a_model_that_would_not_fit_is_refused_with_both_numbers(tiny_checkpoint, monkeypatch):
    from explorer.core.checkpoints import tensors
    ckpt = open_checkpoint(tiny_checkpoint("llama"))
    with pytest.raises(CheckpointError) as err:
        check_memory(ckpt, "float32", free=900)
    assert "needs 141 KB of memory as float32; this machine has 900 bytes available" in one_line(err)
    monkeypatch.setattr(tensors, "available_memory", lambda device="cpu": 10)
    with pytest.raises(CheckpointError, match="needs .* of memory as float32; this machine has 10 bytes"):
        load_tensors(ckpt)


def test_available_memory_reads_proc_meminfo():
    from explorer.core.checkpoints.tensors import available_memory
    free = available_memory("cpu")
    assert free is None or free > 10_000_000


@pytest.mark.parametrize("what", ["config", "weights"])
def test_a_folder_without_config_or_weights_is_refused(tiny_checkpoint, copy_checkpoint, what):
    folder = copy_checkpoint(tiny_checkpoint("bert"))
    (folder / ("config.json" if what == "config" else "model.safetensors")).unlink()
    with pytest.raises(CheckpointError) as err:
        open_checkpoint(folder)
    assert ("no config.json" if what == "config" else "has no weights") in one_line(err)


def test_a_missing_folder_and_a_file_are_refused(tmp_path):
    for where in (tmp_path / "nowhere", tmp_path / "file.txt"):
        if where.name == "file.txt":
            where.write_text("x")
        with pytest.raises(CheckpointError) as err:
            open_checkpoint(where)
        assert "is not a model folder" in one_line(err)


def test_a_pickle_only_checkpoint_is_refused_without_unpickling(pickle_only_checkpoint):
    folder, marker = pickle_only_checkpoint
    with pytest.raises(CheckpointError) as err:
        open_checkpoint(folder)
    assert "pytorch_model.bin" in one_line(err) and CONVERT_HINT in str(err.value)
    assert not marker.exists()
    pickle.loads((folder / "pytorch_model.bin").read_bytes())  # the trap was armed: it leaves the file
    assert marker.exists()


@pytest.mark.parametrize("name", ["model.pt", "weights.pth", "last.ckpt"])
def test_other_pickle_files_get_the_same_hint(tmp_path, name):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (tmp_path / name).write_bytes(b"\x80\x04N.")
    with pytest.raises(CheckpointError, match="convert it once with transformers"):
        open_checkpoint(tmp_path)


def _header(entries: dict, data: bytes = b"", length: int | None = None) -> bytes:
    raw = json.dumps(entries).encode()
    return struct.pack("<Q", len(raw) if length is None else length) + raw + data


DUPLICATE = (b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
             b'"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}')
HOSTILE = {
    "truncated": (b"\x10\x00\x00", "truncated"),
    "huge header": (struct.pack("<Q", 2 ** 62) + b"{}", "more than"),
    "header past the end": (_header({}, length=10_000), "truncated"),
    "not json": (struct.pack("<Q", 4) + b"\xff\xfe{]", "not JSON"),
    "not an object": (_header([1, 2]), "not a JSON object"),
    "bad dtype": (_header({"w": {"dtype": "PICKLE", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4), "dtype"),
    "negative shape": (_header({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4), "shape"),
    "offsets outside": (_header({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8), "outside"),
    "size mismatch": (_header({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8), "needs 12 bytes"),
    "overlap": (_header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), "overlap"),
    "extra key": (_header({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1}}, b"\0" * 4), "dtype, shape"),
    "duplicate": (struct.pack("<Q", len(DUPLICATE)) + DUPLICATE + b"\0" * 4, "twice"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_truncated_or_hostile_safetensors_header_is_refused(tmp_path, case):
    data, words = HOSTILE[case]
    path = tmp_path / "model.safetensors"
    path.write_bytes(data)
    with pytest.raises(CheckpointError) as err:
        read_header(path)
    assert words in one_line(err)


def test_a_cut_weight_file_is_refused_when_the_folder_opens(tiny_checkpoint, copy_checkpoint):
    folder = copy_checkpoint(tiny_checkpoint("bert"))
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError) as err:
        open_checkpoint(folder)
    assert "outside the file" in one_line(err)


def test_a_fifo_as_weights_is_refused_without_blocking(tiny_checkpoint, copy_checkpoint):
    import os
    folder = copy_checkpoint(tiny_checkpoint("bert"))
    (folder / "model.safetensors").unlink()
    os.mkfifo(folder / "model.safetensors")
    with pytest.raises(CheckpointError, match="not a regular file"):
        open_checkpoint(folder)


def test_a_shard_missing_or_outside_the_folder_is_refused(tiny_checkpoint, copy_checkpoint):
    folder = copy_checkpoint(tiny_checkpoint("llama", sharded=True))
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    first = sorted(set(index["weight_map"].values()))[0]
    (folder / first).unlink()
    with pytest.raises(CheckpointError, match=f"the shard {first} .* is missing"):
        open_checkpoint(folder)
    name = next(iter(index["weight_map"]))
    index["weight_map"][name] = "../elsewhere.safetensors"
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match="not a plain .safetensors file name"):
        open_checkpoint(folder)


def test_a_config_that_contradicts_the_tensors_is_refused(tiny_checkpoint, copy_checkpoint):
    from explorer.core.checkpoints.load import load_checkpoint
    folder = copy_checkpoint(tiny_checkpoint("llama"))
    config = json.loads((folder / "config.json").read_text())
    config["intermediate_size"] = 48
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(folder)
    assert one_line(err)


def test_an_unknown_architecture_without_transformers_says_to_install_it(tiny_checkpoint, copy_checkpoint,
                                                                         monkeypatch):
    from explorer.core.checkpoints import load
    folder = copy_checkpoint(tiny_checkpoint("gpt_neox"))
    monkeypatch.setattr(load, "transformers_installed", lambda: False)
    with pytest.raises(CheckpointError) as err:
        load.load_checkpoint(folder)
    assert "unknown architecture gpt_neox (install transformers to open it)" in one_line(err)
