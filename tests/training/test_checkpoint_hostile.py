"""Saved models are hostile input (issue 21, rows 2c, 3 and 7 and the smaller ones): refused at
once when they are not regular files, in one CheckpointError line whatever the header or the
metadata holds (hypothesis properties), non-finite weights refused, a mismatch named; saving never
replaces a FIFO and follows the umask."""

from __future__ import annotations

import json
import os
import stat
import struct
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

from explorer.core.config import SEED_MAX  # noqa: E402
from explorer.core.training import CheckpointError, TrainConfig, load_model, save_model  # noqa: E402
from explorer.core.training.checkpoint import FORMAT, model_bytes  # noqa: E402
from explorer.core.training.model import TinyTransformer  # noqa: E402

CONFIG = TrainConfig(steps=20, log_every=10, batch=16, n_heads=2, d_model=16, vocab=16, seq_len=16,
                     seed=9, task="reverse")
RELEASE_S = 20  # the helper lets a reader blocked on the FIFO go after this long


@pytest.fixture(scope="module")
def model():
    return TinyTransformer(CONFIG)


def state_of(model):
    return {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}


def metadata(config: TrainConfig | str = CONFIG, **changes) -> dict:
    text = config if isinstance(config, str) else config.to_json()
    return {"format": FORMAT, "config": text, "steps": "20", **changes}


def write(path, tensors, meta):
    path.write_bytes(safetensors_torch.save(tensors, metadata=meta))
    return path


def refused(path, *parts) -> str:
    """load_model(path) raises one CheckpointError line holding every part; that line."""
    with pytest.raises(CheckpointError) as info:
        load_model(path)
    message = str(info.value)
    assert "\n" not in message, message
    for part in parts:
        assert part in message, message
    return message


# ----- not a regular file (row 2c) ---------------------------------------------------------------
@pytest.fixture
def fifo_released_late(tmp_path):
    """A FIFO, and a helper process that opens it for writing after RELEASE_S seconds. The old
    loader blocked in open() holding the interpreter lock (so no thread of this process could time
    it out); the helper lets it go, and the old code fails the timing instead of hanging."""
    path = tmp_path / "model.safetensors"
    os.mkfifo(path)
    helper = subprocess.Popen([sys.executable, "-c",
                               f"import time; time.sleep({RELEASE_S}); open({str(path)!r}, 'wb').close()"])
    yield path
    helper.kill()
    helper.wait()


def test_a_fifo_is_refused_at_once(fifo_released_late):
    start = time.monotonic()
    refused(fifo_released_late, "is not a regular file (a FIFO)")
    assert time.monotonic() - start < RELEASE_S / 4
    assert stat.S_ISFIFO(os.stat(fifo_released_late).st_mode)


def test_dev_zero_and_an_oversized_file_are_refused_before_reading(tmp_path):
    refused("/dev/zero", "is not a regular file (a device)")
    huge = tmp_path / "huge.safetensors"
    with open(huge, "wb") as handle:
        handle.truncate(64 * 1024**2)  # sparse: nothing is really written
    refused(huge, "huge.safetensors is larger than")


# ----- what the app saves loads as saved (row 7) -------------------------------------------------
@pytest.mark.parametrize("changes", [{"seed": SEED_MAX}, {"lr": 1e-5}, {"lr": 1.0}, {"seed": 0, "lr": 5e-324}])
def test_every_config_core_accepts_loads_back_unchanged(tmp_path, changes):
    config = CONFIG.replace(**changes)
    path = tmp_path / "m.safetensors"
    path.write_bytes(model_bytes(TinyTransformer(config), 7))
    loaded, got, steps = load_model(path)
    assert got == config and steps == 7


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_weights_are_refused_in_one_line(model, tmp_path, bad):
    tensors = state_of(model)
    tensors["layers.1.out.weight"][3, 2] = bad
    path = write(tmp_path / "nan.safetensors", tensors, metadata())
    refused(path, "nan.safetensors: tensor layers.1.out.weight holds NaN or infinite weights")


# ----- a mismatch is named (smaller rows) --------------------------------------------------------
def test_a_shape_mismatch_names_the_tensor_and_both_shapes(model, tmp_path):
    path = write(tmp_path / "s.safetensors", state_of(model), metadata(CONFIG.replace(d_model=32)))
    refused(path, "does not match its config: tensor embed.weight has shape [16, 16], "
                  "the config needs [16, 32]")


def test_a_missing_extra_or_other_dtype_tensor_is_named(model, tmp_path):
    tensors = state_of(model)
    del tensors["pos.weight"]
    refused(write(tmp_path / "a.safetensors", tensors, metadata()), "it has no tensor pos.weight")
    tensors = {**state_of(model), "extra\nline": torch.zeros(2)}
    refused(write(tmp_path / "b.safetensors", tensors, metadata()), r"its tensor 'extra\nline' has no place")
    tensors = {**state_of(model), "embed.weight": state_of(model)["embed.weight"].half()}
    refused(write(tmp_path / "c.safetensors", tensors, metadata()), "tensor embed.weight is 'F16'")


