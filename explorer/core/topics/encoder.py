"""Topic 6: one Transformer encoder block — attention, Add & Norm, position-wise FFN.

Post-LN (the 2017 paper):  h = LN(x + MHA(x));        out = LN(h + FFN(h))
Pre-LN  (GPT-2 and later): h = x + MHA(LN(x));        out = h + FFN(LN(h))
FFN(z) = act(z·W_1 + b_1)·W_2 + b_2 with d_ff = 4·d_model by default; act is GELU
(exact, erf-based, as torch's "gelu") or ReLU. LayerNorm normalises each token's
row over d_model (eps 1e-5) with the identity affine (γ = 1, β = 0).

Determinism: MHA uses the seed's course weights (W_Q, W_K, W_V, W_O, no biases).
The FFN weights come from a third legacy stream,
``rng = np.random.RandomState((seed + 2) % 2**32)`` (FFN_SEED_OFFSET = 2; the
encoder side of cross-attention uses seed + 1), drawn in this order:
W_1 = rng.randn(d, d_ff)/√d, b_1 = rng.randn(d_ff)·0.1, W_2 = rng.randn(d_ff, d)/√d_ff,
b_2 = rng.randn(d)·0.1. The 1/√fan_in scale keeps the FFN's output at the size of
its input whatever d_model is. Computed in numpy float64 whatever the backend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..attention import model_input
from ..cancel import StopCheck, check
from ..config import QT_TRANSLATE_NOOP, AttentionConfig, ConfigError, validate
from ..masks import build_mask
from ..backends.numpy_ops import self_attention

FFN_SEED_OFFSET = 2
FFN_BIAS_SCALE = 0.1
LN_EPS = 1e-5
ACTIVATIONS = ("gelu", "relu")
MAX_D_FF = 16384


@dataclass(frozen=True)
class EncoderConfig:
    """The app's attention config plus the block's own switches."""

    attention: AttentionConfig
    norm_first: bool = False      # False: Post-LN, True: Pre-LN
    activation: str = "gelu"
    d_ff: int | None = None       # None: 4 · d_model

    @property
    def ffn_width(self) -> int:
        return 4 * self.attention.d_model if self.d_ff is None else self.d_ff


def validate_encoder(config: EncoderConfig) -> EncoderConfig:
    validate(config.attention)
    d_ff = config.ffn_width
    if isinstance(d_ff, bool) or not isinstance(d_ff, int):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "d_ff must be a whole number, got {value}"),
                             value=repr(d_ff))
    if not 1 <= d_ff <= MAX_D_FF:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "d_ff must be between 1 and {limit}, got {value} "
                                               "(the FFN needs at least one hidden unit)"),
                             limit=MAX_D_FF, value=d_ff)
    if config.activation not in ACTIVATIONS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown activation {value} (choose {choices})"),
                             value=repr(config.activation), choices=", ".join(ACTIVATIONS))
    if not isinstance(config.norm_first, bool):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be true or false, got {value}"),
                             name="norm_first", value=repr(config.norm_first))
    return config


@dataclass(frozen=True, eq=False)
class FFNWeights:
    w_1: np.ndarray  # (d, d_ff)
    b_1: np.ndarray  # (d_ff,)
    w_2: np.ndarray  # (d_ff, d)
    b_2: np.ndarray  # (d,)


@lru_cache(maxsize=2)
def draw_ffn(seed: int, d_model: int, d_ff: int) -> FFNWeights:
    """The FFN weights for `seed`, in the documented order (read-only, cached)."""
    rng = np.random.RandomState((seed + FFN_SEED_OFFSET) % 2**32)
    w_1 = rng.randn(d_model, d_ff) / math.sqrt(d_model)  # (d, d_ff)
    b_1 = rng.randn(d_ff) * FFN_BIAS_SCALE  # (d_ff,)
    w_2 = rng.randn(d_ff, d_model) / math.sqrt(d_ff)  # (d_ff, d)
    b_2 = rng.randn(d_model) * FFN_BIAS_SCALE  # (d,)
    for arr in (w_1, b_1, w_2, b_2):
        arr.setflags(write=False)
    return FFNWeights(w_1, b_1, w_2, b_2)


def layer_norm(x: np.ndarray, eps: float = LN_EPS) -> np.ndarray:
    """Each row to mean 0, variance 1 (biased variance, as torch), identity affine."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU x·Φ(x) = x/2·(1 + erf(x/√2)) (math.erf per element: numpy has no erf)."""
    flat = (x / math.sqrt(2.0)).ravel().tolist()
    erf = np.fromiter(map(math.erf, flat), dtype=np.float64, count=len(flat)).reshape(x.shape)
    return 0.5 * x * (1.0 + erf)


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


