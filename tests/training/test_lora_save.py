"""Writing an adapter folder (core.training.lora_save) through the one output writer."""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from explorer.core.files import output_files  # noqa: E402
from explorer.core.files.output_files import ExportError, ExportExistsError  # noqa: E402
from explorer.core.training import TrainConfig, build_model  # noqa: E402
from explorer.core.training.lora import LoraModel  # noqa: E402
from explorer.core.training.lora_config import LoraConfig  # noqa: E402
from explorer.core.training.lora_save import (adapter_files, check_adapter_folder,  # noqa: E402
                                              write_adapter)

BASE = TrainConfig(d_model=16, n_heads=2, vocab=16, seq_len=16, batch=8, steps=5)


@pytest.fixture(scope="module")
def files():
    return adapter_files(LoraModel(build_model(BASE), LoraConfig(rank=2, targets=("v", "o"))), 7, None)


def test_writes_both_files_into_a_new_nested_folder(tmp_path, files):
    written = write_adapter(tmp_path / "a" / "b", files)
    assert [p.name for p in written] == ["adapter_config.json", "adapter_model.safetensors"]
    config = json.loads(written[0].read_text())
    assert config["target_modules"] == ["qkv", "out"] and config["rank_pattern"] == {}
    assert config["base_model_name_or_path"] is None
    from safetensors import safe_open
    with safe_open(written[1], "pt") as f:
        assert f.metadata()["format"] == "pt"
        assert json.loads(f.metadata()["attention_explorer"])["blocks"] == ["v", "o"]
        assert f.get_tensor("base_model.model.layers.1.qkv.lora_B.weight").shape == (48, 2)
        assert f.get_tensor("base_model.model.layers.0.out.lora_A.weight").shape == (2, 16)


def test_an_existing_adapter_is_replaced_only_when_asked(tmp_path, files):
    write_adapter(tmp_path, files)
    with pytest.raises(ExportExistsError):
        write_adapter(tmp_path, files)
    check_adapter_folder(tmp_path, "overwrite")
    with pytest.raises(ExportExistsError):
        check_adapter_folder(tmp_path)
    assert len(write_adapter(tmp_path, files, "overwrite")) == 2


def test_never_over_a_fifo(tmp_path, files):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for call in (lambda: write_adapter(fifo, files, "overwrite"),
                 lambda: check_adapter_folder(fifo, "overwrite")):
        with pytest.raises(ExportError, match="not a folder"):
            call()
    os.mkfifo(tmp_path / "adapter_config.json")  # a FIFO where a file goes: refused, overwrite or not
    with pytest.raises(ExportError, match="not a regular file"):
        write_adapter(tmp_path, files, "overwrite")
    assert (tmp_path / "adapter_config.json").is_fifo() and not (tmp_path / "adapter_model.safetensors").exists()


def test_a_failed_write_leaves_no_folder_it_created(tmp_path, files, monkeypatch):
    def disk_full(folder, name, data):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(output_files, "_stage", disk_full)
    with pytest.raises(ExportError, match="disk is full"):
        write_adapter(tmp_path / "new" / "adapter", files)
    assert list(tmp_path.iterdir()) == []  # both folders it made are gone
    (tmp_path / "kept").mkdir()
    with pytest.raises(ExportError):
        write_adapter(tmp_path / "kept", files)
    assert (tmp_path / "kept").is_dir() and list((tmp_path / "kept").iterdir()) == []


def test_a_missing_folder_under_a_file_is_refused_before_training(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError):
        check_adapter_folder(tmp_path / "file" / "adapter")
    check_adapter_folder(tmp_path / "new" / "adapter")  # fine: it will be made
