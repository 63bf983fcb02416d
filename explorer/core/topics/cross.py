"""Topic 3: cross-attention (encoder–decoder attention).

Queries come from the decoder tokens, keys and values from the encoder tokens, so
every weight matrix is rectangular: (decoder tokens × encoder tokens). Only encoder
padding is masked (a decoder query may look at every real encoder token; causality
belongs to the decoder's own self-attention, so `causal` and the decoder `padding`
of the config are not used here).

Determinism: the decoder side is exactly the app's self-attention draw for the seed
(X_dec, W_Q, W_K, W_V, W_O from `draw_weights`). The encoder sentence's X is drawn
from a second legacy stream, ``np.random.RandomState((seed + 1) % 2**32).randn(m, d)``
(ENCODER_SEED_OFFSET = 1): it does not depend on the decoder sentence's length, and
row j depends only on (seed, d_model, j). The same W_Q, W_K, W_V, W_O are used for
both sides (a teaching simplification: a real decoder layer has separate weights
for its cross-attention). With positional encoding on, each side gets its own
sinusoidal table starting at position 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..attention import model_input
from ..config import AttentionConfig, check_sentence, validate
from ..masks import build_mask, fully_masked_rows
from ..backends.numpy_ops import attend
from ..positional import sinusoidal_table
from ..stats import HeadStats, head_stats
from ..weights import Weights

ENCODER_SEED_OFFSET = 1
DEFAULT_ENCODER_SENTENCE = ("I", "went", "to", "school", "by", "bus")


@dataclass(frozen=True)
class CrossConfig:
    """The app's config (decoder side) plus the encoder sentence and its padding."""

    decoder: AttentionConfig
    encoder_tokens: tuple[str, ...] = DEFAULT_ENCODER_SENTENCE
    encoder_padding: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        object.__setattr__(self, "encoder_tokens", tuple(str(t) for t in self.encoder_tokens))
        object.__setattr__(self, "encoder_padding", frozenset(self.encoder_padding))


def validate_cross(config: CrossConfig) -> CrossConfig:
    """Raise ConfigError with a readable message for a bad cross-attention setting."""
    validate(config.decoder)
    check_sentence(config.encoder_tokens, config.encoder_padding, side="encoder ")
    return config


@lru_cache(maxsize=4)
def _encoder_x(seed: int, n_tokens: int, d_model: int) -> np.ndarray:
    rng = np.random.RandomState((seed + ENCODER_SEED_OFFSET) % 2**32)
    x = rng.randn(n_tokens, d_model)  # (m, d)
    x.setflags(write=False)
    return x


def encoder_input(seed: int, n_tokens: int, d_model: int, positional: bool = False) -> np.ndarray:
    """(m, d) encoder-side X for `seed` (plus the sinusoidal PE when asked)."""
    x = _encoder_x(int(seed), int(n_tokens), int(d_model))
    return x + sinusoidal_table(n_tokens, d_model) if positional else x


@dataclass(frozen=True)
class CrossResult:
    """Every intermediate of one cross-attention pass (float64 numpy)."""

    config: CrossConfig
    x_dec: np.ndarray         # (n, d) decoder input (with PE when enabled)
    x_enc: np.ndarray         # (m, d) encoder input (with PE when enabled)
    q: np.ndarray             # (n, d) from the decoder
    k: np.ndarray             # (m, d) from the encoder
    v: np.ndarray             # (m, d) from the encoder
    qh: np.ndarray            # (h, n, d_head)
    kh: np.ndarray            # (h, m, d_head)
    vh: np.ndarray            # (h, m, d_head)
    raw_scores: np.ndarray    # (h, n, m)
    scores: np.ndarray        # (h, n, m)
    mask: np.ndarray          # (n, m) True = may attend
    empty_rows: np.ndarray    # (n,) every encoder token is padding
    weights: np.ndarray       # (h, n, m)
    head_outputs: np.ndarray  # (h, n, d_head)
    concat: np.ndarray        # (n, d)
    output: np.ndarray        # (n, d)
    stats: HeadStats

    @property
    def decoder_tokens(self) -> tuple[str, ...]:
        return self.config.decoder.tokens

    @property
    def encoder_tokens(self) -> tuple[str, ...]:
        return self.config.encoder_tokens


def cross_attend(x_dec, x_enc, weights: Weights, n_heads: int, allowed, scaled: bool) -> dict:
    """Q = x_dec·W_Q, K = x_enc·W_K, V = x_enc·W_V, then multi-head attention.

    x_dec (n, d), x_enc (m, d), allowed (n, m). With x_enc = x_dec this is self-attention.
    """
    q = x_dec @ weights.w_q  # (n, d)
    k = x_enc @ weights.w_k  # (m, d)
    v = x_enc @ weights.w_v  # (m, d)
    out = attend(q, k, v, weights.w_o, n_heads, allowed, scaled)
    out.update(q=q, k=k, v=v)
    return out


def cross_attention(config: CrossConfig) -> CrossResult:
    """Validate and compute decoder-queries-over-encoder attention (numpy, float64)."""
    validate_cross(config)
    dec = config.decoder.replace(dtype="float64")
    weights, _, x_dec = model_input(dec)
    m = len(config.encoder_tokens)
    x_enc = encoder_input(dec.seed, m, dec.d_model, dec.positional)
    allowed = build_mask(dec.n_tokens, m, causal=False, padding=config.encoder_padding)
    parts = cross_attend(x_dec, x_enc, weights, dec.n_heads, allowed, dec.scaled)
    empty = fully_masked_rows(allowed)
    stats = head_stats(parts["weights"], parts["raw_scores"], parts["scores"], allowed, empty)
    return CrossResult(config=config, x_dec=np.asarray(x_dec), x_enc=np.asarray(x_enc),
                       mask=allowed, empty_rows=empty, stats=stats, **parts)
