"""adapter_config.json (peft 0.21.2's keys) read into one checked, frozen settings object.

    settings = parse_config(folder, config_dict)    # LoraSettings | IA3Settings | VirtualSettings

Each value that changes what the adapter computes is checked here, once: its type, its range
(r and the virtual tokens are bounded: a hostile r = 10¹² is refused before any tensor is read,
α must be positive and finite), the regular expressions (patterns.check), and the options this
reader does not compute (DoRA, trainable tokens, aLoRA, ...), refused unless they hold their
default. Keys that do not change the result (lora_dropout, init_lora_weights, revision,
task_type, ...) are not read. Every refusal is one AdapterError line naming the key.
Qt-free, torch-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from . import errors as e
from .patterns import pattern_problem

MAX_RANK = 4096
MAX_VIRTUAL = 1024
MAX_SIZE = 1 << 20          # token_dim, num_layers, num_attention_heads, encoder_hidden_size
MAX_ENTRIES = 1000          # names in a list, patterns in rank_pattern (peft's own lists hold a few)
METHODS = {"LORA": "lora", "IA3": "ia3", "PREFIX_TUNING": "prefix", "PROMPT_TUNING": "prompt"}
BIASES = ("none", "all", "lora_only")

# LoRA options that change the computation, readable only at their default (key -> (default, why))
_LORA_DEFAULTS = {
    "use_dora": (False, e.WHY_DORA), "trainable_token_indices": (None, e.WHY_DEFAULT),
    "target_parameters": (None, e.WHY_DEFAULT), "layer_replication": (None, e.WHY_DEFAULT),
    "alora_invocation_tokens": (None, e.WHY_DEFAULT), "use_qalora": (False, e.WHY_DEFAULT),
    "use_bdlora": (None, e.WHY_DEFAULT), "arrow_config": (None, e.WHY_DEFAULT),
    "kasa_config": (None, e.WHY_DEFAULT), "velora_config": (None, e.WHY_DEFAULT),
    "monteclora_config": (None, e.WHY_DEFAULT), "megatron_config": (None, e.WHY_DEFAULT),
}
_EMPTY = (None, [], {}, ())


@dataclass(frozen=True)
class LoraSettings:
    """W += scale · B·A per module, scale = α / r (rsLoRA: α / √r), r and α per module from the patterns."""

    r: int
    alpha: float
    use_rslora: bool
    target_modules: tuple[str, ...] | str | None
    rank_pattern: dict
    alpha_pattern: dict
    bias: str                              # "none", or "all" / "lora_only": the file holds trained biases
    lora_bias: bool                        # lora_B has a bias (added to the module's, scaled)
    modules_to_save: tuple[str, ...]       # whole modules trained beside the adapter (saved as they are)
    exclude_modules: tuple[str, ...] | str | None
    layers_to_transform: int | tuple[int, ...] | None
    layers_pattern: tuple[str, ...] | str | None
    fan_in_fan_out: bool                   # peft sets it from the module type (Conv1D); kept for display
    method: str = "lora"


@dataclass(frozen=True)
class IA3Settings:
    """Learned vectors: (out, 1) scales a module's output rows, (1, in) a feed-forward module's input."""

    target_modules: tuple[str, ...] | str | None
    feedforward_modules: tuple[str, ...] | str | None
    modules_to_save: tuple[str, ...]
    exclude_modules: tuple[str, ...] | str | None
    fan_in_fan_out: bool
    method: str = "ia3"
    layers_to_transform = None
    layers_pattern = None


@dataclass(frozen=True)
class VirtualSettings:
    """Prefix tuning (keys and values before the text, every layer) or prompt tuning (embeddings
    before the text): v virtual tokens, the sizes peft made them for."""

    method: str                     # "prefix" or "prompt"
    num_virtual_tokens: int
    token_dim: int | None           # prompt: the embedding width; prefix: kv_heads × d_head
    num_layers: int | None
    num_attention_heads: int | None  # prefix: the K/V heads
    prefix_projection: bool          # prefix: trained through an MLP (the file holds its output)


def parse_config(folder: Path, config) -> LoraSettings | IA3Settings | VirtualSettings:
    """The checked settings of adapter_config.json's dict (AdapterError: one line naming the key)."""
    if not isinstance(config, dict):
        raise e.fail(e.NOT_OBJECT, path=str(folder))
    r = _Reader(folder, config)
    kind = config.get("peft_type")
    if kind is None:
        raise e.fail(e.MISSING_SETTING, path=str(folder), key="peft_type")
    if not isinstance(kind, str):
        raise r.bad("peft_type", e.A_TEXT)
    method = METHODS.get(kind.upper())
    if method is None:
        raise e.fail(e.UNSUPPORTED_TYPE, path=str(folder), peft_type=kind[:40])
    return {"lora": _lora, "ia3": _ia3, "prefix": _virtual, "prompt": _virtual}[method](r, method)