GELU_CHUNK = 1 << 18  # elements per piece of the exact GELU between stop polls (~0.1 s)


def feed_forward(z: np.ndarray, ffn: FFNWeights, activation: str,
                 should_stop: StopCheck = None) -> tuple[np.ndarray, np.ndarray]:
    """(hidden after the activation (n, d_ff), output (n, d)). The exact GELU (seconds at
    1024 tokens x d_ff 8192) runs in row blocks, polling `should_stop` between them."""
    pre = z @ ffn.w_1 + ffn.b_1  # (n, d_ff)
    if activation != "gelu":
        hidden = relu(pre)
    else:
        hidden = np.empty_like(pre)  # (n, d_ff)
        rows = max(1, GELU_CHUNK // max(1, pre.shape[1]))
        for start in range(0, len(pre), rows):
            check(should_stop, "encoder feed-forward")
            hidden[start:start + rows] = gelu(pre[start:start + rows])
    check(should_stop, "encoder feed-forward")
    return hidden, hidden @ ffn.w_2 + ffn.b_2  # (n, d)


@dataclass(frozen=True)
class EncoderResult:
    config: EncoderConfig
    attention: dict           # numpy_ops.self_attention's intermediates (weights (h, n, n) …)
    ffn_hidden: np.ndarray    # (n, d_ff) after the activation
    stages: tuple[tuple[str, np.ndarray], ...]  # (name, (n, d)) in computation order
    output: np.ndarray        # (n, d)

    @property
    def weights(self) -> np.ndarray:
        return self.attention["weights"]  # (h, n, n)

    def stage(self, name: str) -> np.ndarray:
        return dict(self.stages)[name]

    def stage_names(self) -> list[str]:
        return [name for name, _ in self.stages]

    def row_norms(self) -> np.ndarray:
        """(stages, n) Euclidean norm of each token's vector at each stage."""
        return np.stack([np.linalg.norm(a, axis=-1) for _, a in self.stages])

    def stage_norms(self) -> np.ndarray:
        """(stages,) Frobenius norm of each stage."""
        return np.array([np.linalg.norm(a) for _, a in self.stages])


def encoder_block(config: EncoderConfig, should_stop: StopCheck = None) -> EncoderResult:
    """One encoder layer on the seed's X (+ PE), float64 numpy. `should_stop` (optional) is
    polled between the steps and inside the feed-forward; it raises ``Cancelled`` when it says
    stop (the result, when one is returned, is the same either way)."""
    validate_encoder(config)
    att = config.attention.replace(dtype="float64")
    weights, _, x = model_input(att, should_stop)
    x = np.asarray(x)  # (n, d)
    allowed = build_mask(att.n_tokens, att.n_tokens, att.causal, att.padding)
    ffn = draw_ffn(att.seed, att.d_model, config.ffn_width)

    def mha(z):
        check(should_stop, "encoder attention")
        parts = self_attention(z, weights, att.n_heads, allowed, att.scaled)
        check(should_stop, "encoder attention")
        return parts

    if config.norm_first:
        ln1 = layer_norm(x)
        parts = mha(ln1)
        h = x + parts["output"]
        ln2 = layer_norm(h)
        hidden, f = feed_forward(ln2, ffn, config.activation, should_stop)
        out = h + f
        stages = (("x", x), ("LN(x)", ln1), (QT_TRANSLATE_NOOP("topics.encoder_view", "attention"), parts["output"]),
                  (QT_TRANSLATE_NOOP("topics.encoder_view", "h = x + attention"), h), ("LN(h)", ln2), ("FFN", f),
                  (QT_TRANSLATE_NOOP("topics.encoder_view", "output = h + FFN"), out))
    else:
        parts = mha(x)
        added = x + parts["output"]
        h = layer_norm(added)
        hidden, f = feed_forward(h, ffn, config.activation, should_stop)
        added2 = h + f
        out = layer_norm(added2)
        stages = (("x", x), (QT_TRANSLATE_NOOP("topics.encoder_view", "attention"), parts["output"]),
                  (QT_TRANSLATE_NOOP("topics.encoder_view", "x + attention"), added),
                  (QT_TRANSLATE_NOOP("topics.encoder_view", "h = LN(x + attention)"), h), ("FFN", f),
                  ("h + FFN", added2), (QT_TRANSLATE_NOOP("topics.encoder_view", "output = LN(h + FFN)"), out))
    return EncoderResult(config, parts, hidden, stages, out)