def test_deeply_nested_config_metadata_is_one_line(model, tmp_path):
    path = write(tmp_path / "deep.safetensors", state_of(model),
                 metadata(config="[" * 100_000 + "]" * 100_000))
    refused(path, "has a bad config: training config is nested too deeply")


@pytest.mark.parametrize("steps", ["１２", "-1", "1_000", " 12", "9" * 40, ""])
def test_a_bad_step_count_is_refused(model, tmp_path, steps):
    path = write(tmp_path / "steps.safetensors", state_of(model), metadata(steps=steps))
    refused(path, "has a bad step count")


# ----- saving (row 3, the core's save_model) ------------------------------------------------------
def test_save_model_never_replaces_a_fifo_and_follows_the_umask(model, tmp_path):
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"not saved: .* is not a regular file \(a FIFO\); it is never replaced"):
        save_model(model, fifo, 0)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    old = os.umask(0o022)
    try:
        path = save_model(model, tmp_path / "m.safetensors", 3)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644  # was always 0600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.safetensors", "m.safetensors"]


# ----- hypothesis: whatever the header, one CheckpointError line -----------------------------------
def _loads_or_refuses(folder, data: bytes) -> None:
    path = folder / "h.safetensors"
    path.write_bytes(data)
    try:
        load_model(path)
    except CheckpointError as exc:
        assert "\n" not in str(exc) and str(exc)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


def _entry():
    return st.fixed_dictionaries({"dtype": st.sampled_from(["F32", "F16", "I64", "BOOL", "X"]) | json_values,
                                  "shape": st.lists(st.integers(-3, 40), max_size=3) | json_values,
                                  "data_offsets": st.lists(st.integers(-5, 5000), max_size=3) | json_values})


def _header(names):
    meta = st.dictionaries(st.sampled_from(["format", "config", "steps", "x"]),
                           st.sampled_from([FORMAT, CONFIG.to_json(), "20"]) | json_values, max_size=4)
    tensors = st.dictionaries(st.sampled_from(names) | st.text(max_size=8), _entry() | json_values, max_size=8)
    return st.tuples(tensors, meta | json_values)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile_headers")


@pytest.fixture(scope="module")
def good_bytes(model):
    return model_bytes(model, 20)


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300))
def test_any_bytes_load_or_refuse_in_one_line(folder, data):
    _loads_or_refuses(folder, data)


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_header_loads_or_refuses_in_one_line(folder, model, data):
    tensors, meta = data.draw(_header(list(model.state_dict())))
    header = dict(tensors) if isinstance(tensors, dict) else tensors
    if data.draw(st.booleans()):
        header = {**header, "__metadata__": meta}
    text = json.dumps(header).encode()
    size = data.draw(st.sampled_from([len(text), len(text) + 1, 0, 2**63]))
    tail = data.draw(st.binary(max_size=64))
    _loads_or_refuses(folder, struct.pack("<Q", size) + text + tail)


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_garbled_saved_model_loads_or_refuses_in_one_line(folder, good_bytes, data):
    """A real saved model with bytes overwritten (header, metadata or weights) or cut short."""
    raw = bytearray(good_bytes)
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.none() | st.integers(0, len(raw)))
    _loads_or_refuses(folder, bytes(raw if cut is None else raw[:cut]))


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.dictionaries(st.sampled_from(sorted(json.loads(CONFIG.to_json()))), json_values, max_size=6))
def test_any_config_metadata_loads_or_refuses_in_one_line(folder, model, fields):
    config = {**json.loads(CONFIG.to_json()), **fields}
    data = safetensors_torch.save(state_of(model), metadata=metadata(config=json.dumps(config)))
    _loads_or_refuses(folder, data)


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_right_names_and_shapes_with_any_offsets_load_or_refuse_in_one_line(folder, model, data):
    """Past the checks of names, shapes and dtypes: safetensors' own offsets checks, still one line."""
    header = {"__metadata__": metadata()}
    for name, tensor in model.state_dict().items():
        begin = data.draw(st.integers(-2, 70_000))
        end = data.draw(st.integers(-2, 70_000) | st.just(begin + 4 * tensor.numel()))
        header[name] = {"dtype": "F32", "shape": list(tensor.shape),
                        "data_offsets": data.draw(st.sampled_from([[begin, end], [begin], [], [end, begin, 1]]))}
    text = json.dumps(header).encode()
    _loads_or_refuses(folder, struct.pack("<Q", len(text)) + text + data.draw(st.binary(max_size=40_000)))
