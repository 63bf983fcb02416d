"""Save and load a trained model as safetensors (no pickle), its TrainConfig in the metadata.

The file holds the model's tensors (float32, on the CPU) and three metadata strings: the format
tag, the config as JSON and the number of steps trained. Loading validates the config before
building the model, so a file can never ask for something a TrainConfig could not.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..config import ConfigError
from .config import TrainConfig

FORMAT = "attention-explorer/tiny-transformer/1"


class CheckpointError(OSError):
    """A model file cannot be written or read; the message says which file and why."""


def require_safetensors():
    """The safetensors modules, or CheckpointError naming the install (it is the [models] extra)."""
    try:
        import safetensors
        import safetensors.torch
    except ImportError as exc:
        raise CheckpointError("saving and loading trained models needs the safetensors package "
                              "(pip install 'attention-explorer[models]')") from exc
    return safetensors, safetensors.torch


def save_model(model, path, steps_trained: int) -> Path:
    """Write `model` to `path` atomically (a temporary file renamed into place); return the path."""
    save_file = require_safetensors()[1].save_file
    path = Path(path)
    tensors = {name: t.detach().to("cpu").contiguous() for name, t in model.state_dict().items()}
    metadata = {"format": FORMAT, "config": model.config.to_json(), "steps": str(int(steps_trained))}
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as exc:
        raise CheckpointError(f"cannot write {path}: {exc.strerror or exc}") from exc
    os.close(fd)
    try:
        save_file(tensors, tmp, metadata=metadata)
        os.replace(tmp, path)
    except Exception as exc:
        Path(tmp).unlink(missing_ok=True)  # nothing left behind
        raise CheckpointError(f"cannot write {path}: {exc}") from exc
    return path


def load_model(path, device: str = "cpu"):
    """(model on `device`, its TrainConfig, steps trained) from a file written by save_model."""
    safetensors, st_torch = require_safetensors()

    from ..backends import resolve_torch_device
    from .model import TinyTransformer
    target = resolve_torch_device(device)  # DeviceUnavailableError before any reading
    path = Path(path)
    try:
        with safetensors.safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
        tensors = st_torch.load_file(str(path))
    except (OSError, safetensors.SafetensorError) as exc:
        raise CheckpointError(f"cannot read {path}: {exc}") from exc
    if metadata.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a model saved by attention-explorer train")
    try:
        config = TrainConfig.from_json(metadata.get("config", ""))
        steps = int(metadata.get("steps", "0"))
    except (ConfigError, ValueError, TypeError) as exc:
        raise CheckpointError(f"{path} has a bad config: {exc}") from exc
    model = TinyTransformer(config)
    try:
        model.load_state_dict(tensors, strict=True)
    except RuntimeError as exc:
        raise CheckpointError(f"{path} does not match its config: {exc}".splitlines()[0]) from exc
    return model.to(target).eval(), config.replace(device=device), steps
