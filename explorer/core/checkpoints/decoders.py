"""Native decoders (GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 2): see native.py.

One forward, `Decoder`, covers the six families; a builder reads a Hugging Face checkpoint's
config.json (a dict) and tensors into it, checking every tensor's shape against the config. What
differs by family, as transformers 5.24 computes it:

- GPT-2: learned positions, LayerNorm, fused `c_attn` stored as Conv1D (in, out), gelu_new, plain
  MLP, tied lm_head; `scale_attn_by_inverse_layer_idx` divides layer i's scores by i + 1.
- Llama: RMSNorm, RoPE with rotate-half on the checkpoint's (unpermuted) q/k (GGUF's permuted
  weights and adjacent pairs are llama.py's business), `rope_parameters` / `rope_scaling`
  ("default", "linear", "dynamic", "llama3"), grouped-query attention, attention_bias, mlp_bias.
- Mistral: as Llama, every layer's keys older than `sliding_window` masked (None: full).
- Qwen2: q/k/v biases; sliding layers from `layer_types` (or use_sliding_window and
  max_window_layers: layer i slides when i >= max_window_layers).
- Qwen3: per-head q_norm / k_norm (RMSNorm over d_head, before RoPE); head_dim from the config.
- Gemma 2: (1 + w) RMSNorm, embeddings × √hidden, scores × query_pre_attn_scalar^-½, tanh
  soft-capping of the scores and the logits, norms after attention and around the MLP,
  gelu_pytorch_tanh, `layer_types` (default: even layers slide).

A sliding window w: query i sees keys j with i - w < j <= i (masking_utils.sliding_window_overlay).
The KV cache keeps every key (the tab draws them); the window masks the old ones to weight 0.
RoPE "dynamic" only differs from "default" beyond max_position_embeddings, which is the longest
input accepted here (max_positions), so it is computed as default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from ..learned.bert import final_or_logits, with_captures
from ..backends.linear import linear
from ..learned.llama import KVCache
from ..messages import QT_TRANSLATE_NOOP
from .native import CheckpointError

# the same templates as encoders.py's (one catalogue entry each)
SHAPE_MISMATCH = QT_TRANSLATE_NOOP(
    "core", "{tensor} has shape {found}, but config.json makes it {expected}")
MISSING_TENSOR = QT_TRANSLATE_NOOP("core", "{tensor} is missing from the checkpoint's weights")
NOT_NATIVE_SETTING = QT_TRANSLATE_NOOP("core", "{family}: {setting} {value} is not computed natively")

ROPE_TYPES = ("default", "linear", "dynamic", "llama3")


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """transformers' NewGELUActivation (GPT-2's gelu_new), the same operations in the same order."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


ACTIVATIONS: dict[str, Callable] = {
    "silu": F.silu, "swish": F.silu, "relu": F.relu, "gelu": F.gelu,
    "gelu_new": gelu_new, "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
}


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """(heads, n, d_head) rotated by cos, sin (n, d_head): HF's rotate-half on unpermuted weights."""
    return x * cos + rotate_half(x) * sin


