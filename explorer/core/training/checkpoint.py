"""A trained model as safetensors bytes (no pickle), its TrainConfig in the metadata; and back.

The file holds the model's tensors (float32, on the CPU) and three metadata strings: the format
tag, the config as JSON and the number of steps trained. `model_bytes` makes the file's bytes;
the app, the CLI and `save_model` write them through the one output writer (core.output_files:
never over a FIFO, a device or a symlink, mode from the umask, all or nothing).

`load_model` treats the file as hostile: it is read by the one reader of users' files
(core.user_files: regular files only, never blocks, size capped first), its header is parsed
and checked here before safetensors sees the bytes, the config is validated before a model is
built, every tensor must have the name, shape and dtype that config gives it, and every weight
must be finite. Every refusal is one CheckpointError line (English by str(); in the UI's
language through app.i18n.error_text).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from ..config import ConfigError
from ..messages import QT_TRANSLATE_NOOP, TranslatableError
from ..files.output_files import ExportError, write_file
from ..files.user_files import UserFileError, read_user_file
from .config import TrainConfig

FORMAT = "attention-explorer/tiny-transformer/1"
# The largest valid config (2 layers, d_model 512, vocab 1024, seq 256) is 13.1 MB of float32;
# anything much larger is not a model of ours, and is refused before it is read.
MAX_MODEL_BYTES = 32 * 1024**2
_DTYPE = "F32"
_MAX_STEPS_DIGITS = 12

READ_FAILED = QT_TRANSLATE_NOOP("core", "cannot read {path}: {reason}")
REFUSED = QT_TRANSLATE_NOOP("core", "cannot read the model file: {error}")  # a core.user_files refusal
NOT_SAFETENSORS = QT_TRANSLATE_NOOP("core", "it is not a safetensors file")
BAD_HEADER = QT_TRANSLATE_NOOP("core", "its safetensors header is not valid")
NOT_OURS = QT_TRANSLATE_NOOP("core", "{path} is not a model saved by attention-explorer train")
BAD_CONFIG = QT_TRANSLATE_NOOP("core", "{path} has a bad config: {error}")
BAD_STEPS = QT_TRANSLATE_NOOP("core", "{path} has a bad step count {value}")
NO_TENSOR = QT_TRANSLATE_NOOP("core", "{path} does not match its config: it has no tensor {name}")
EXTRA_TENSOR = QT_TRANSLATE_NOOP("core", "{path} does not match its config: its tensor {name} has no "
                                         "place in the model")
BAD_SHAPE = QT_TRANSLATE_NOOP("core", "{path} does not match its config: tensor {name} has shape "
                                      "{shape}, the config needs {expected}")
BAD_DTYPE = QT_TRANSLATE_NOOP("core", "{path}: tensor {name} is {dtype}; saved models are float32 (F32)")
NOT_FINITE = QT_TRANSLATE_NOOP("core", "{path}: tensor {name} holds NaN or infinite weights")
NOT_SAVED = QT_TRANSLATE_NOOP("core", "the model was not saved: {error}")
NEEDS_SAFETENSORS = QT_TRANSLATE_NOOP("core", "saving and loading trained models needs the safetensors "
                                              "package (pip install 'attention-explorer[models]')")


class CheckpointError(TranslatableError, OSError):
    """A model file cannot be written or read; one line saying which file and why.

    (An OSError too, as it always was: callers that catch OSError for file trouble still do.)"""

    context = "core"


def require_safetensors():
    """The safetensors modules, or CheckpointError naming the install (it is the [models] extra)."""
    try:
        import safetensors
        import safetensors.torch
    except ImportError as exc:
        raise CheckpointError.of(NEEDS_SAFETENSORS) from exc
    return safetensors, safetensors.torch


# ----- saving ------------------------------------------------------------------------------------
def model_bytes(model, steps_trained: int) -> bytes:
    """The safetensors file of `model` (tensors as float32 on the CPU, config and steps as metadata)."""
    st_torch = require_safetensors()[1]
    tensors = {name: t.detach().to("cpu").contiguous() for name, t in model.state_dict().items()}
    metadata = {"format": FORMAT, "config": model.config.to_json(), "steps": str(int(steps_trained))}
    return st_torch.save(tensors, metadata=metadata)


def save_model(model, path, steps_trained: int) -> Path:
    """Write `model_bytes` to `path`, replacing a regular file there (Trainer.save: scripts and
    tests), through the one output writer (core.output_files: never over a FIFO, a device, a
    symlink or a folder; mode from the umask; nothing left behind). CheckpointError on failure."""
    data = model_bytes(model, steps_trained)
    try:
        return write_file(Path(path), data, on_exists="overwrite")
    except ExportError as exc:
        raise CheckpointError.of(NOT_SAVED, error=exc) from None


# ----- loading -----------------------------------------------------------------------------------
def _shown(value, limit: int = 60) -> str:
    """A value from the file, in a message: repr (control characters escaped), cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def read_header(data: bytes, path) -> tuple[dict, dict]:
    """(tensor entries by name, metadata) of a safetensors file's bytes, checked for shape:
    CheckpointError for anything that is not a well-formed safetensors header."""
    def refuse(reason):
        return CheckpointError.of(READ_FAILED, ("reason",), path=str(path), reason=reason)

    if len(data) < 8:
        raise refuse(NOT_SAFETENSORS)
    (size,) = struct.unpack("<Q", data[:8])
    if size > len(data) - 8:
        raise refuse(NOT_SAFETENSORS)
    try:
        header = json.loads(data[8:8 + size].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise refuse(NOT_SAFETENSORS) from None
    if not isinstance(header, dict):
        raise refuse(BAD_HEADER)
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise refuse(BAD_HEADER)
    for entry in header.values():
        if not (isinstance(entry, dict) and isinstance(entry.get("dtype"), str)
                and isinstance(entry.get("shape"), list)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in entry["shape"])):
            raise refuse(BAD_HEADER)
    return header, metadata


