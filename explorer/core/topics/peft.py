"""Topic 7: parameter-efficient fine-tuning (PEFT) on the course's random weights.

Four methods, each seen where it acts in one attention layer (numpy, float64):

- LoRA on one of W_Q, W_K, W_V, W_O. peft stores a linear weight as (out, in) and adds
  scale · B·A with A (r, in), B (out, r). The course multiplies row vectors, x·W with W
  (in, out), so here ΔW = scale · Aᵀ·Bᵀ = (scale · B·A)ᵀ, and the unmerged adapter computes
  x·W + scale · (x·Aᵀ)·Bᵀ. scale = α / r, or α / √r with rsLoRA. A is drawn as peft draws it
  (`kaiming_uniform_(a=√5)`: U(−1/√in, 1/√in)); B starts at 0, so ΔW = 0 and the adapted model
  *is* the base model (bit for bit). B may instead be drawn by the seed (peft's
  ``init_lora_weights=False``: nn.Linear's own init, U(−1/√r, 1/√r)) or trained a few steps
  on a toy objective (`peft_train`).
- IA³: learned vectors l_k, l_v scale the columns of K and V (peft's ``ia3_l`` on k_proj and
  v_proj); peft starts them at 1, here they are drawn around 1: l = 1 + strength · N(0, 1).
- Prefix tuning: v virtual keys and values per layer (free parameters in key/value space,
  drawn like the keys of a random token: N(0, d_model · w_std²)), put before the real keys;
  every query may attend to them (peft extends the attention mask with ones), so the picture
  is n × (v + n).
- Prompt tuning: v virtual token embeddings (N(0, 1), like X's rows) prepended to the input;
  the causal mask then runs over all v + n tokens, so every real token sees every virtual one
  and virtual token j sees virtual tokens 0 … j. The picture is (v + n) × (v + n).

The adapter's numbers come from their own seed (`adapter_seed`), one stream per part
(``RandomState([seed, part])``), so changing r keeps A's first rows, and the course's
X and W never move. Parameter counts are those of the course model (attention only, no
biases), per layer × `layers` (prompt tuning's embeddings are not per layer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace as dc_replace
from functools import lru_cache

import numpy as np

from ..attention import model_input
from ..backends.numpy_ops import attend, self_attention
from ..cancel import StopCheck, check
from ..config import QT_TRANSLATE_NOOP, AttentionConfig, ConfigError, SEED_MAX, validate
from ..masks import build_mask
from ..positional import sinusoidal_table
from ..weights import Weights, draw_weights, weight_std
from .peft_train import train_lora

PEFT_METHODS = ("lora", "ia3", "prefix", "prompt")
LORA_TARGETS = ("q", "k", "v", "o")   # W_Q, W_K, W_V, W_O
B_INITS = ("zero", "seed", "trained")
MAX_ALPHA = 1024
MAX_STEPS = 200
MAX_VIRTUAL = 4
MAX_LAYERS = 1000
MAX_IA3_STRENGTH = 2.0
STREAM_A, STREAM_B, STREAM_IA3, STREAM_PREFIX, STREAM_PROMPT = range(5)
MAX_SVD_D_MODEL = 1024  # W's singular values are computed up to this width
MERGE_ULPS = 16  # the check's tolerance: ULPS · eps · √(terms summed) · size (tests/numeric.py's rule)


@dataclass(frozen=True)
class PeftConfig:
    """The course's config plus what the PEFT topic shows (see the module docstring)."""

    attention: AttentionConfig = field(default_factory=AttentionConfig)
    method: str = "lora"
    target: str = "q"         # LoRA's matrix: q, k, v or o
    rank: int = 2             # LoRA's r
    alpha: int = 8            # LoRA's α (peft's lora_alpha)
    rslora: bool = False      # scale α/√r instead of α/r
    b_init: str = "zero"      # zero | seed | trained
    steps: int = 20           # training steps when b_init == "trained"
    adapter_seed: int = 0
    ia3_strength: float = 0.5  # l = 1 + strength · N(0, 1)
    virtual: int = 2          # prefix / prompt tuning: virtual tokens
    layers: int = 1           # the parameter table's layer count

    def replace(self, **changes) -> "PeftConfig":
        return dc_replace(self, **changes)


