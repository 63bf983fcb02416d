"""Qt-free computation core of Attention Explorer (numpy; torch only when asked for).

Nothing here imports Qt, and torch is imported only when a torch backend is used.
"""

from .attention import AttentionResult, forward, model_input
from .cancel import Cancelled
from .backends import DeviceInfo, DeviceUnavailableError, list_devices
from .config import (MAX_D_MODEL, MAX_TOKENS, SEED_MAX, AttentionConfig, ConfigError,
                     split_sentence, validate)
from .kv_cache import KVCache, KVStep, KVTrace, run_kv_cache
from .positional import offset_map, similarity, sinusoidal_table
from .presets import PRESETS, Preset, get_preset
from .stats import HeadStats

__all__ = [
    "AttentionConfig", "AttentionResult", "Cancelled", "ConfigError", "DeviceInfo", "DeviceUnavailableError",
    "HeadStats", "KVCache", "KVStep", "KVTrace", "MAX_D_MODEL", "MAX_TOKENS", "PRESETS", "Preset",
    "SEED_MAX", "forward", "get_preset", "list_devices", "model_input", "offset_map",
    "run_kv_cache", "similarity", "sinusoidal_table", "split_sentence", "validate",
]
