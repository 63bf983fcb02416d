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

from .messages import QT_TRANSLATE_NOOP, TranslatableError

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
# fullmatch, ASCII digits: "cpu\n" (a `$` would allow it) and "cuda:٣" are not devices.
_DEVICE_RE = re.compile(r"cpu|cuda(:[0-9]{1,4})?", re.ASCII)
MAX_TOKEN_CHARS = 100    # a word, not a paragraph: labels must stay drawable
MAX_NUMBER_DIGITS = 19   # typed whole numbers: more digits than any limit here, less than int's 4300

COURSE_SENTENCE = ("나는", "학교에", "버스로", "갔다")


class ConfigError(TranslatableError, ValueError):
    """A user-facing problem with a config; the message (English: the CLI prints it) is meant to
    be shown as is. Made with `ConfigError.of(template, **params)` it also keeps the template
    and its parameters, so a UI can show it in its own language (app.i18n.error_text)."""


# words that fill error templates, marked for the catalogue (translated by app.i18n.error_text)
ERROR_WORDS = (QT_TRANSLATE_NOOP("core", "heads"), QT_TRANSLATE_NOOP("core", "seed"),
               QT_TRANSLATE_NOOP("core", "encoder "))


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
            raise ConfigError.of(QT_TRANSLATE_NOOP("core", "tokens must be a list of strings, got {value}"),
                                 value=_short(tokens)) from None
        try:
            padding = frozenset(_as_position(p) for p in self.padding)
        except TypeError:
            raise ConfigError.of(QT_TRANSLATE_NOOP("core", "padding must be a list of token positions, got {value}"),
                                 value=_short(self.padding)) from None
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
            raise ConfigError.of(QT_TRANSLATE_NOOP("core", "settings must be a JSON object"))
        known = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        try:
            config = cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise ConfigError.of(QT_TRANSLATE_NOOP("core", "invalid settings: {problem}"),
                                 problem=exc) from exc
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


def parse_whole(text: str, what: str) -> int:
    """A whole number typed by a person (CLI option, text field, environment variable).

    Only ASCII digits with an optional sign: str.isdigit() and int() accept "²" or "٣" and then
    fail or surprise; more than MAX_NUMBER_DIGITS digits is refused before int() could take
    seconds or raise. ConfigError with a short message otherwise; ranges are the caller's.
    """
    if not isinstance(text, str):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be a whole number, got {value}"),
                             name=what, value=_short(text))
    stripped = text.strip()
    sign = stripped[:1] if stripped[:1] in ("-", "+") else ""
    digits = stripped[len(sign):]
    if not digits or not (digits.isascii() and digits.isdigit()):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be a whole number (digits 0-9), got {value}"),
                             name=what, value=_short(text))
    significant = digits.lstrip("0") or "0"
    if len(significant) > MAX_NUMBER_DIGITS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} is too large: a {digits}-digit number"),
                             name=what, digits=len(significant))
    return int(sign + significant)


def token_problem(token: str) -> str | None:
    """Why `token` cannot be shown or exported, or None. Control characters break SVG/XML and
    labels; lone surrogates (undecodable bytes from a terminal) break UTF-8 output."""
    if len(token) > MAX_TOKEN_CHARS:
        return f"is longer than {MAX_TOKEN_CHARS} characters"
    code = _unshowable(token)
    return None if code is None else f"contains the character U+{code}, which cannot be shown"


# Unicode's category Cc is exactly U+0000-001F and U+007F-009F, Cs U+D800-DFFF; with the two
# non-characters: one regex search per token instead of a category lookup per character (512
# tokens were checked on the GUI thread at every slider move: 0.8 ms).
_UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _unshowable(token: str) -> str | None:
    """The first control character, surrogate or non-character in `token` as hex, or None."""
    found = _UNSHOWABLE.search(token)
    return None if found is None else f"{ord(found.group()):04X}"


