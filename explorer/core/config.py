"""The one description of an attention computation, validated in one place.

`AttentionConfig` is frozen: every change makes a new object (``config.replace(...)``),
so a config can be handed to a worker thread, cached, or compared without copies.
`validate` is the only place user input is checked; everything else may assume a
valid config. It never imports torch: whether a CUDA device really exists is
checked when a torch backend is first used (see `backends.py`).
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
import re
from dataclasses import dataclass, field

MAX_TOKENS = 1024
MAX_D_MODEL = 2048
MAX_HEADS = 256
# heads × n × n weights in one picture. Each (h, n, n) float64 array at this size is 128 MiB and a
# forward holds about six of them; 256 heads at 1024 tokens would need ~9 GB and kill a laptop.
MAX_ATTENTION_CELLS = 16 * 1024 * 1024  # e.g. 16 heads at 1024 tokens, 256 heads at 256 tokens


def divisors(n: int, limit: int = MAX_HEADS) -> list[int]:
    """Divisors of n up to `limit`, ascending: the head counts d_model allows."""
    return list(_divisors(n, limit))


@functools.lru_cache(maxsize=64)
def _divisors(n: int, limit: int) -> tuple[int, ...]:
    return tuple(k for k in range(1, min(n, limit) + 1) if n % k == 0)


def nearest_divisor(n_heads: int, d_model: int) -> int:
    """n_heads if it divides d_model, else the largest divisor below it (at least 1)."""
    return max(k for k in divisors(d_model) if k <= max(n_heads, 1))


def max_heads_for(n_tokens: int) -> int:
    """The most heads a sentence of n tokens may have (MAX_ATTENTION_CELLS, MAX_HEADS)."""
    return max(1, min(MAX_HEADS, MAX_ATTENTION_CELLS // max(1, n_tokens * n_tokens)))
SEED_MAX = 2**32 - 1  # legacy np.random.seed accepts 0 .. 2**32 - 1

BACKENDS = ("numpy", "torch")
DTYPES = ("float64", "float32")
INITS = ("course", "unit")  # see weights.py
_DEVICE_RE = re.compile(r"^(cpu|cuda(:\d+)?)$")

COURSE_SENTENCE = ("나는", "학교에", "버스로", "갔다")


class ConfigError(ValueError):
    """A user-facing problem with a config; the message is meant to be shown as is."""


@dataclass(frozen=True)
class AttentionConfig:
    """Everything that determines one multi-head self-attention picture.

    tokens: the sentence, one entry per token (n = len(tokens)).
    d_model, n_heads: model width and head count; d_head = d_model / n_heads.
    seed: legacy numpy seed from which X and the weights are drawn.
    scaled: divide scores by sqrt(d_head).
    causal: query i may only attend to keys 0..i.
    padding: 0-based token positions marked as padding (masked as keys).
    positional: add the sinusoidal positional encoding to X before the projections.
    backend, device: "numpy" (cpu only) or "torch" on "cpu" / "cuda" / "cuda:N".
    dtype: "float64" (exact teaching numbers) or "float32".
    init: "course" (weights randn × 0.5, the course's numbers) or "unit" (randn / √d_model,
        as real models start; shows what ÷√d_head is for at large d_model).
    """

    tokens: tuple[str, ...] = COURSE_SENTENCE
    d_model: int = 8
    n_heads: int = 2
    seed: int = 1
    scaled: bool = True
    causal: bool = False
    padding: frozenset[int] = field(default_factory=frozenset)
    positional: bool = False
    backend: str = "numpy"
    device: str = "cpu"
    dtype: str = "float64"
    init: str = "course"

    def __post_init__(self) -> None:
        # Normalise containers so equal configs hash equally, whatever the caller passed.
        # A plain string is a sentence (split on whitespace), never a sequence of characters.
        # Padding entries of any integer type become int; anything else is kept for
        # `validate` to reject (int() would truncate 1.5 and overflow on inf).
        tokens = self.tokens.split() if isinstance(self.tokens, str) else self.tokens
        try:
            tokens = tuple(str(t) for t in tokens)
        except TypeError:
            raise ConfigError(f"tokens must be a list of strings, got {_short(tokens)}") from None
        try:
            padding = frozenset(_as_position(p) for p in self.padding)
        except TypeError:
            raise ConfigError("padding must be a list of token positions, "
                              f"got {_short(self.padding)}") from None
        object.__setattr__(self, "tokens", tokens)
        object.__setattr__(self, "padding", padding)

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def replace(self, **changes) -> "AttentionConfig":
        """A copy with some fields changed (not validated: call `validate`)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """Plain JSON-ready dict (tokens and padding as lists)."""
        d = dataclasses.asdict(self)
        d["tokens"] = list(self.tokens)
        d["padding"] = sorted(self.padding)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "AttentionConfig":
        """Build and validate a config from a dict such as `to_dict` wrote.

        Unknown keys are ignored; wrong types raise ConfigError.
        """
        if not isinstance(data, dict):
            raise ConfigError("settings must be a JSON object")
        known = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        try:
            config = cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"invalid settings: {exc}") from exc
        return validate(config)


