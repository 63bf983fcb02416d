"""Pretrained models (MiniLM-L6, multilingual-e5-small, SmolLM2-135M) whose weights ship in pip packages.

Importing this package imports neither torch nor the models' packages: the registry says what
exists and whether it is installed; `load_model` (torch) reads the weights on first use.
"""

from __future__ import annotations

from .analysis import TextTooLongError
from .registry import (MODELS, ModelNotInstalledError, ModelSpec, get_spec, installed_version,
                       is_installed, weights_path)
from .roles import ROLES, HeadRole, find_repeat, score_heads

__all__ = ["MODELS", "ROLES", "HeadRole", "ModelNotInstalledError", "ModelSpec", "TextTooLongError",
           "find_repeat", "get_spec", "installed_version", "is_installed", "load_model",
           "score_heads", "weights_path"]


def load_model(name: str, device: str = "cpu"):
    """The loaded model (cached); imports torch on first call."""
    from .loader import load_model as _load
    return _load(name, device)