def _whole(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be a whole number, got {value}"),
                             name=name, value=repr(value)[:40])
    if not low <= value <= high:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be between {low} and {high}, got {value}"),
                             name=name, low=low, high=high, value=value)


def _choice(value, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown PEFT setting {value} (choose {choices})"),
                             value=repr(value)[:40], choices=", ".join(choices))


def validate_peft(config: PeftConfig) -> PeftConfig:
    """Raise ConfigError with a readable message for a bad setting; return `config`."""
    validate(config.attention)
    _choice(config.method, PEFT_METHODS)
    _choice(config.target, LORA_TARGETS)
    _choice(config.b_init, B_INITS)
    d = config.attention.d_model
    _whole("r", config.rank, 1, d)
    _whole("α", config.alpha, 0, MAX_ALPHA)
    _whole("steps", config.steps, 0, MAX_STEPS)
    _whole("seed", config.adapter_seed, 0, SEED_MAX)
    _whole("v", config.virtual, 1, MAX_VIRTUAL)
    _whole("layers", config.layers, 1, MAX_LAYERS)
    if not isinstance(config.rslora, bool):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be true or false, got {value}"),
                             name="rsLoRA", value=repr(config.rslora)[:40])
    strength = config.ia3_strength
    if (isinstance(strength, bool) or not isinstance(strength, (int, float))
            or not 0 <= strength <= MAX_IA3_STRENGTH):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be between {low} and {high}, got {value}"),
                             name="IA³", low=0, high=MAX_IA3_STRENGTH, value=repr(strength)[:40])
    return config


def _stream(seed: int, part: int) -> np.random.RandomState:
    return np.random.RandomState([int(seed), part])


# ----- LoRA ----------------------------------------------------------------------------------
def lora_scale(alpha: float, rank: int, rslora: bool = False) -> float:
    """α / r (peft's default) or α / √r (rsLoRA: the update's size no longer falls with r)."""
    return alpha / math.sqrt(rank) if rslora else alpha / rank


def draw_lora(seed: int, rank: int, d_in: int, d_out: int, b_init: str = "zero"):
    """(A (r, d_in), B (d_out, r)) as peft initialises them; B = 0 unless b_init == "seed"
    ("trained" starts from 0 too: `peft_train` moves it). Row i of A (and column i of B) is
    the same for every r > i."""
    bound_a = 1.0 / math.sqrt(d_in)  # kaiming_uniform_(a=√5) on an (r, d_in) weight
    a = _stream(seed, STREAM_A).uniform(-bound_a, bound_a, (rank, d_in))  # (r, d_in)
    if b_init == "seed":
        bound_b = 1.0 / math.sqrt(rank)  # nn.Linear(r, d_out)'s own init
        b = _stream(seed, STREAM_B).uniform(-bound_b, bound_b, (rank, d_out)).T.copy()  # (d_out, r)
    else:
        b = np.zeros((d_out, rank))  # (d_out, r)
    return a, b


def delta_weight(a: np.ndarray, b: np.ndarray, scale: float) -> np.ndarray:
    """ΔW (d_in, d_out) = scale · Aᵀ·Bᵀ, the course's (in, out) form of peft's scale · B·A."""
    return scale * (a.T @ b.T)  # (d_in, d_out)


def delta_singular_values(a: np.ndarray, b: np.ndarray, scale: float) -> np.ndarray:
    """The r singular values of ΔW without forming it: Aᵀ = Q₁R₁, B = Q₂R₂ (Q orthonormal), so
    ΔW = scale · Q₁ (R₁R₂ᵀ) Q₂ᵀ has the singular values of scale · R₁R₂ᵀ (r, r); every other
    singular value of ΔW is 0 (its rank is at most r)."""
    r1 = np.linalg.qr(a.T, mode="r")  # (r, r) when r <= d_in
    r2 = np.linalg.qr(b, mode="r")    # (r, r) when r <= d_out
    return abs(scale) * np.linalg.svd(r1 @ r2.T, compute_uv=False)  # (r,)