def _check_int(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be a whole number, got {value}"),
                             ("name",), name=name, value=_short(value))
    if not low <= value <= high:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be between {low} and {high}, got {value}"),
                             ("name",), name=name, low=low, high=high, value=_short(value))


def _check_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be true or false, got {value}"),
                             name=name, value=_short(value))


def check_sentence(tokens, padding, side: str = "") -> None:
    """A sentence and its padding positions (`side` names it, e.g. "encoder "): 1..MAX_TOKENS
    non-empty tokens, padding whole numbers inside the sentence. ConfigError otherwise."""
    n = len(tokens)
    if n == 0:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "the {side}sentence is empty: type at least one token"),
                             SIDE, side=side)
    if n > MAX_TOKENS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "too many {side}tokens: {n} (at most {limit})"),
                             SIDE, side=side, n=n, limit=MAX_TOKENS)
    if any(not t for t in tokens):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{side}tokens must not be empty strings"),
                             SIDE, side=side)
    for i, token in enumerate(tokens):
        _check_token(token, i, side)
    not_int = [p for p in padding if isinstance(p, bool) or not isinstance(p, int)]
    if not_int:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{side}padding positions must be whole numbers, got {value}"),
                             SIDE, side=side, value=_short(not_int[0]))
    bad = sorted(p for p in padding if not 0 <= p < n)
    if bad:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core",
                                               "{side}padding position {value} is outside the {side}sentence (0..{last})"),
                             SIDE, side=side, value=_short(bad[0]), last=n - 1)


SIDE = ("side",)  # check_sentence's `side` ("" or "encoder ") is a word of the message


def _check_token(token: str, index: int, side: str) -> None:
    """token_problem's two cases as messages of their own (a UI translates each whole)."""
    if len(token) > MAX_TOKEN_CHARS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{side}token {i} ({token}) is longer than {limit} characters"),
                             SIDE, side=side, i=index + 1, token=_short(token, 20), limit=MAX_TOKEN_CHARS)
    code = _unshowable(token)
    if code is not None:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core",
                                               "{side}token {i} ({token}) contains the character U+{code}, which cannot be shown"),
                             SIDE, side=side, i=index + 1, token=_short(token, 20), code=code)


def validate(config: AttentionConfig) -> AttentionConfig:
    """Return `config` unchanged if it is valid, else raise ConfigError with a readable message."""
    n = config.n_tokens
    check_sentence(config.tokens, config.padding)
    _check_int("d_model", config.d_model, 1, MAX_D_MODEL)
    _check_int("heads", config.n_heads, 1, min(MAX_HEADS, MAX_D_MODEL))
    if config.d_model % config.n_heads:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "d_model {d_model} is not divisible by {heads} heads "
                                               "(each head needs d_model / heads columns)"),
                             d_model=config.d_model, heads=config.n_heads)
    if config.n_heads > max_heads_for(n):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{heads} heads × {n} × {n} weights is too large to show "
                                               "(at most {cells} cells: {most} heads at {n} tokens); "
                                               "use fewer heads or tokens"),
                             heads=config.n_heads, n=n, cells=f"{MAX_ATTENTION_CELLS:,}",
                             most=max_heads_for(n))
    _check_int("seed", config.seed, 0, SEED_MAX)
    for name in ("scaled", "causal", "positional"):
        _check_bool(name, getattr(config, name))
    if config.backend not in BACKENDS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown backend {value} (choose {choices})"),
                             value=_short(config.backend), choices=", ".join(BACKENDS))
    if not isinstance(config.device, str) or not _DEVICE_RE.fullmatch(config.device):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown device {value} (use cpu, cuda or cuda:N)"),
                             value=_short(config.device))
    if config.backend == "numpy" and config.device != "cpu":
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "the numpy backend runs on the CPU only; choose torch for CUDA"))
    if config.dtype not in DTYPES:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown dtype {value} (choose {choices})"),
                             value=_short(config.dtype), choices=", ".join(DTYPES))
    if config.init not in INITS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown weight init {value} (choose {choices})"),
                             value=_short(config.init), choices=", ".join(INITS))
    return config
