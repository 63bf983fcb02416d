"""Where attention runs: numpy, or torch on the CPU or a CUDA device.

torch is imported the first time a torch backend is used (or devices are listed),
never at import time, so start-up and numpy-only work don't pay for it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


class DeviceUnavailableError(RuntimeError):
    """The requested device does not exist on this machine; the message says why."""


@dataclass(frozen=True)
class DeviceInfo:
    """One place attention can run, as offered to the user."""

    backend: str       # "numpy" or "torch"
    device: str        # "cpu", "cuda:0", ...
    label: str         # what a menu shows
    available: bool
    reason: str = ""   # why it is unavailable (tooltip text)


def torch_module():
    """Import torch on first use; raise DeviceUnavailableError if it is not installed."""
    try:
        return importlib.import_module("torch")
    except ImportError as exc:  # pragma: no cover - torch is a dependency
        raise DeviceUnavailableError(f"torch is not installed ({exc})") from exc


def list_devices() -> list[DeviceInfo]:
    """numpy and torch CPU always; each CUDA device torch reports, or one disabled entry saying why."""
    devices = [DeviceInfo("numpy", "cpu", "numpy (CPU)", True)]
    try:
        torch = torch_module()
    except DeviceUnavailableError as exc:
        return devices + [DeviceInfo("torch", "cpu", "torch CPU", False, str(exc))]
    devices.append(DeviceInfo("torch", "cpu", "torch CPU", True))
    if not torch.backends.cuda.is_built():
        reason = f"this torch build ({torch.__version__}) has no CUDA support"
        return devices + [DeviceInfo("torch", "cuda:0", "torch CUDA", False, reason)]
    if not torch.cuda.is_available():
        reason = "torch was built with CUDA but sees no usable GPU (no device or driver)"
        return devices + [DeviceInfo("torch", "cuda:0", "torch CUDA", False, reason)]
    for i in range(torch.cuda.device_count()):
        name = torch.cuda.get_device_name(i)
        devices.append(DeviceInfo("torch", f"cuda:{i}", f"torch CUDA {i}: {name}", True))
    return devices


def canonical_device(device: str) -> str:
    """The device a name means: bare "cuda" is "cuda:0" (as torch runs it); others unchanged."""
    return "cuda:0" if device == "cuda" else device


def resolve_torch_device(device: str):
    """A torch.device for `device`, or DeviceUnavailableError with a clear reason."""
    torch = torch_module()
    if device == "cpu":
        return torch.device("cpu")
    if not torch.backends.cuda.is_built():
        raise DeviceUnavailableError(
            f"CUDA was requested but this torch build ({torch.__version__}) has no CUDA support")
    if not torch.cuda.is_available():
        raise DeviceUnavailableError("CUDA was requested but no CUDA device is available")
    index = int(device.split(":")[1]) if ":" in device else 0
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceUnavailableError(f"{device} was requested but only {count} CUDA device(s) exist")
    return torch.device(f"cuda:{index}")