@lru_cache(maxsize=8)
def weight_singular_values(seed: int, n_tokens: int, d_model: int, init: str, target: str):
    """(d,) singular values of the course's W_target, or None above MAX_SVD_D_MODEL (an SVD
    cannot be stopped, and takes ~0.3 s at 512, ~1 s at 1024, over 10 s at 2048 on 2 cores)."""
    if d_model > MAX_SVD_D_MODEL:
        return None
    w = getattr(draw_weights(seed, n_tokens, d_model, init), "w_" + target)  # (d, d)
    values = np.linalg.svd(w, compute_uv=False)  # (d,)
    values.setflags(write=False)
    return values


def lora_project(x: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray, scale: float) -> np.ndarray:
    """The unmerged adapter: x·W + scale · (x·Aᵀ)·Bᵀ; x (m, d_in) -> (m, d_out). With B = 0
    the added term is exactly 0, so this is x·W bit for bit."""
    return x @ w + scale * ((x @ a.T) @ b.T)  # (m, d_out)


def merged_weights(weights: Weights, target: str, delta: np.ndarray) -> Weights:
    """The course's weights with W_target + ΔW (peft's merge_and_unload)."""
    name = "w_" + target
    return dc_replace(weights, **{name: getattr(weights, name) + delta})


def lora_attention(x_in, weights: Weights, target: str, a, b, scale: float, n_heads: int,
                   allowed, scaled: bool, should_stop: StopCheck = None) -> dict:
    """Attention with the unmerged adapter on W_target (the frozen W and the A, B path)."""
    w = {"q": weights.w_q, "k": weights.w_k, "v": weights.w_v}
    q, k, v = ((lora_project(x_in, w[n], a, b, scale) if n == target else x_in @ w[n])  # (n, d)
               for n in ("q", "k", "v"))
    parts = attend(q, k, v, weights.w_o, n_heads, allowed, scaled, should_stop)
    if target == "o":
        parts["output"] = lora_project(parts["concat"], weights.w_o, a, b, scale)  # (n, d)
    parts.update(q=q, k=k, v=v)
    return parts


@dataclass(frozen=True)
class MergeCheck:
    """Merged (W + ΔW) against unmerged (W and the adapter) attention, computed both ways."""

    weights_difference: float  # max |weights merged − unmerged|
    output_difference: float   # max |output merged − unmerged|
    tolerance_weights: float
    tolerance_output: float

    @property
    def ok(self) -> bool:
        return (self.weights_difference <= self.tolerance_weights
                and self.output_difference <= self.tolerance_output)

    @property
    def max_difference(self) -> float:
        return max(self.weights_difference, self.output_difference)


def _rounding(terms: int, size: float) -> float:
    return MERGE_ULPS * float(np.finfo(np.float64).eps) * math.sqrt(max(1, terms)) * max(1.0, size)


def merge_check(merged: dict, unmerged: dict, d_model: int, rank: int, n_keys: int) -> MergeCheck:
    """The two ways differ by rounding only: x·(W + ΔW) and x·W + (x·Aᵀ)·Bᵀ sum d_model + r
    terms in another order; softmax carries a score's error into every weight of its row
    (scaled by the scores' size); the output sums n_keys weights·V and d_model concat·W_O."""
    scores = np.abs(unmerged["scores"])
    score_size = float(scores[np.isfinite(scores)].max(initial=0.0))
    value_size = float(np.abs(unmerged["v"]).max(initial=0.0))
    out_size = float(np.abs(unmerged["output"]).max(initial=0.0))
    terms = d_model + rank + unmerged["qh"].shape[-1] + n_keys
    return MergeCheck(
        float(np.abs(merged["weights"] - unmerged["weights"]).max(initial=0.0)),
        float(np.abs(merged["output"] - unmerged["output"]).max(initial=0.0)),
        _rounding(terms, score_size),
        _rounding(terms + n_keys + d_model, score_size * max(value_size, out_size, 1.0)),
    )


# ----- IA³, prefix and prompt tuning ---------------------------------------------------------
def draw_ia3(seed: int, d_model: int, strength: float):
    """(l_k (d,), l_v (d,)) = 1 + strength · N(0, 1); strength 0 gives peft's start, all ones."""
    noise = _stream(seed, STREAM_IA3).randn(2, d_model)  # (2, d)
    return 1.0 + strength * noise[0], 1.0 + strength * noise[1]


