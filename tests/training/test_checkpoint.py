"""Save / load with safetensors: the same attention back, bad files refused in one line, no leftovers."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

from explorer.core import ConfigError  # noqa: E402
from explorer.core.training import (CheckpointError, TrainConfig, Trainer,  # noqa: E402
                                    load_model)
from explorer.core.training.checkpoint import FORMAT  # noqa: E402

CONFIG = TrainConfig(steps=20, log_every=10, batch=16, n_heads=2, d_model=32, seed=9, task="reverse")


@pytest.fixture(scope="module")
def trained():
    trainer = Trainer(CONFIG)
    list(trainer.run())
    return trainer


def test_a_loaded_model_gives_identical_attention_and_logits(trained, tmp_path):
    path = trained.save(tmp_path / "m.safetensors")
    model, config, steps = load_model(path)
    assert config == CONFIG and steps == 20
    tokens = torch.from_numpy(trained.probe).long()[None]  # (1, T)
    with torch.no_grad():
        logits_a, attn_a = trained.model.eval()(tokens)
        logits_b, attn_b = model(tokens)
    assert torch.equal(logits_a, logits_b)
    for a, b in zip(attn_a, attn_b):
        assert torch.equal(a, b)
    # a trainer built on the loaded model sees the same probe attention
    np.testing.assert_array_equal(Trainer(config, model=model).probe_attention(), trained.probe_attention())
    with pytest.raises(ConfigError, match="the model has d_model 32, the config asks for 64"):
        Trainer(config.replace(d_model=64), model=model)


def test_the_file_is_plain_safetensors_with_the_config_in_its_metadata(trained, tmp_path):
    path = trained.save(tmp_path / "m.safetensors")
    from safetensors import safe_open
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata()
        names = set(f.keys())
    assert meta["format"] == FORMAT and json.loads(meta["config"])["task"] == "reverse"
    assert {"embed.weight", "pos.weight", "unembed.weight", "layers.1.qkv.weight"} <= names
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]  # no temporary file left


def write(path, tensors, metadata):
    safetensors_torch.save_file(tensors, str(path), metadata=metadata)
    return path


def test_bad_files_raise_one_line_checkpoint_errors(trained, tmp_path):
    state = {k: v.contiguous() for k, v in trained.model.state_dict().items()}
    good = {"format": FORMAT, "config": CONFIG.to_json(), "steps": "20"}
    cases = {
        "missing": (tmp_path / "nope.safetensors", "cannot read"),
        "text": (tmp_path / "t.safetensors", "cannot read"),
        "foreign": (write(tmp_path / "f.safetensors", state, {"format": "other"}), "not a model saved"),
        "badconfig": (write(tmp_path / "c.safetensors", state, {**good, "config": '{"n_layers": 7}'}),
                      "bad config: layers must be between 1 and 2"),
        "mismatch": (write(tmp_path / "s.safetensors", state,
                           {**good, "config": CONFIG.replace(d_model=64).to_json()}),
                     "does not match its config"),
    }
    (tmp_path / "t.safetensors").write_text("not a model")
    for name, (path, message) in cases.items():
        with pytest.raises(CheckpointError) as info:
            load_model(path)
        assert message in str(info.value), name
        assert "\n" not in str(info.value), name


def test_a_failed_save_leaves_nothing_behind(trained, tmp_path):
    target = tmp_path / "folder.safetensors"
    target.mkdir()  # cannot be replaced by a file
    with pytest.raises(CheckpointError, match="not saved: .* is not a regular file \\(a folder\\)"):
        trained.save(target)
    assert [p.name for p in tmp_path.iterdir()] == ["folder.safetensors"]
    with pytest.raises(CheckpointError, match="not saved: cannot write to .*: the folder does not exist"):
        trained.save(tmp_path / "missing" / "m.safetensors")


def test_without_safetensors_saving_says_which_package_to_install(trained, tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "safetensors", None)  # import safetensors -> ImportError
    monkeypatch.setitem(sys.modules, "safetensors.torch", None)
    message = r"needs the safetensors package \(pip install 'attention-explorer\[models\]'\)"
    with pytest.raises(CheckpointError, match=message):
        trained.save(tmp_path / "m.safetensors")
    assert list(tmp_path.iterdir()) == []