def _config_of(metadata: dict, path) -> tuple[TrainConfig, int]:
    """The validated TrainConfig and step count of a file's metadata."""
    if metadata.get("format") != FORMAT:
        raise CheckpointError.of(NOT_OURS, path=str(path))
    try:
        config = TrainConfig.from_json(metadata.get("config", ""))
    except ConfigError as exc:
        raise CheckpointError.of(BAD_CONFIG, path=str(path), error=exc) from None
    steps = metadata.get("steps", "0")
    if not (steps.isascii() and steps.isdigit() and len(steps) <= _MAX_STEPS_DIGITS):
        raise CheckpointError.of(BAD_STEPS, path=str(path), value=_shown(steps))
    return config, int(steps)


def _check_entries(entries: dict, expected: dict, path) -> None:
    """Every tensor the model has, with its shape and float32, and no other: else which and why."""
    for name, tensor in expected.items():
        if name not in entries:
            raise CheckpointError.of(NO_TENSOR, path=str(path), name=name)
        entry = entries[name]
        if entry["dtype"] != _DTYPE:
            raise CheckpointError.of(BAD_DTYPE, path=str(path), name=name, dtype=_shown(entry["dtype"]))
        if entry["shape"] != list(tensor.shape):
            raise CheckpointError.of(BAD_SHAPE, path=str(path), name=name, shape=_shown(entry["shape"]),
                                     expected=list(tensor.shape))
    extra = sorted(set(entries) - set(expected))
    if extra:
        raise CheckpointError.of(EXTRA_TENSOR, path=str(path), name=_shown(extra[0]))


def load_model(path, device: str = "cpu"):
    """(model on `device`, its TrainConfig, steps trained) from a file made by model_bytes."""
    safetensors, st_torch = require_safetensors()

    import torch

    from ..backends import resolve_torch_device
    from .model import TinyTransformer
    target = resolve_torch_device(device)  # DeviceUnavailableError before any reading
    try:
        data = read_user_file(path, MAX_MODEL_BYTES)  # a FIFO or /dev/zero: refused at once
    except UserFileError as exc:
        raise CheckpointError.of(REFUSED, error=exc) from None
    entries, metadata = read_header(data, path)
    config, steps = _config_of(metadata, path)
    model = TinyTransformer(config)
    _check_entries(entries, model.state_dict(), path)
    try:
        tensors = st_torch.load(data)  # offsets and lengths: safetensors' own checks
    except (safetensors.SafetensorError, ValueError, RuntimeError):
        raise CheckpointError.of(READ_FAILED, ("reason",), path=str(path), reason=BAD_HEADER) from None
    for name, tensor in tensors.items():
        if not bool(torch.isfinite(tensor).all()):
            raise CheckpointError.of(NOT_FINITE, path=str(path), name=name)
    model.load_state_dict(tensors, strict=True)  # names, shapes and dtypes are checked above
    return model.to(target).eval(), config.replace(device=device), steps