def _lora(r: "_Reader", method: str) -> LoraSettings:
    for key, (default, why) in _LORA_DEFAULTS.items():
        r.default(key, default, why)
    bias = r.config.get("bias", "none")
    if bias not in BIASES:
        raise r.bad("bias", e.A_BIAS)
    return LoraSettings(
        r=r.whole("r", MAX_RANK, default=8), alpha=r.positive("lora_alpha", default=8),
        use_rslora=r.flag("use_rslora"), target_modules=r.modules("target_modules"),
        rank_pattern=r.patterns("rank_pattern", whole=True), alpha_pattern=r.patterns("alpha_pattern"),
        bias=bias, lora_bias=r.flag("lora_bias"), modules_to_save=r.names("modules_to_save"),
        exclude_modules=r.modules("exclude_modules"), layers_to_transform=r.layers("layers_to_transform"),
        layers_pattern=r.modules("layers_pattern"), fan_in_fan_out=r.flag("fan_in_fan_out"))


def _ia3(r: "_Reader", method: str) -> IA3Settings:
    return IA3Settings(target_modules=r.modules("target_modules"),
                       feedforward_modules=r.modules("feedforward_modules"),
                       modules_to_save=r.names("modules_to_save"), exclude_modules=r.modules("exclude_modules"),
                       fan_in_fan_out=r.flag("fan_in_fan_out"))


def _virtual(r: "_Reader", method: str) -> VirtualSettings:
    submodules = r.config.get("num_transformer_submodules")
    if submodules not in (None, 1):
        raise r.bad("num_transformer_submodules", e.ONE_SUBMODULE)
    r.default("modules_to_save", None, e.WHY_DEFAULT)
    return VirtualSettings(
        method=method, num_virtual_tokens=r.whole("num_virtual_tokens", MAX_VIRTUAL),
        token_dim=r.whole("token_dim", MAX_SIZE, default=None), num_layers=r.whole("num_layers", MAX_SIZE, default=None),
        num_attention_heads=r.whole("num_attention_heads", MAX_SIZE, default=None),
        prefix_projection=r.flag("prefix_projection"))


def _shown(value) -> str:
    """A value from the file, short and on one line, as the messages show it."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Reader:
    """adapter_config.json's values, each checked (a missing key takes peft's default)."""

    def __init__(self, folder: Path, config: dict):
        self.folder, self.config = folder, config

    def bad(self, key: str, expected: str) -> e.AdapterError:
        return e.fail(e.BAD_SETTING, ("expected",), path=str(self.folder), key=key, expected=expected,
                      value=_shown(self.config.get(key)))

    def default(self, key: str, default, why: str) -> None:
        value = self.config.get(key, default)
        if value != default and not (default is None and value in _EMPTY) and not (default is False and value is None):
            raise e.fail(e.UNSUPPORTED_OPTION, ("why",), path=str(self.folder), key=key, value=_shown(value), why=why)

    def whole(self, key: str, limit: int, default=...) -> int | None:
        value = self.config.get(key, None if default is ... else default)
        if value is None and default is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
            if value is None:
                raise e.fail(e.MISSING_SETTING, path=str(self.folder), key=key)
            raise e.fail(e.BAD_WHOLE, path=str(self.folder), key=key, limit=limit, value=_shown(value))
        return value

    def positive(self, key: str, default) -> float:
        value = self.config.get(key, default)
        if not _is_positive(value):
            raise self.bad(key, e.A_POSITIVE)
        return float(value)

    def flag(self, key: str) -> bool:
        value = self.config.get(key, False)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.bad(key, e.A_FLAG)
        return value

    def entries(self, key: str, value) -> None:
        if len(value) > MAX_ENTRIES:
            raise e.fail(e.TOO_MANY_ENTRIES, path=str(self.folder), key=key, n=len(value), limit=MAX_ENTRIES)

    def names(self, key: str) -> tuple[str, ...]:
        value = self.config.get(key)
        if value is None:
            return ()
        if isinstance(value, list):
            self.entries(key, value)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.bad(key, e.A_NAME_LIST)
        return tuple(value)

    def modules(self, key: str) -> tuple[str, ...] | str | None:
        """A list (or set) of module names, or one regular expression (peft: re.fullmatch)."""
        value = self.config.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            self._pattern(key, value)
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(key, e.MODULE_NAMES)
        self.entries(key, value)
        return tuple(value)

    def patterns(self, key: str, whole: bool = False) -> dict:
        value = self.config.get(key) or {}
        if not isinstance(value, dict):
            raise self.bad(key, e.A_PATTERN_MAP)
        self.entries(key, value)
        for name, number in value.items():
            self._pattern(key, name)
            if whole and (isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_RANK):
                raise e.fail(e.BAD_WHOLE, path=str(self.folder), key=f"{key}[{_shown(name)}]", limit=MAX_RANK,
                             value=_shown(number))
            if not whole and not _is_positive(number):
                raise e.fail(e.BAD_SETTING, ("expected",), path=str(self.folder), key=f"{key}[{_shown(name)}]",
                             expected=e.A_POSITIVE, value=_shown(number))
        return dict(value)

    def layers(self, key: str) -> int | tuple[int, ...] | None:
        value = self.config.get(key)
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
            self.entries(key, value)
            return tuple(value)
        raise self.bad(key, e.LAYER_INDICES)

    def _pattern(self, key: str, pattern: str) -> None:
        problem = pattern_problem(pattern)
        if problem == "slow":
            raise e.fail(e.SLOW_PATTERN, path=str(self.folder), key=key, value=_shown(pattern))
        if problem is not None:
            raise self.bad(key, e.MODULE_NAMES)


def _is_positive(value) -> bool:
    return (not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
            and value > 0)
