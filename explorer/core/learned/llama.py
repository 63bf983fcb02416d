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

from .bert import with_captures

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

    captures = ("values", "hidden_states")  # what forward(capture=...) can add (native.py)

    def forward(self, ids: list[int], head_mask: torch.Tensor | None = None,
                key_mask: torch.Tensor | None = None, capture=()) -> dict:
        return forward(self, ids, head_mask, key_mask, capture)

    def unembed(self, x: torch.Tensor) -> torch.Tensor:
        """Residual stream (n, d) -> logits (n, vocab): the final norm and the unembedding (the logit lens)."""
        return F.linear(rms_norm(x, self.out_norm, self.eps), self.output)

    def new_cache(self) -> "KVCache":
        return KVCache()

    def step(self, cache: "KVCache", token: int, head_mask: torch.Tensor | None = None) -> dict:
        return step(self, cache, token, head_mask)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rope(x: torch.Tensor, positions: torch.Tensor, theta: float) -> torch.Tensor:
    """Rotate adjacent pairs of (heads, n, d_head) by position × theta^(-2i/d_head)."""
    d_head = x.shape[-1]
    inv_freq = theta ** (-torch.arange(0, d_head, 2, dtype=torch.float64, device=x.device) / d_head)
    angles = (positions.to(torch.float64)[:, None] * inv_freq).to(x.dtype)  # (n, d_head/2)
    cos, sin = angles.cos(), angles.sin()
    x0, x1 = x[..., 0::2], x[..., 1::2]  # (heads, n, d_head/2) each
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


def project_qkv(w: LlamaWeights, p: dict, h: torch.Tensor, positions: torch.Tensor):
    """(n, d) normed input -> q (heads, n, d_head), k and v (kv_heads, n, d_head), RoPE applied."""
    n, dh = h.shape[0], w.d_head
    q = F.linear(h, p["q"]).view(n, w.heads, dh).transpose(0, 1)  # (heads, n, dh)
    k = F.linear(h, p["k"]).view(n, w.kv_heads, dh).transpose(0, 1)  # (kv_heads, n, dh)
    v = F.linear(h, p["v"]).view(n, w.kv_heads, dh).transpose(0, 1)  # (kv_heads, n, dh)
    return rope(q, positions, w.rope_theta), rope(k, positions, w.rope_theta), v


def attend(w: LlamaWeights, p: dict, q, k, v, causal: bool, keep, key_mask=None):
    """q (heads, nq, dh) against k, v (kv_heads, nk, dh) -> output (nq, d), weights (heads, nq, nk).
    key_mask (nk,) bool: False = a padding key (weight exactly 0)."""
    group = w.heads // w.kv_heads
    k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)  # (heads, nk, dh)
    scores = q @ k.transpose(1, 2) / math.sqrt(w.d_head)  # (heads, nq, nk)
    if causal:
        nq, nk = scores.shape[1:]
        future = torch.ones(nq, nk, dtype=torch.bool, device=q.device).triu(nk - nq + 1)
        scores = scores.masked_fill(future, float("-inf"))
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask[None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (heads, nq, nk)
    mixed = weights if keep is None else weights * keep[:, None, None]
    context = (mixed @ v).transpose(0, 1).reshape(q.shape[1], -1)  # (nq, d)
    return F.linear(context, p["o"]), weights


def mlp(p: dict, x: torch.Tensor) -> torch.Tensor:
    return F.linear(F.silu(F.linear(x, p["gate"])) * F.linear(x, p["up"]), p["down"])  # (n, d)


def forward(w: LlamaWeights, ids: list[int], head_mask: torch.Tensor | None = None,
            key_mask: torch.Tensor | None = None, capture=()) -> dict:
    """The full causal pass: attentions (layers, heads, n, n), logits (n, vocab); key_mask (n,) bool
    marks padding keys False (a padded batch row: no query attends to them); `capture` adds
    values + w_o and/or hidden_states (core/checkpoints/native.py)."""
    x = w.embed[torch.as_tensor(ids, device=w.embed.device)]  # (n, d)
    positions = torch.arange(len(ids), device=x.device)
    attentions, values, states = [], [], [x]
    for i, p in enumerate(w.layers):
        q, k, v = project_qkv(w, p, rms_norm(x, p["attn_norm"], w.eps), positions)
        keep = None if head_mask is None else head_mask[i]
        out, weights = attend(w, p, q, k, v, causal=True, keep=keep, key_mask=key_mask)
        x = x + out
        x = x + mlp(p, rms_norm(x, p["ffn_norm"], w.eps))
        attentions.append(weights)
        values.append(v)  # (kv_heads, n, dh)
        states.append(x)
    out = {"attentions": torch.stack(attentions), "logits": w.unembed(x)}  # logits (n, vocab)
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
        if pos == 0:
            cache.keys.append(k)
            cache.values.append(v)
        else:
            cache.keys[i] = torch.cat([cache.keys[i], k], dim=1)  # (kv_heads, pos+1, dh)
            cache.values[i] = torch.cat([cache.values[i], v], dim=1)
        keep = None if head_mask is None else head_mask[i]
        out, weights = attend(w, p, q, cache.keys[i], cache.values[i], causal=False, keep=keep)
        x = x + out
        x = x + mlp(p, rms_norm(x, p["ffn_norm"], w.eps))
        rows.append(weights[:, 0])  # (heads, pos+1)
        queries.append(q[:, 0])  # (heads, dh)
        outputs.append(out[0])  # (d,)
    logits = torch.mv(w.output, rms_norm(x, w.out_norm, w.eps)[0])  # (vocab,); mv: 2x F.linear's speed here
    return {"logits": logits, "rows": torch.stack(rows), "q": torch.stack(queries),
            "attn_out": torch.stack(outputs)}