def ia3_attention(x_in, weights: Weights, l_k, l_v, n_heads: int, allowed, scaled: bool,
                  should_stop: StopCheck = None) -> dict:
    """K's columns scaled by l_k, V's by l_v (what peft's ia3_l does to k_proj, v_proj)."""
    q = x_in @ weights.w_q            # (n, d)
    k = (x_in @ weights.w_k) * l_k    # (n, d)
    v = (x_in @ weights.w_v) * l_v    # (n, d)
    parts = attend(q, k, v, weights.w_o, n_heads, allowed, scaled, should_stop)
    parts.update(q=q, k=k, v=v)
    return parts


def draw_prefix(seed: int, virtual: int, d_model: int, init: str = "course"):
    """(P_K (v, d), P_V (v, d)): free keys and values, of the size of a random token's keys
    (X's entries are N(0, 1), W's N(0, w_std²): a key entry has variance d_model · w_std²)."""
    std = math.sqrt(d_model) * weight_std(d_model, init)
    drawn = _stream(seed, STREAM_PREFIX).randn(2, virtual, d_model) * std  # (2, v, d)
    return drawn[0], drawn[1]


def prefix_attention(x_in, weights: Weights, p_k, p_v, n_heads: int, allowed, scaled: bool,
                     should_stop: StopCheck = None) -> dict:
    """The real queries over [P_K; K] and [P_V; V]: the virtual keys come first and every query
    may attend to them (peft puts ones in front of the attention mask)."""
    v_count = p_k.shape[0]
    q = x_in @ weights.w_q                              # (n, d)
    k = np.concatenate([p_k, x_in @ weights.w_k])       # (v + n, d)
    v = np.concatenate([p_v, x_in @ weights.w_v])       # (v + n, d)
    open_prefix = np.ones((allowed.shape[0], v_count), dtype=bool)  # (n, v)
    full = np.concatenate([open_prefix, allowed], axis=1)  # (n, v + n)
    parts = attend(q, k, v, weights.w_o, n_heads, full, scaled, should_stop)
    parts.update(q=q, k=k, v=v, mask=full)
    return parts


def draw_prompt(seed: int, virtual: int, d_model: int) -> np.ndarray:
    """(v, d) virtual token embeddings, drawn like X's rows (N(0, 1))."""
    return _stream(seed, STREAM_PROMPT).randn(virtual, d_model)  # (v, d)


def prompt_mask(virtual: int, n_tokens: int, causal: bool, padding) -> np.ndarray:
    """((v + n), (v + n)) may-attend: the course's masks over the longer sequence, the real
    tokens' padding moved v places right; the virtual tokens are never padding."""
    return build_mask(virtual + n_tokens, virtual + n_tokens, causal,
                      frozenset(p + virtual for p in padding))


def prompt_attention(config: AttentionConfig, weights: Weights, embeddings, scaled: bool,
                     should_stop: StopCheck = None) -> dict:
    """Self-attention over [E; X] (positions 0 … v + n − 1 when positional encoding is on)."""
    virtual = embeddings.shape[0]
    x = np.concatenate([embeddings, weights.x])  # (v + n, d)
    if config.positional:
        x = x + sinusoidal_table(x.shape[0], config.d_model)
    allowed = prompt_mask(virtual, config.n_tokens, config.causal, config.padding)
    parts = self_attention(x, weights, config.n_heads, allowed, scaled, should_stop)
    parts.update(mask=allowed, x_in=x)
    return parts


def virtual_labels(virtual: int) -> tuple[str, ...]:
    return tuple(f"⟨p{i + 1}⟩" for i in range(virtual))


# ----- parameter counts ----------------------------------------------------------------------
@dataclass(frozen=True)
class ParameterCount:
    """One method's trainable parameters in the course model (attention only, no biases)."""

    key: str          # lora | lora_qv | lora_all | ia3 | prefix | prompt | full
    formula: str      # how the number is made (d = d_model, L = layers)
    trainable: int
    full: int         # a full fine-tune of the same layers: 4 · d² · L

    @property
    def share(self) -> float:
        return self.trainable / self.full