@dataclass
class Decoder:
    """A decoder's float32 weights and what its family computes differently (module docstring).

    blocks: per layer a dict of tensors, matrices (out, in): attn_norm, q, k, v, o, ffn_norm, up,
    down, and where the family has them attn_norm_b, ffn_norm_b (LayerNorm), q_b, k_b, v_b, o_b,
    q_norm, k_norm (Qwen3), post_attn_norm, post_ffn_norm (Gemma 2), gate (gated MLP), up_b,
    gate_b, down_b.
    """

    family: str
    embed: torch.Tensor                 # (vocab, d_model)
    pos_embed: torch.Tensor | None      # (max_positions, d_model): learned positions (GPT-2)
    blocks: list[dict]
    out_norm: torch.Tensor
    out_norm_b: torch.Tensor | None
    output: torch.Tensor                # (vocab, d_model)
    heads: int
    kv_heads: int
    d_head: int
    ffn: int
    max_positions: int
    norm: str                           # "layer", "rms" or "rms1p" ((1 + w) RMSNorm)
    eps: float
    act: Callable
    scaling: list[float]                # per layer, multiplies q·k
    windows: list[int | None]           # per layer: sliding window, None = full causal
    inv_freq: torch.Tensor | None       # (d_head / 2,) RoPE frequencies; None: learned positions
    attn_softcap: float | None = None
    final_softcap: float | None = None
    embed_scale: float | None = None

    kind = "decoder"

    @property
    def layers(self) -> int:
        return len(self.blocks)

    @property
    def d_model(self) -> int:
        return self.embed.shape[1]

    @property
    def vocab(self) -> int:
        return self.embed.shape[0]

    @property
    def device(self) -> torch.device:
        return self.embed.device

    # -- the pieces
    def _norm(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        if self.norm == "layer":
            return F.layer_norm(x, (x.shape[-1],), w, b, self.eps)
        normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed * (1.0 + w) if self.norm == "rms1p" else normed * w

    def _embed(self, ids: list[int], positions: torch.Tensor, virtual: torch.Tensor | None = None) -> torch.Tensor:
        x = self.embed[torch.as_tensor(ids, dtype=torch.long, device=self.device)]  # (n, d)
        if virtual is not None:  # prompt tuning: (v, d) embeddings before the tokens' own
            x = torch.cat([virtual.to(device=x.device, dtype=x.dtype), x])  # (v + n, d)
        if self.embed_scale is not None:
            x = x * torch.tensor(self.embed_scale, dtype=x.dtype, device=x.device)
        if self.pos_embed is not None:
            x = x + self.pos_embed[positions]
        return x

    def _rope(self, positions: torch.Tensor):
        if self.inv_freq is None:
            return None
        freqs = positions.float()[:, None] * self.inv_freq[None, :]  # (n, d_head / 2)
        emb = torch.cat((freqs, freqs), dim=-1)  # (n, d_head)
        return emb.cos(), emb.sin()

    def _layer(self, i: int, x: torch.Tensor, positions: torch.Tensor, rope, cache: KVCache | None,
               keep: torch.Tensor | None, key_mask: torch.Tensor | None):
        """One block over x (nq, d) at `positions` -> (x, weights (heads, nq, nk), q (heads, nq, dh),
        attention output after W_O (nq, d), the values mixed (kv_heads, nk, dh)); with a cache, the
        new keys join it first."""
        p, n, dh = self.blocks[i], x.shape[0], self.d_head
        h = self._norm(x, p["attn_norm"], p.get("attn_norm_b"))
        q = linear(h, p["q"], p.get("q_b")).view(n, self.heads, dh)
        k = linear(h, p["k"], p.get("k_b")).view(n, self.kv_heads, dh)
        v = linear(h, p["v"], p.get("v_b")).view(n, self.kv_heads, dh).transpose(0, 1)
        if "q_norm" in p:  # Qwen3: RMSNorm over each head's d_head, before RoPE
            q, k = self._norm(q, p["q_norm"]), self._norm(k, p["k_norm"])
        q, k = q.transpose(0, 1), k.transpose(0, 1)  # (heads | kv_heads, n, dh)
        if rope is not None:
            q, k = apply_rope(q, *rope), apply_rope(k, *rope)
        if cache is not None:
            k, v = cache.add(i, k, v)  # (kv_heads, t + 1, dh) each
        out, weights = self._attend(i, p, q, k, v, positions, keep, key_mask)
        x_attn = self._norm(out, p["post_attn_norm"]) if "post_attn_norm" in p else out
        x = x + x_attn
        h = self._norm(x, p["ffn_norm"], p.get("ffn_norm_b"))
        if "gate" in p:
            mlp = self.act(linear(h, p["gate"], p.get("gate_b"))) * linear(h, p["up"], p.get("up_b"))
        else:
            mlp = self.act(linear(h, p["up"], p.get("up_b")))
        mlp = linear(mlp, p["down"], p.get("down_b"))
        if "post_ffn_norm" in p:
            mlp = self._norm(mlp, p["post_ffn_norm"])
        return x + mlp, weights, q, out, v

    def _attend(self, i, p, q, k, v, q_pos, keep, key_mask):
        """q (heads, nq, dh) against k, v (kv_heads, nk, dh), keys at positions 0..nk-1."""
        group = self.heads // self.kv_heads
        if group > 1:
            k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        scores = (q @ k.transpose(1, 2)) * self.scaling[i]  # (heads, nq, nk)
        if self.attn_softcap is not None:
            scores = torch.tanh(scores / self.attn_softcap) * self.attn_softcap
        k_pos = torch.arange(k.shape[1], device=q.device)
        allowed = k_pos[None, :] <= q_pos[:, None]  # (nq, nk)
        if self.windows[i] is not None:
            allowed &= k_pos[None, :] > q_pos[:, None] - self.windows[i]
        if key_mask is not None:
            allowed &= key_mask[None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        if key_mask is not None:  # a padding query whose window holds only padding: no keys at all
            weights = torch.nan_to_num(weights, nan=0.0)
        mixed = weights if keep is None else weights * keep[:, None, None]
        context = (mixed @ v).transpose(0, 1).reshape(q.shape[1], -1)  # (nq, heads · dh)
        return linear(context, p["o"], p.get("o_b")), weights

    def _logits(self, x: torch.Tensor) -> torch.Tensor:
        logits = linear(self._norm(x, self.out_norm, self.out_norm_b), self.output)
        if self.final_softcap is not None:
            logits = torch.tanh(logits / self.final_softcap) * self.final_softcap
        return logits

    # -- the contract
    captures = ("values", "hidden_states", "final")  # what forward(capture=...) can add (native.py)

    def forward(self, ids: list[int], head_mask=None, key_mask=None, capture=(), cache: KVCache | None = None,
                virtual: torch.Tensor | None = None) -> dict:
        """The full causal pass: attentions (layers, heads, n, n), logits (n, vocab); `capture`
        adds values + w_o and/or hidden_states (native.py).

        PEFT's virtual tokens (core/adapters/virtual.py), as transformers computes them: `virtual`
        (v, d_model) embeddings go before the tokens' own (prompt tuning: v more queries and keys
        at positions 0..v-1, every output v + n long); a `cache` holding t keys and values per
        layer (prefix tuning's) puts the tokens at positions t..t + n - 1, every query sees the t
        cached keys (attentions (n, t + n)), and the cache grows. key_mask covers the n tokens."""
        start = 0 if cache is None else cache.length
        extra = 0 if virtual is None else virtual.shape[0]
        positions = torch.arange(start, start + extra + len(ids), device=self.device)
        x, rope = self._embed(ids, positions, virtual), self._rope(positions)
        if key_mask is not None and start + extra:  # cached keys and virtual tokens are never padding
            key_mask = torch.cat([torch.ones(start + extra, dtype=torch.bool, device=key_mask.device), key_mask])
        attentions, values, states = [], [], [x]
        for i in range(self.layers):
            keep = None if head_mask is None else head_mask[i]
            x, weights, _, _, v = self._layer(i, x, positions, rope, cache, keep, key_mask)
            attentions.append(weights)
            values.append(v)
            states.append(x)
        out = {"attentions": torch.stack(attentions), **final_or_logits(capture, x, self._logits)}
        return with_captures(out, capture, values, [p["o"] for p in self.blocks], states)

    def unembed(self, x: torch.Tensor) -> torch.Tensor:
        """Residual stream (n, d_model) -> logits (n, vocab): the final norm and the unembedding
        (soft-capped where the family caps), as after the last layer (the logit lens)."""
        return self._logits(x)

    def new_cache(self) -> KVCache:
        return KVCache()

    def step(self, cache: KVCache, token: int, head_mask=None) -> dict:
        """One token at position cache.length (native.py): logits, rows, q, attn_out."""
        positions = torch.tensor([cache.length], device=self.device)
        x, rope = self._embed([token], positions), self._rope(positions)
        rows, queries, outputs = [], [], []
        for i in range(self.layers):
            keep = None if head_mask is None else head_mask[i]
            x, weights, q, out, _ = self._layer(i, x, positions, rope, cache, keep, None)
            rows.append(weights[:, 0])  # (heads, t + 1)
            queries.append(q[:, 0])  # (heads, dh)
            outputs.append(out[0])  # (d,)
        return {"logits": self._logits(x)[0], "rows": torch.stack(rows), "q": torch.stack(queries),
                "attn_out": torch.stack(outputs)}


# -- reading a checkpoint


class _Reader:
    """config.json values and tensors, each checked: a CheckpointError names what is wrong."""

    def __init__(self, family: str, config: dict, tensors: dict, prefix: str):
        self.family, self.config, self.tensors, self.prefix = family, config, tensors, prefix
        first = next(iter(tensors.values()), None)
        self.device = first.device if first is not None else torch.device("cpu")

    def bad(self, key: str, value) -> CheckpointError:
        return CheckpointError.of(NOT_NATIVE_SETTING, family=self.family, setting=key, value=repr(value))

    def int(self, *keys: str, default=None) -> int:
        """The first of `keys` the config has (not None), a positive integer."""
        value = next((self.config[k] for k in keys if self.config.get(k) is not None), default)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.bad(keys[0], value)
        return value

    def number(self, key: str, default=None) -> float | None:
        value = self.config.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise self.bad(key, value)
        return float(value)

    def has(self, name: str) -> bool:
        return self.prefix + name in self.tensors

    def tensor(self, name: str, *shape: int) -> torch.Tensor:
        """The tensor `prefix + name`, float32 on the tensors' device, of exactly `shape`."""
        full = self.prefix + name
        t = self.tensors.get(full)
        if t is None:
            raise CheckpointError.of(MISSING_TENSOR, tensor=full)
        if tuple(t.shape) != shape:
            raise CheckpointError.of(SHAPE_MISMATCH, tensor=full, found=tuple(t.shape), expected=shape)
        return t.to(device=self.device, dtype=torch.float32)

    def optional(self, name: str, *shape: int) -> torch.Tensor | None:
        return self.tensor(name, *shape) if self.has(name) else None


def _prefix(tensors: dict, marker: str, prefixes: tuple[str, ...]) -> str:
    """The prefix the checkpoint's names carry ("model." for *ForCausalLM, "" for a bare model)."""
    return next((p for p in prefixes if p + marker in tensors), prefixes[0])


def _activation(r: _Reader, *keys: str, default: str) -> Callable:
    key = next((k for k in keys if r.config.get(k) is not None), keys[0])
    name = r.config.get(key, default) or default
    if name not in ACTIVATIONS:
        raise r.bad(key, name)
    return ACTIVATIONS[name]


def rope_parameters(r: _Reader) -> dict:
    """The RoPE settings whatever transformers wrote them: 5.x `rope_parameters` (rope_theta
    inside), 4.x `rope_scaling` ({"type" or "rope_type", "factor", ...}) beside `rope_theta`."""
    params = {}
    for key in ("rope_scaling", "rope_parameters"):
        value = r.config.get(key)
        if value is None:
            continue
        if not isinstance(value, dict) or any(isinstance(v, dict) for v in value.values()):
            raise r.bad(key, value)  # per-layer-type RoPE (Gemma 3 and later): not these families
        params.update(value)
    params.setdefault("rope_theta", r.config.get("rope_theta", 10000.0))
    params["rope_type"] = params.get("rope_type", params.get("type")) or "default"
    return params


def rope_inv_freq(r: _Reader, d_head: int) -> torch.Tensor:
    """(d_head / 2,) float32 inverse frequencies, as modeling_rope_utils computes them."""
    params = rope_parameters(r)
    kind = params["rope_type"]
    if kind not in ROPE_TYPES:
        raise r.bad("rope_type", kind)
    if float(params.get("partial_rotary_factor", 1.0)) != 1.0:
        raise r.bad("partial_rotary_factor", params["partial_rotary_factor"])
    base = params["rope_theta"]
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not base > 0:
        raise r.bad("rope_theta", base)
    inv_freq = 1.0 / (float(base) ** (torch.arange(0, d_head, 2, dtype=torch.int64).to(torch.float) / d_head))
    if kind in ("default", "dynamic"):
        return inv_freq.to(r.device)
    factor = params.get("factor")
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not factor > 0:
        raise r.bad("rope_scaling.factor", factor)
    if kind == "linear":
        return (inv_freq / factor).to(r.device)
    # llama3: long wavelengths divided by factor, short ones kept, a smooth ramp between
    low, high = float(params.get("low_freq_factor", 1.0)), float(params.get("high_freq_factor", 4.0))
    old = params.get("original_max_position_embeddings") or r.config.get("original_max_position_embeddings") \
        or r.config.get("max_position_embeddings")
    if not high > low or not isinstance(old, (int, float)) or not old > 0:
        raise r.bad("rope_scaling", {k: params.get(k) for k in ("low_freq_factor", "high_freq_factor",
                                                               "original_max_position_embeddings")})
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled).to(r.device)


def _windows(r: _Reader, layers: int, default_types) -> list[int | None]:
    """Each layer's sliding window (None: full), from `layer_types` or the family's default rule;
    a config without the key gets transformers' default (4096), an explicit null none."""
    window = r.config.get("sliding_window", 4096)
    if window is None:
        return [None] * layers
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise r.bad("sliding_window", window)
    types = r.config.get("layer_types") or default_types
    if not isinstance(types, (list, tuple)) or len(types) != layers or \
            any(t not in ("full_attention", "sliding_attention") for t in types):
        raise r.bad("layer_types", types)
    return [window if t == "sliding_attention" else None for t in types]


# transformers' config defaults where a config.json leaves a size out
MAX_POSITIONS = {"llama": 2048, "mistral": 4096 * 32, "qwen2": 32768, "qwen3": 32768, "gemma2": 8192}


def _llama_like(family: str, config: dict, tensors: dict, *, qkv_bias: bool | None = None,
                qk_norm: bool = False, gemma: bool = False, default_types=None) -> Decoder:
    prefix = _prefix(tensors, "embed_tokens.weight", ("model.", ""))
    r = _Reader(family, config, tensors, prefix)
    d, layers = r.int("hidden_size"), r.int("num_hidden_layers")
    heads = r.int("num_attention_heads")
    kv_heads = r.int("num_key_value_heads", default=heads)
    if heads % kv_heads:
        raise r.bad("num_key_value_heads", kv_heads)
    dh = r.int("head_dim", default=d // heads)
    ffn, vocab = r.int("intermediate_size"), r.int("vocab_size")
    eps = r.number("rms_norm_eps", 1e-6)
    bias = bool(config.get("attention_bias", False))
    mlp_bias = family == "llama" and bool(config.get("mlp_bias", False))  # the others have none
    dq, dkv = heads * dh, kv_heads * dh
    types = default_types(layers) if default_types is not None else ["sliding_attention"] * layers
    windows = _windows(r, layers, types)

    def block(i: int) -> dict:
        at, mp = f"layers.{i}.self_attn.", f"layers.{i}.mlp."
        p = {"attn_norm": r.tensor(f"layers.{i}.input_layernorm.weight", d),
             "q": r.tensor(at + "q_proj.weight", dq, d), "k": r.tensor(at + "k_proj.weight", dkv, d),
             "v": r.tensor(at + "v_proj.weight", dkv, d), "o": r.tensor(at + "o_proj.weight", d, dq),
             "gate": r.tensor(mp + "gate_proj.weight", ffn, d), "up": r.tensor(mp + "up_proj.weight", ffn, d),
             "down": r.tensor(mp + "down_proj.weight", d, ffn)}
        if qkv_bias if qkv_bias is not None else bias:
            p.update(q_b=r.tensor(at + "q_proj.bias", dq), k_b=r.tensor(at + "k_proj.bias", dkv),
                     v_b=r.tensor(at + "v_proj.bias", dkv))
        if bias and qkv_bias is None:
            p["o_b"] = r.tensor(at + "o_proj.bias", d)
        if mlp_bias:
            p.update(gate_b=r.tensor(mp + "gate_proj.bias", ffn), up_b=r.tensor(mp + "up_proj.bias", ffn),
                     down_b=r.tensor(mp + "down_proj.bias", d))
        if qk_norm:
            p.update(q_norm=r.tensor(at + "q_norm.weight", dh), k_norm=r.tensor(at + "k_norm.weight", dh))
        if gemma:  # post_attention_layernorm is the norm AFTER attention; the MLP has its own pair
            p.update(post_attn_norm=r.tensor(f"layers.{i}.post_attention_layernorm.weight", d),
                     ffn_norm=r.tensor(f"layers.{i}.pre_feedforward_layernorm.weight", d),
                     post_ffn_norm=r.tensor(f"layers.{i}.post_feedforward_layernorm.weight", d))
        else:
            p["ffn_norm"] = r.tensor(f"layers.{i}.post_attention_layernorm.weight", d)
        return p

    embed = r.tensor("embed_tokens.weight", vocab, d)
    tied = config.get("tie_word_embeddings", gemma)
    if tied:
        output = embed
    else:
        head = _Reader(family, config, tensors, "")
        output = head.tensor("lm_head.weight", vocab, d)
    if gemma:
        scalar = r.number("query_pre_attn_scalar", 256)
        act = _activation(r, "hidden_activation", "hidden_act", default="gelu_pytorch_tanh")
    else:
        scalar = dh
        act = _activation(r, "hidden_act", default="silu")
    return Decoder(
        family=family, embed=embed, pos_embed=None, blocks=[block(i) for i in range(layers)],
        out_norm=r.tensor("norm.weight", d), out_norm_b=None, output=output, heads=heads,
        kv_heads=kv_heads, d_head=dh, ffn=ffn,
        max_positions=r.int("max_position_embeddings", default=MAX_POSITIONS[family]),
        norm="rms1p" if gemma else "rms", eps=eps, act=act, scaling=[scalar ** -0.5] * layers,
        windows=windows, inv_freq=rope_inv_freq(r, dh),
        attn_softcap=r.number("attn_logit_softcapping", 50.0) if gemma else None,
        final_softcap=r.number("final_logit_softcapping", 30.0) if gemma else None,
        embed_scale=d ** 0.5 if gemma else None)


def build_gpt2(config: dict, tensors: dict) -> Decoder:
    prefix = _prefix(tensors, "wte.weight", ("transformer.", ""))
    r = _Reader("gpt2", config, tensors, prefix)
    d, layers, heads = r.int("n_embd", "hidden_size"), r.int("n_layer", "num_hidden_layers"), \
        r.int("n_head", "num_attention_heads")
    if d % heads:
        raise r.bad("n_head", heads)
    ffn, vocab = r.int("n_inner", default=4 * d), r.int("vocab_size")
    positions = r.int("n_positions", "max_position_embeddings", default=1024)
    dh = d // heads
    scale = dh ** -0.5 if config.get("scale_attn_weights", True) else 1.0
    by_layer = bool(config.get("scale_attn_by_inverse_layer_idx", False))

    def block(i: int) -> dict:
        h = f"h.{i}."
        qkv_w = r.tensor(h + "attn.c_attn.weight", d, 3 * d).t()  # Conv1D (in, out) -> (out, in) view
        qkv_b = r.tensor(h + "attn.c_attn.bias", 3 * d)
        return {"attn_norm": r.tensor(h + "ln_1.weight", d), "attn_norm_b": r.tensor(h + "ln_1.bias", d),
                "q": qkv_w[:d], "k": qkv_w[d:2 * d], "v": qkv_w[2 * d:],
                "q_b": qkv_b[:d], "k_b": qkv_b[d:2 * d], "v_b": qkv_b[2 * d:],
                "o": r.tensor(h + "attn.c_proj.weight", d, d).t(), "o_b": r.tensor(h + "attn.c_proj.bias", d),
                "ffn_norm": r.tensor(h + "ln_2.weight", d), "ffn_norm_b": r.tensor(h + "ln_2.bias", d),
                "up": r.tensor(h + "mlp.c_fc.weight", d, ffn).t(), "up_b": r.tensor(h + "mlp.c_fc.bias", ffn),
                "down": r.tensor(h + "mlp.c_proj.weight", ffn, d).t(), "down_b": r.tensor(h + "mlp.c_proj.bias", d)}

    embed = r.tensor("wte.weight", vocab, d)
    if config.get("tie_word_embeddings", True):
        output = embed
    else:
        output = _Reader("gpt2", config, tensors, "").tensor("lm_head.weight", vocab, d)
    return Decoder(
        family="gpt2", embed=embed, pos_embed=r.tensor("wpe.weight", positions, d),
        blocks=[block(i) for i in range(layers)], out_norm=r.tensor("ln_f.weight", d),
        out_norm_b=r.tensor("ln_f.bias", d), output=output, heads=heads, kv_heads=heads, d_head=dh,
        ffn=ffn, max_positions=positions, norm="layer", eps=r.number("layer_norm_epsilon", 1e-5),
        act=_activation(r, "activation_function", default="gelu_new"),
        scaling=[scale / (i + 1) if by_layer else scale for i in range(layers)],
        windows=[None] * layers, inv_freq=None)


def build_llama(config: dict, tensors: dict) -> Decoder:
    config = {**config, "sliding_window": None}  # Llama has no window (a stray key must not add one)
    return _llama_like("llama", config, tensors)


def build_mistral(config: dict, tensors: dict) -> Decoder:
    # transformers' Mistral slides every layer (it warns about and ignores layer_types: Ministral's)
    config = {k: v for k, v in config.items() if k != "layer_types"}
    return _llama_like("mistral", config, tensors, qkv_bias=False)


def _qwen_types(config: dict):
    """Qwen2/Qwen3 without layer_types: layer i slides when use_sliding_window and i >= max_window_layers."""
    def types(layers: int) -> list[str]:
        first = config.get("max_window_layers")
        first = first if isinstance(first, int) else 28  # Qwen2Config's and Qwen3Config's default
        return ["sliding_attention" if i >= first else "full_attention" for i in range(layers)]
    return types


def _qwen_config(config: dict) -> dict:
    # transformers' Qwen configs drop the window unless use_sliding_window is set
    return config if config.get("use_sliding_window") else {**config, "sliding_window": None}


def build_qwen2(config: dict, tensors: dict) -> Decoder:
    return _llama_like("qwen2", _qwen_config(config), tensors, qkv_bias=True, default_types=_qwen_types(config))


def build_qwen3(config: dict, tensors: dict) -> Decoder:
    return _llama_like("qwen3", _qwen_config(config), tensors, qk_norm=True, default_types=_qwen_types(config))


def build_gemma2(config: dict, tensors: dict) -> Decoder:
    return _llama_like("gemma2", config, tensors, gemma=True, default_types=lambda layers: [
        "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)])


BUILDERS: dict = {"gpt2": build_gpt2, "llama": build_llama, "mistral": build_mistral,
                  "qwen2": build_qwen2, "qwen3": build_qwen3, "gemma2": build_gemma2}
