"""A Llama decoder forward (RMSNorm, RoPE, SwiGLU, grouped-query attention) in torch, full and cached.

The q/k weights come from a GGUF file, where llama.cpp stores them permuted so that RoPE rotates
adjacent pairs (0,1), (2,3), ... (GPT-J style). Rotating adjacent pairs of the permuted weights
gives exactly the scores HF's rotate-half gives on the original weights (q·k is unchanged by
permuting the dimensions of both), so the attention maps are the model's own; no un-permute is needed.
Grouped-query attention: query head h reads key/value head h // (heads / kv_heads).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from .bert import final_or_logits, stacked, weight_store, with_captures
from ..backends.linear import linear

LAYER_KEYS = ("attn_norm", "q", "k", "v", "o", "ffn_norm", "gate", "up", "down")


@dataclass
class LlamaWeights:
    embed: torch.Tensor                     # (vocab, d)
    layers: list[dict[str, torch.Tensor]]   # LAYER_KEYS each; matrices (out, in)
    out_norm: torch.Tensor                  # (d,)
    output: torch.Tensor                    # (vocab, d) (tied to embed in SmolLM2)
    heads: int
    kv_heads: int
    rope_theta: float
    eps: float
    max_positions: int = 0                  # the longest input the model was trained on (0: not known)

    # The NativeModel contract (core/checkpoints/native.py), which the shared code calls. `layers`
    # here is the list of per-layer tensors (its length is the layer count), as tests read it.
    kind = "decoder"

    @property
    def d_head(self) -> int:
        return self.embed.shape[1] // self.heads

    @property
    def d_model(self) -> int:
        return self.embed.shape[1]

    @property
    def ffn(self) -> int:
        return self.layers[0]["gate"].shape[0]

    @property
    def vocab(self) -> int:
        return self.embed.shape[0]

    @property
    def device(self) -> torch.device:
        return self.embed.device

    captures = ("values", "hidden_states", "final")  # what forward(capture=...) can add (native.py)

    def forward(self, ids: list[int], head_mask: torch.Tensor | None = None,
                key_mask: torch.Tensor | None = None, capture=()) -> dict:
        return forward(self, ids, head_mask, key_mask, capture)

    def unembed(self, x: torch.Tensor) -> torch.Tensor:
        """Residual stream (n, d) -> logits (n, vocab): the final norm and the unembedding (the logit lens)."""
        return linear(rms_norm(x, self.out_norm, self.eps), self.output)  # (n, vocab)

    def new_cache(self) -> "KVCache":
        return KVCache()

    def step(self, cache: "KVCache", token: int, head_mask: torch.Tensor | None = None) -> dict:
        return step(self, cache, token, head_mask)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rope(x: torch.Tensor, positions: torch.Tensor, theta: float, rotation=None) -> torch.Tensor:
    """Rotate adjacent pairs of (heads, n, d_head) by position × theta^(-2i/d_head). rotation: what
    rope_rotation gives for these positions (the full pass makes it once for every layer).

    The pair (x[2i], x[2i+1]) as the complex number x[2i] + i·x[2i+1], times cos + i·sin: one
    complex product, where the real formula (four products of strided halves, stacked) took ten
    times as long. The same numbers up to float round-off."""
    rotation = rope_rotation(positions, x.shape[-1], theta, x.dtype) if rotation is None else rotation
    pairs = torch.view_as_complex(x.unflatten(-1, (-1, 2)))  # (heads, n, d_head/2)
    return torch.view_as_real(pairs * rotation).flatten(-2)  # (heads, n, d_head)


def rope_rotation(positions: torch.Tensor, d_head: int, theta: float, dtype) -> torch.Tensor:
    """cos + i·sin (n, d_head/2) of position × theta^(-2i/d_head) (the angles in float64, then
    `dtype`, as float32 or float64 pairs: complex64 or complex128)."""
    inv_freq = theta ** (-torch.arange(0, d_head, 2, dtype=torch.float64, device=positions.device) / d_head)
    angles = (positions.to(torch.float64)[:, None] * inv_freq).to(dtype)  # (n, d_head/2)
    return torch.polar(torch.ones_like(angles), angles)


def project_qkv(w: LlamaWeights, p: dict, h: torch.Tensor, positions: torch.Tensor, rotation=None):
    """(n, d) normed input -> q (heads, n, d_head), k and v (kv_heads, n, d_head), RoPE applied
    (rotation: rope_rotation of `positions`, made here when not given)."""
    n, dh = h.shape[0], w.d_head
    q = linear(h, p["q"]).view(n, w.heads, dh).transpose(0, 1)  # (heads, n, dh)
    k = linear(h, p["k"]).view(n, w.kv_heads, dh).transpose(0, 1)  # (kv_heads, n, dh)
    v = linear(h, p["v"]).view(n, w.kv_heads, dh).transpose(0, 1)  # (kv_heads, n, dh)
    if rotation is None:
        rotation = rope_rotation(positions, dh, w.rope_theta, h.dtype)
    return rope(q, positions, w.rope_theta, rotation), rope(k, positions, w.rope_theta, rotation), v


def attention_bias(nq: int, nk: int, group: int, causal: bool, key_mask, dtype, device) -> torch.Tensor:
    """The additive mask (group · nq, nk) attend's grouped scores get: 0 where query i may read key
    j, -inf (weight exactly 0) at a future key when `causal` and at a padding key (key_mask (nk,)
    False), the nq rows repeated for the `group` query heads that share one key head."""
    bias = torch.zeros(nq, nk, dtype=dtype, device=device)  # (nq, nk)
    if causal:
        bias.masked_fill_(torch.ones(nq, nk, dtype=torch.bool, device=device).triu_(nk - nq + 1), float("-inf"))
    if key_mask is not None:
        bias.masked_fill_(~key_mask[None, :], float("-inf"))
    return bias.repeat(group, 1)  # (group · nq, nk)


def attend(w: LlamaWeights, p: dict, q, k, v, causal: bool, keep, key_mask=None, bias=None, out=None):
    """q (heads, nq, dh) against k, v (kv_heads, nk, dh) -> output (nq, d), weights (heads, nq, nk).
    key_mask (nk,) bool: False = a padding key (weight exactly 0). bias: attention_bias for these
    (the full pass makes it once; it holds `causal` and `key_mask`); out: a (heads, nq, nk) tensor
    the weights are written into (the full pass's (layers, ...) result: no stacking after).

    The query heads that share a key head are one batch of group · nq rows against that head's
    keys (no copy of k and v per query head); the scaling and the mask ride on the product."""
    heads, nq, dh = q.shape
    kv, nk = k.shape[0], k.shape[1]
    group = heads // kv
    if bias is None:
        bias = attention_bias(nq, nk, group, causal, key_mask, q.dtype, q.device)
    grouped = q.reshape(kv, group * nq, dh)  # query head h = kv head h // group, row (h % group) · nq + i
    scores = torch.baddbmm(bias, grouped, k.transpose(1, 2), alpha=1 / math.sqrt(dh))  # (kv, group·nq, nk)
    weights = torch.softmax(scores.view(heads, nq, nk), dim=-1, out=out)  # (heads, nq, nk)
    mixed = weights if keep is None else weights * keep[:, None, None]
    context = (mixed.view(kv, group * nq, nk) @ v).view(heads, nq, dh)  # (heads, nq, dh)
    return linear(context.transpose(0, 1).reshape(nq, -1), p["o"]), weights  # (nq, d)


def mlp(p: dict, x: torch.Tensor) -> torch.Tensor:
    return linear(F.silu(linear(x, p["gate"])) * linear(x, p["up"]), p["down"])  # (n, d)


def forward(w: LlamaWeights, ids: list[int], head_mask: torch.Tensor | None = None,
            key_mask: torch.Tensor | None = None, capture=()) -> dict:
    """The full causal pass: attentions (layers, heads, n, n), logits (n, vocab); key_mask (n,) bool
    marks padding keys False (a padded batch row: no query attends to them); `capture` adds
    values + w_o and/or hidden_states (core/checkpoints/native.py)."""
    x = w.embed[torch.as_tensor(ids, device=w.embed.device)]  # (n, d)
    n = len(ids)
    positions = torch.arange(n, device=x.device)
    rotation = rope_rotation(positions, w.d_head, w.rope_theta, x.dtype)  # every layer's
    bias = attention_bias(n, n, w.heads // w.kv_heads, True, key_mask, x.dtype, x.device)  # (group·n, n)
    store = weight_store(len(w.layers), w.heads, n, x)  # (layers, heads, n, n) or None
    attentions, values, states = [], [], [x]
    for i, p in enumerate(w.layers):
        q, k, v = project_qkv(w, p, rms_norm(x, p["attn_norm"], w.eps), positions, rotation)
        keep = None if head_mask is None else head_mask[i]
        out, weights = attend(w, p, q, k, v, causal=True, keep=keep, bias=bias,
                              out=None if store is None else store[i])
        x = x + out
        x = x + mlp(p, rms_norm(x, p["ffn_norm"], w.eps))
        attentions.append(weights)
        values.append(v)  # (kv_heads, n, dh)
        states.append(x)
    out = {"attentions": stacked(store, attentions), **final_or_logits(capture, x, w.unembed)}
    return with_captures(out, capture, values, [p["o"] for p in w.layers], states)


@dataclass
class KVCache:
    """The real cache: per layer K and V, each (kv_heads, cached, d_head)."""

    keys: list[torch.Tensor] = field(default_factory=list)
    values: list[torch.Tensor] = field(default_factory=list)

    @property
    def length(self) -> int:
        return 0 if not self.keys else self.keys[0].shape[1]

    @property
    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (*self.keys, *self.values))

    def add(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append k, v (kv_heads, new, dh) to `layer`'s keys and values (the first step starts
        them); the layer's whole K and V (kv_heads, cached, dh)."""
        if len(self.keys) <= layer:
            self.keys.append(k)
            self.values.append(v)
        else:
            self.keys[layer] = torch.cat([self.keys[layer], k], dim=1)  # (kv_heads, t + 1, dh)
            self.values[layer] = torch.cat([self.values[layer], v], dim=1)
        return self.keys[layer], self.values[layer]


def step(w: LlamaWeights, cache: KVCache, token: int, head_mask: torch.Tensor | None = None) -> dict:
    """Feed one token at position cache.length; the cache grows by one.

    logits (vocab,), rows (layers, heads, t+1), and per layer the query q (layers, heads, d_head)
    and the attention block's output after W_O (layers, d): what the KV tab draws.
    """
    pos = cache.length
    x = w.embed[token][None]  # (1, d)
    positions = torch.tensor([pos], device=x.device)
    rows, queries, outputs = [], [], []
    for i, p in enumerate(w.layers):
        q, k, v = project_qkv(w, p, rms_norm(x, p["attn_norm"], w.eps), positions)  # (h|kv, 1, dh)
        keys, values = cache.add(i, k, v)  # (kv_heads, pos+1, dh) each
        keep = None if head_mask is None else head_mask[i]
        out, weights = attend(w, p, q, keys, values, causal=False, keep=keep)
        x = x + out
        x = x + mlp(p, rms_norm(x, p["ffn_norm"], w.eps))
        rows.append(weights[:, 0])  # (heads, pos+1)
        queries.append(q[:, 0])  # (heads, dh)
        outputs.append(out[0])  # (d,)
    logits = torch.mv(w.output, rms_norm(x, w.out_norm, w.eps)[0])  # (vocab,); mv: 2x F.linear's speed here
    return {"logits": logits, "rows": torch.stack(rows), "q": torch.stack(queries),
            "attn_out": torch.stack(outputs)}