def parameter_counts(d_model: int, layers: int, rank: int, virtual: int) -> tuple[ParameterCount, ...]:
    """Side by side for the current sizes: LoRA on the chosen matrix, on W_Q and W_V (peft's
    default for Llama-like models) and on all four; IA³ on K and V; prefix; prompt; a full
    fine-tune. The head count never enters: heads split d_model. LoRA on one (d_in, d_out)
    matrix trains r·(d_in + d_out) numbers against its d_in·d_out."""
    d, L, r, v = d_model, layers, rank, virtual
    full = 4 * d * d * L
    lora = r * (d + d) * L
    rows = (("lora", "r·2d·L", lora),        # r·(d_in + d_out) per matrix, d_in = d_out = d
            ("lora_qv", "2·r·2d·L", 2 * lora),
            ("lora_all", "4·r·2d·L", 4 * lora),
            ("ia3", "2d·L", 2 * d * L),
            ("prefix", "2v·d·L", 2 * v * d * L),
            ("prompt", "v·d", v * d),
            ("full", "4d²·L", full))
    return tuple(ParameterCount(key, formula, count, full) for key, formula, count in rows)


# ----- the topic -----------------------------------------------------------------------------
@dataclass(frozen=True)
class LoraParts:
    a: np.ndarray                # (r, d_in)
    b: np.ndarray                # (d_out, r)
    scale: float
    w: np.ndarray                # (d_in, d_out) the frozen W_target
    delta: np.ndarray            # (d_in, d_out) ΔW
    w_singular: np.ndarray | None  # (d,) of W (None above MAX_SVD_D_MODEL)
    delta_singular: np.ndarray   # (r,) of ΔW (the rest are 0)
    check: MergeCheck
    losses: tuple[float, ...]    # the toy objective before and after each step (trained B)


@dataclass(frozen=True)
class PeftResult:
    """The base and the adapted attention of one setting, plus what the method adds."""

    config: PeftConfig
    tokens: tuple[str, ...]         # the real tokens
    row_labels: tuple[str, ...]     # the adapted picture's rows (prompt: virtual first)
    col_labels: tuple[str, ...]     # its columns (prefix and prompt: virtual first)
    base_weights: np.ndarray        # (h, n, n)
    base_output: np.ndarray         # (n, d)
    weights: np.ndarray             # (h, rows, cols) adapted
    output: np.ndarray              # (rows, d) adapted
    mask: np.ndarray                # (rows, cols) may attend
    x_in: np.ndarray                # (rows, d) the adapted layer's input (prompt: [E; X])
    base_mask: np.ndarray           # (n, n)
    real_rows: slice                # where the real tokens are in the adapted picture
    real_cols: slice
    lora: LoraParts | None = None
    ia3: tuple[np.ndarray, np.ndarray] | None = None     # (l_k (d,), l_v (d,))
    virtual: np.ndarray | None = None  # prefix: (2, v, d) P_K, P_V; prompt: (v, d) E
    counts: tuple[ParameterCount, ...] = ()

    @property
    def weights_difference(self) -> np.ndarray:
        """(h, n, n) adapted − base on the real tokens."""
        return self.weights[:, self.real_rows, self.real_cols] - self.base_weights

    @property
    def output_difference(self) -> np.ndarray:
        """(n, d) adapted − base output of the real tokens."""
        return self.output[self.real_rows] - self.base_output


