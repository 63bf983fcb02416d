"""A checkpoint's tensors onto a device (torch, imported on use), after a memory check.

    need = memory_needed(ckpt, "float32")           # bytes the loaded tensors take
    check_memory(ckpt, "float32", device)            # CheckpointError saying both numbers if it won't fit
    tensors = load_tensors(ckpt, device, "float32", should_stop, progress)   # name -> Tensor

Floating tensors become float32 (or stay in their own dtype with dtype=None, or any of float16 /
bfloat16 when asked); integer buffers keep theirs. `should_stop` (core.cancel) is polled between
tensors, `progress(fraction)` is called as bytes are read. The headers were checked by layout.py
before safetensors opens a file.
"""

from __future__ import annotations

import os

from ..cancel import Cancelled, check
from ..messages import QT_TRANSLATE_NOOP
from .layout import FLOATS, ITEMSIZE, Checkpoint, size_text
from .native import CheckpointError

DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16"}
TOO_BIG = QT_TRANSLATE_NOOP("core", "{name} needs {need} of memory as {dtype}; {where} has {free} available")


def memory_needed(ckpt: Checkpoint, dtype: str | None = "float32") -> int:
    """Bytes the loaded tensors take: floating ones at `dtype`'s size (None: their own)."""
    size = None if dtype is None else ITEMSIZE[DTYPES[dtype]]
    return sum(t.numel * (size if size is not None and t.dtype in FLOATS else ITEMSIZE[t.dtype])
               for t in ckpt.tensors.values())


def available_memory(device: str = "cpu") -> int | None:
    """Bytes free: MemAvailable of /proc/meminfo for the CPU, the device's free memory for CUDA;
    None when it cannot be known (then nothing is refused)."""
    if str(device).startswith("cuda"):
        try:
            import torch
            free, _total = torch.cuda.mem_get_info(torch.device(device))
            return int(free)
        except Exception:  # noqa: BLE001 - no CUDA: the device check says so elsewhere
            return None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(ckpt: Checkpoint, dtype: str | None = "float32", device: str = "cpu",
                 free: int | None = None) -> int:
    """The bytes needed; CheckpointError (both numbers) when the machine does not have them."""
    need = memory_needed(ckpt, dtype)
    free = available_memory(device) if free is None else free
    if free is not None and need > free:
        where = "this machine" if not str(device).startswith("cuda") else str(device)
        raise CheckpointError.of(TOO_BIG, name=ckpt.name, need=size_text(need),
                                 dtype=dtype or ckpt.dtype_name, where=where, free=size_text(free))
    return need


def load_tensors(ckpt: Checkpoint, device="cpu", dtype: str | None = "float32", should_stop=None,
                 progress=None) -> dict:
    """name -> torch.Tensor on `device` (see the module docstring); Cancelled when `should_stop`."""
    import torch
    from safetensors import safe_open
    check_memory(ckpt, dtype, str(device))
    target = None if dtype is None else getattr(torch, dtype)
    dev = torch.device(device)
    total = max(1, sum(t.end - t.begin for t in ckpt.tensors.values()))
    done = 0
    out = {}
    by_file: dict = {}
    for name, info in ckpt.tensors.items():
        by_file.setdefault(info.file, []).append(name)
    try:
        for file in ckpt.weight_files:
            names = by_file.get(file, [])
            if not names:
                continue
            with safe_open(os.fspath(file), framework="pt", device="cpu") as f:
                for name in names:
                    check(should_stop, "loading the model")
                    tensor = f.get_tensor(name)
                    if target is not None and tensor.is_floating_point():
                        tensor = tensor.to(dtype=target)
                    out[name] = tensor.to(dev)
                    done += ckpt.tensors[name].end - ckpt.tensors[name].begin
                    if progress is not None:
                        progress(done / total)
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - safetensors' own checks, a file changed since, no memory
        line = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise CheckpointError(f"{ckpt.name}: cannot read the weights ({line})") from None
    if progress is not None:
        progress(1.0)
    return out