def _as_position(p):
    """p as an int when it is a whole number of any integer type (not bool), else p itself."""
    return int(p) if isinstance(p, numbers.Integral) and not isinstance(p, bool) else p


def _short(value, limit: int = 40) -> str:
    """repr(value), cut to `limit` characters: a hand-edited settings file must not flood the
    status bar (nor crash it: str() of an int over 4300 digits raises ValueError)."""
    try:
        text = repr(value)
    except ValueError:
        text = f"a {value.bit_length()}-bit number" if isinstance(value, int) else "?"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def split_sentence(text: str) -> tuple[str, ...]:
    """Tokens of a sentence: split on any whitespace."""
    return tuple(text.split())


def _check_int(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number, got {_short(value)}")
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {_short(value)}")


def _check_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {_short(value)}")


def check_sentence(tokens, padding, side: str = "") -> None:
    """A sentence and its padding positions (`side` names it, e.g. "encoder "): 1..MAX_TOKENS
    non-empty tokens, padding whole numbers inside the sentence. ConfigError otherwise."""
    n = len(tokens)
    if n == 0:
        raise ConfigError(f"the {side}sentence is empty: type at least one token")
    if n > MAX_TOKENS:
        raise ConfigError(f"too many {side}tokens: {n} (at most {MAX_TOKENS})")
    if any(not t for t in tokens):
        raise ConfigError(f"{side}tokens must not be empty strings")
    not_int = [p for p in padding if isinstance(p, bool) or not isinstance(p, int)]
    if not_int:
        raise ConfigError(f"{side}padding positions must be whole numbers, "
                          f"got {_short(not_int[0])}")
    bad = sorted(p for p in padding if not 0 <= p < n)
    if bad:
        raise ConfigError(f"{side}padding position {_short(bad[0])} is outside the "
                          f"{side}sentence (0..{n - 1})")


def validate(config: AttentionConfig) -> AttentionConfig:
    """Return `config` unchanged if it is valid, else raise ConfigError with a readable message."""
    n = config.n_tokens
    check_sentence(config.tokens, config.padding)
    _check_int("d_model", config.d_model, 1, MAX_D_MODEL)
    _check_int("heads", config.n_heads, 1, min(MAX_HEADS, MAX_D_MODEL))
    if config.d_model % config.n_heads:
        raise ConfigError(
            f"d_model {config.d_model} is not divisible by {config.n_heads} heads "
            f"(each head needs d_model / heads columns)"
        )
    if config.n_heads > max_heads_for(n):
        raise ConfigError(
            f"{config.n_heads} heads × {n} × {n} weights is too large to show "
            f"(at most {MAX_ATTENTION_CELLS:,} cells: {max_heads_for(n)} heads at {n} tokens); "
            f"use fewer heads or tokens"
        )
    _check_int("seed", config.seed, 0, SEED_MAX)
    for name in ("scaled", "causal", "positional"):
        _check_bool(name, getattr(config, name))
    if config.backend not in BACKENDS:
        raise ConfigError(f"unknown backend {_short(config.backend)} "
                          f"(choose {', '.join(BACKENDS)})")
    if not isinstance(config.device, str) or not _DEVICE_RE.match(config.device):
        raise ConfigError(f"unknown device {_short(config.device)} (use cpu, cuda or cuda:N)")
    if config.backend == "numpy" and config.device != "cpu":
        raise ConfigError("the numpy backend runs on the CPU only; choose torch for CUDA")
    if config.dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {_short(config.dtype)} (choose {', '.join(DTYPES)})")
    if config.init not in INITS:
        raise ConfigError(f"unknown weight init {_short(config.init)} "
                          f"(choose {', '.join(INITS)})")
    return config