def peft_topic(config: PeftConfig, should_stop: StopCheck = None) -> PeftResult:
    """Validate and compute the base and the adapted attention for `config` (float64 numpy)."""
    validate_peft(config)
    att = config.attention.replace(dtype="float64", backend="numpy", device="cpu")
    weights, _, x_in = model_input(att, should_stop)
    n, d = att.n_tokens, att.d_model
    allowed = build_mask(n, n, att.causal, att.padding)
    base = self_attention(x_in, weights, att.n_heads, allowed, att.scaled, should_stop)
    check(should_stop, "PEFT")
    common = dict(config=config, tokens=att.tokens, base_weights=base["weights"],
                  base_output=base["output"], base_mask=allowed,
                  counts=parameter_counts(d, config.layers, config.rank, config.virtual))
    real = slice(0, n)
    if config.method == "lora":
        parts, lora = _lora(config, att, weights, x_in, allowed, should_stop)
        return PeftResult(row_labels=att.tokens, col_labels=att.tokens, weights=parts["weights"],
                          output=parts["output"], mask=allowed, x_in=x_in, real_rows=real,
                          real_cols=real, lora=lora, **common)
    if config.method == "ia3":
        l_k, l_v = draw_ia3(config.adapter_seed, d, float(config.ia3_strength))
        parts = ia3_attention(x_in, weights, l_k, l_v, att.n_heads, allowed, att.scaled, should_stop)
        return PeftResult(row_labels=att.tokens, col_labels=att.tokens, weights=parts["weights"],
                          output=parts["output"], mask=allowed, x_in=x_in, real_rows=real,
                          real_cols=real, ia3=(l_k, l_v), **common)
    v = config.virtual
    labels = virtual_labels(v)
    shifted = slice(v, v + n)
    if config.method == "prefix":
        p_k, p_v = draw_prefix(config.adapter_seed, v, d, att.init)
        parts = prefix_attention(x_in, weights, p_k, p_v, att.n_heads, allowed, att.scaled, should_stop)
        return PeftResult(row_labels=att.tokens, col_labels=labels + att.tokens,
                          weights=parts["weights"], output=parts["output"], mask=parts["mask"],
                          x_in=x_in, real_rows=real, real_cols=shifted,
                          virtual=np.stack([p_k, p_v]), **common)
    embeddings = draw_prompt(config.adapter_seed, v, d)
    parts = prompt_attention(att, weights, embeddings, att.scaled, should_stop)
    return PeftResult(row_labels=labels + att.tokens, col_labels=labels + att.tokens,
                      weights=parts["weights"], output=parts["output"], mask=parts["mask"],
                      x_in=parts["x_in"], real_rows=shifted, real_cols=shifted, virtual=embeddings,
                      **common)


def _lora(config: PeftConfig, att: AttentionConfig, weights: Weights, x_in, allowed,
          should_stop: StopCheck):
    """(the unmerged adapter's attention, LoraParts) for a LoRA setting."""
    d = att.d_model
    target, rank = config.target, config.rank
    scale = lora_scale(config.alpha, rank, config.rslora)
    a, b = draw_lora(config.adapter_seed, rank, d, d, config.b_init)
    losses: tuple[float, ...] = ()
    if config.b_init == "trained" and config.steps > 0:
        a, b, losses = train_lora(x_in, weights, target, a, b, scale, att.n_heads, allowed,
                                  att.scaled, config.steps, should_stop)
    unmerged = lora_attention(x_in, weights, target, a, b, scale, att.n_heads, allowed,
                              att.scaled, should_stop)
    delta = delta_weight(a, b, scale)  # (d, d)
    merged = self_attention(x_in, merged_weights(weights, target, delta), att.n_heads, allowed,
                            att.scaled, should_stop)
    check(should_stop, "PEFT")
    w_sv = weight_singular_values(att.seed, att.n_tokens, d, att.init, target)
    parts = LoraParts(a, b, scale, np.asarray(getattr(weights, "w_" + target)), delta, w_sv,
                      delta_singular_values(a, b, scale),
                      merge_check(merged, unmerged, d, rank, att.n_tokens), losses)
    return unmerged, parts


__all__ = [
    "B_INITS", "LORA_TARGETS", "LoraParts", "MAX_ALPHA", "MAX_IA3_STRENGTH", "MAX_LAYERS",
    "MAX_STEPS", "MAX_VIRTUAL", "MergeCheck", "PEFT_METHODS", "ParameterCount", "PeftConfig",
    "PeftResult", "delta_singular_values", "delta_weight", "draw_ia3", "draw_lora", "draw_prefix",
    "draw_prompt", "ia3_attention", "lora_attention", "lora_project", "lora_scale",
    "merge_check", "merged_weights", "parameter_counts", "peft_topic", "prefix_attention",
    "prompt_attention", "prompt_mask", "validate_peft", "virtual_labels",
    "weight_singular_values",
]
