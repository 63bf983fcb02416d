"""A PEFT adapter folder, checked before a byte of its weights is loaded.

    adapter = open_adapter("/path/to/adapter")   # adapter_config.json + adapter_model.safetensors
    adapter.settings                             # adapter_config.LoraSettings | IA3Settings | VirtualSettings
    adapter.tensors["base_model.model....lora_A.weight"]   # layout.TensorInfo: dtype, shape (checked header)
    tensors = read_tensors(adapter)              # torch: name -> float32 CPU tensor (finite)

Both files are read through core.files.user_files (regular files only, size caps, never
blocking); the safetensors header goes through checkpoints.layout.read_header (length, dtypes,
shapes, offsets inside the file, no overlaps) before safetensors opens the file. An adapter saved
only as adapter_model.bin / .pt / .pth (a pickle) is refused without being opened. Every refusal
is one AdapterError line. Torch is imported by read_tensors only.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..files.user_files import UserFileError, read_user_file
from ..checkpoints.layout import FLOATS, read_header
from ..checkpoints.native import CheckpointError
from . import errors as e
from .adapter_config import parse_config

CONFIG = "adapter_config.json"
WEIGHTS = "adapter_model.safetensors"
PICKLES = ("adapter_model.bin", "adapter_model.pt", "adapter_model.pth", "adapter_model.ckpt")
MAX_CONFIG_BYTES = 1 << 20
MAX_TENSORS = 20_000   # a LoRA on every projection of an 80-layer model saves ~1,100


@dataclass(frozen=True, eq=False)
class Adapter:
    """A checked adapter folder (module docstring); nothing of its weights is loaded yet."""

    folder: Path
    settings: object                        # adapter_config.LoraSettings | IA3Settings | VirtualSettings
    config: dict = field(repr=False)        # adapter_config.json as read (for display only)
    weights_file: Path
    tensors: dict = field(repr=False)       # name -> layout.TensorInfo
    opened: tuple = field(default=(), repr=False)  # stamp() when it was read

    @property
    def method(self) -> str:
        """"lora", "ia3", "prefix" or "prompt"."""
        return self.settings.method

    @property
    def parameters(self) -> int:
        """Elements of the saved tensors: the adapter's trainable parameters as saved (prefix tuning
        with prefix_projection saves the MLP's output, not the MLP)."""
        return sum(t.numel for t in self.tensors.values())

    @property
    def nbytes(self) -> int:
        return sum(t.end - t.begin for t in self.tensors.values())

    def changed(self) -> bool:
        """Whether either file changed since it was read (then open it again)."""
        try:
            return self.stamp() != self.opened
        except OSError:
            return True

    def stamp(self) -> tuple:
        """What changes when either file changes (the cache key's part)."""
        out = []
        for f in (self.folder / CONFIG, self.weights_file):
            info = os.stat(f)
            out.append((info.st_mtime_ns, info.st_size))
        return (str(self.folder.resolve()), tuple(out))


def open_adapter(folder) -> Adapter:
    """The checked adapter in `folder` (AdapterError: one line for anything that cannot be used)."""
    folder = Path(os.fspath(folder)).expanduser()
    try:
        mode = os.stat(folder).st_mode
    except FileNotFoundError:
        raise e.fail(e.NOT_A_FOLDER, path=str(folder), reason="it does not exist") from None
    except OSError as exc:
        raise e.fail(e.NOT_A_FOLDER, path=str(folder), reason=exc.strerror or "cannot read it") from None
    if not stat.S_ISDIR(mode):
        raise e.fail(e.NOT_A_FOLDER, path=str(folder), reason="not a folder")
    config = _read_config(folder)
    settings = parse_config(folder, config)
    weights = _weights_file(folder)
    try:
        tensors = read_header(weights)
    except CheckpointError as exc:
        raise e.AdapterError(str(exc), exc.template, exc.params) from None
    if len(tensors) > MAX_TENSORS:
        raise e.fail(e.TOO_MANY_TENSORS, path=str(folder), n=len(tensors), limit=MAX_TENSORS)
    for name, info in tensors.items():
        if info.dtype not in FLOATS:
            raise e.fail(e.NOT_FLOAT, path=str(folder), tensor=name, dtype=info.dtype)
    if not tensors:
        raise e.fail(e.EMPTY, ("method",), path=str(folder), method=e.METHOD_NAMES[settings.method])
    adapter = Adapter(folder, settings, config, weights, tensors)
    try:
        return dataclasses.replace(adapter, opened=adapter.stamp())
    except OSError as exc:  # a file gone since
        raise e.fail(e.NOT_A_FOLDER, path=str(folder), reason=exc.strerror or "cannot read it") from None


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _read_config(folder: Path) -> dict:
    path = folder / CONFIG
    if not _exists(path):
        if any(_exists(folder / p) for p in PICKLES) and not _exists(folder / WEIGHTS):
            raise _pickled(folder)
        raise e.fail(e.NO_CONFIG, path=str(folder))
    try:
        data = read_user_file(path, MAX_CONFIG_BYTES)
    except UserFileError as exc:
        raise e.AdapterError(str(exc), exc.template, exc.params) from None
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise e.fail(e.NOT_JSON, path=str(folder), reason=reason[:120]) from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _weights_file(folder: Path) -> Path:
    path = folder / WEIGHTS
    if _exists(path):
        return path
    if any(_exists(folder / p) for p in PICKLES):
        raise _pickled(folder)
    raise e.fail(e.NO_WEIGHTS, path=str(folder))


def _pickled(folder: Path) -> e.AdapterError:
    found = next(p for p in PICKLES if _exists(folder / p))
    return e.fail(e.PICKLED, path=str(folder), file=found)


def read_tensors(adapter: Adapter) -> dict:
    """name -> float32 CPU tensor, every value finite (AdapterError otherwise). The header was
    checked by open_adapter; safetensors re-checks it as it opens the file."""
    import torch
    from safetensors import safe_open
    from ..checkpoints.layout import size_text
    from ..checkpoints.tensors import TOO_BIG, available_memory
    need, free = 4 * adapter.parameters, available_memory("cpu")  # read as float32 on the CPU first
    if free is not None and need > free:
        raise e.fail(TOO_BIG, path=str(adapter.folder), name=str(adapter.weights_file), need=size_text(need),
                     dtype="float32", where="this machine", free=size_text(free))
    out = {}
    try:
        with safe_open(os.fspath(adapter.weights_file), framework="pt", device="cpu") as f:
            for name in adapter.tensors:
                out[name] = f.get_tensor(name).to(torch.float32)
    except Exception as exc:  # noqa: BLE001 - safetensors' own checks, a file changed since
        line = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise e.fail(e.BAD_WEIGHTS, path=str(adapter.weights_file), reason=line[:120]) from None
    for name, tensor in out.items():
        if not bool(torch.isfinite(tensor).all()):
            raise e.fail(e.NOT_FINITE, path=str(adapter.folder), tensor=name)
    return out


def shape_text(shape) -> str:
    return str(tuple(int(s) for s in shape))
