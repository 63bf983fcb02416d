"""Generation's compact step: one token through a decoder whose matrices are packed (compact/packing.py).

The same step serves SmolLM2 (llama.LlamaWeights, GGUF: RoPE on adjacent pairs) and every own
native decoder (checkpoints/decoders.Decoder: GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 2), and
returns what their float32 `step` returns (native.py's contract). The packed model is made at the
first generation (`compact_model`), never at load, and kept beside the float32 weights, which stay
the reference: the full pass the KV check compares with, and every other view.

What differs from the float32 step: each matmul's input is rounded to bfloat16 (the kernel's)
and its weights are the packed ones; the residual stream, norms, RoPE, attention, the KV cache
and the outputs stay float32. q, k and v are one matmul (their rows stacked), as are gate and up.

Qt-free; torch is imported by the caller's module (generation imports this on use).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from .packing import Packed, pack
from ..llama import KVCache


@dataclass
class Block:
    """One layer: norms (weight, bias or None), packed matmuls, what the family adds."""

    attn_norm: tuple
    qkv: Packed                       # rows q | k | v (their biases too)
    o: Packed
    ffn_norm: tuple
    up: Packed                        # rows gate | up for a gated MLP, else up
    down: Packed
    q_norm: torch.Tensor | None = None    # Qwen3: RMSNorm over each head's d_head
    k_norm: torch.Tensor | None = None
    post_attn_norm: torch.Tensor | None = None  # Gemma 2
    post_ffn_norm: torch.Tensor | None = None

    @property
    def nbytes(self) -> int:
        norms = [t for t in (*self.attn_norm, *self.ffn_norm, self.q_norm, self.k_norm,
                             self.post_attn_norm, self.post_ffn_norm) if t is not None]
        return (sum(p.nbytes for p in (self.qkv, self.o, self.up, self.down))
                + sum(t.numel() * t.element_size() for t in norms))


@dataclass
class CompactModel:
    """A decoder's packed weights and how its family computes (module docstring)."""

    blocks: list[Block]
    output: Packed
    out_norm: tuple
    embed: Callable                   # (token, position) -> (1, d) float32
    rotation: Callable | None         # position -> (d_head, d_head) RoPE as a matrix (_rotation); None: none
    norm: str                         # "rms" ((1 + w) folded in for Gemma 2) or "layer"
    eps: float
    heads: int
    kv_heads: int
    d_head: int
    gated: bool
    act: Callable
    scaling: list[float]              # per layer, multiplies q·k
    windows: list[int | None]         # per layer: sliding window, None = full
    attn_softcap: float | None = None
    final_softcap: float | None = None
    embed_row_bytes: int = 0          # the one embedding row a step reads

    @property
    def kinds(self) -> tuple[str, ...]:
        """The packed kinds used, layers' then the output's: e.g. ("int4", "int8")."""
        layer = sorted({p.kind for b in self.blocks for p in (b.qkv, b.o, b.up, b.down)})
        return ("+".join(layer), self.output.kind)

    @property
    def nbytes(self) -> int:
        """The bytes one step reads: every layer's packed matrices and norms, the output's, one
        embedding row (the KV cache's own bytes are in the records' cache_bytes)."""
        norm = sum(t.numel() * t.element_size() for t in self.out_norm if t is not None)
        return sum(b.nbytes for b in self.blocks) + self.output.nbytes + norm + self.embed_row_bytes

    def step(self, cache: KVCache, token: int, head_mask=None) -> dict:
        return step(self, cache, token, head_mask)


def supports(weights) -> bool:
    """A model this step computes: SmolLM2's LlamaWeights or an own native Decoder (not one
    wrapped with virtual tokens, not on a GPU: the kernel is the CPU's)."""
    kind = _family(weights)
    return kind is not None and weights.device.type == "cpu"


def _family(weights) -> str | None:
    names = set(getattr(type(weights), "__dataclass_fields__", ()))
    if {"blocks", "windows", "inv_freq", "norm"} <= names:
        return "decoder"
    if {"layers", "rope_theta", "out_norm"} <= names:
        return "llama"
    return None


_LOCK = threading.Lock()
_MADE: dict[int, tuple] = {}  # id(weights) -> (weakref to the weights, CompactModel)


def compact_model(weights, kind: str | None = None) -> CompactModel:
    """The packed model of these float32 weights, made once (the first generation) and dropped
    with them. kind: None (each matrix's own: compact.pack), or one kind for every matrix (only
    to measure; such a model is not kept)."""
    if kind is not None:
        with torch.inference_mode():
            return _build(weights, kind)
    with _LOCK:
        key = id(weights)
        made = _MADE.get(key)
        if made is not None and made[0]() is weights:
            return made[1]
        with torch.inference_mode():
            model = _build(weights, None)
        _MADE[key] = (weakref.ref(weights, lambda _ref, key=key, made=_MADE: made.pop(key, None)), model)
        return model


def _build(weights, kind: str | None) -> CompactModel:
    def packer(weight, bias=None):
        return pack(weight, bias, kind)
    return _from_llama(weights, packer) if _family(weights) == "llama" else _from_decoder(weights, packer)


def float32_bytes(weights) -> int:
    """What the float32 step reads: every layer's tensors, the output matrix, one embedding row
    (0: a model this module does not know, e.g. one with virtual tokens)."""
    if _family(weights) is None:
        return 0
    blocks = weights.blocks if _family(weights) == "decoder" else weights.layers
    tensors = {id(t): t for p in blocks for t in p.values()}
    tensors[id(weights.output)] = weights.output
    tensors[id(weights.out_norm)] = weights.out_norm
    row = weights.embed.shape[1] * weights.embed.element_size()
    return sum(t.numel() * t.element_size() for t in tensors.values()) + row


def _stacked(pack, p: dict, names: tuple[str, ...], bias: str = "_b") -> Packed:
    """The matrices `names` of a layer dict, rows stacked, packed with their biases (if any)."""
    weight = torch.cat([p[n] for n in names]) if len(names) > 1 else p[names[0]]
    biases = [p.get(n + bias) for n in names]
    if all(b is None for b in biases):
        return pack(weight)
    full = torch.cat([b if b is not None else weight.new_zeros(p[n].shape[0]) for n, b in zip(names, biases)])
    return pack(weight, full)


def _from_llama(w, pack) -> CompactModel:
    blocks = [Block(attn_norm=(p["attn_norm"], None), qkv=_stacked(pack, p, ("q", "k", "v")), o=pack(p["o"]),
                    ffn_norm=(p["ffn_norm"], None), up=_stacked(pack, p, ("gate", "up")), down=pack(p["down"]))
              for p in w.layers]
    inv_freq = w.rope_theta ** (-torch.arange(0, w.d_head, 2, dtype=torch.float64) / w.d_head)
    return CompactModel(
        blocks, pack(w.output), (w.out_norm, None), lambda token, pos: w.embed[token][None],
        _rotation(inv_freq, pairs=True), "rms", w.eps, w.heads, w.kv_heads, w.d_head, True, F.silu,
        [w.d_head ** -0.5] * len(w.layers), [None] * len(w.layers),
        embed_row_bytes=w.embed.shape[1] * w.embed.element_size())


def _from_decoder(m, pack) -> CompactModel:
    one_plus = m.norm == "rms1p"  # Gemma 2's (1 + w): folded into the weights once

    def norm_w(t):
        return None if t is None else (1.0 + t if one_plus else t)

    blocks = []
    for p in m.blocks:
        gated = "gate" in p
        blocks.append(Block(
            attn_norm=(norm_w(p["attn_norm"]), p.get("attn_norm_b")), qkv=_stacked(pack, p, ("q", "k", "v")),
            o=pack(p["o"], p.get("o_b")), ffn_norm=(norm_w(p["ffn_norm"]), p.get("ffn_norm_b")),
            up=_stacked(pack, p, ("gate", "up") if gated else ("up",)), down=pack(p["down"], p.get("down_b")),
            q_norm=norm_w(p.get("q_norm")), k_norm=norm_w(p.get("k_norm")),
            post_attn_norm=norm_w(p.get("post_attn_norm")), post_ffn_norm=norm_w(p.get("post_ffn_norm"))))

    def embed(token: int, pos: int) -> torch.Tensor:
        return m._embed([token], torch.tensor([pos], device=m.device))  # (1, d): scale, learned positions

    rotation = None if m.inv_freq is None else _rotation(m.inv_freq, pairs=False)
    return CompactModel(
        blocks, pack(m.output), (norm_w(m.out_norm), m.out_norm_b), embed, rotation,
        "layer" if m.norm == "layer" else "rms", m.eps, m.heads, m.kv_heads, m.d_head,
        "gate" in m.blocks[0], m.act, list(m.scaling), list(m.windows), m.attn_softcap, m.final_softcap,
        embed_row_bytes=m.embed.shape[1] * m.embed.element_size()
        + (0 if m.pos_embed is None else m.pos_embed.shape[1] * m.pos_embed.element_size()))


def _rotation(inv_freq: torch.Tensor, pairs: bool) -> Callable:
    """position -> R (d_head, d_head) with x @ R = x·cos + swap(x)·sin, RoPE at that position, where
    swap exchanges the pairs (adjacent: llama.rope) or the halves (rotate_half: decoders) with the
    rotation's signs. One small matmul a layer rotates every query and key head (fewer ops a step
    than the six of the elementwise form; each output still sums the same two products)."""
    half = inv_freq.shape[0]
    dims = torch.arange(2 * half)
    if pairs:  # (x0, x1) -> (x0 cos − x1 sin, x1 cos + x0 sin)
        partner, sign = dims ^ 1, torch.tensor([-1.0, 1.0]).repeat(half)
    else:  # rotate_half: (x1, x2) -> (x1 cos − x2 sin, x2 cos + x1 sin)
        partner, sign = (dims + half) % (2 * half), torch.tensor([-1.0, 1.0]).repeat_interleave(half)

    def at(pos: int) -> torch.Tensor:
        angles = (pos * inv_freq).to(torch.float32)  # (d_head / 2,) in the reference's precision first
        full = angles.repeat_interleave(2) if pairs else torch.cat([angles, angles])  # (d_head,)
        matrix = torch.diag(full.cos())  # (d_head, d_head): out_i = Σ_j x_j R[j, i]
        matrix[partner, dims] = full.sin() * sign
        return matrix
    return at


def _norm(m: CompactModel, x: torch.Tensor, weight: torch.Tensor, bias=None) -> torch.Tensor:
    if m.norm == "layer":
        return F.layer_norm(x, (x.shape[-1],), weight, bias, m.eps)
    return F.rms_norm(x, (x.shape[-1],), weight, m.eps)


def _attend(m: CompactModel, i: int, q, keys, values, keep):
    """One query: q (heads, dh) over keys, values (kv_heads, t, dh) -> context (1, heads·dh),
    weights (heads, t) (grouped-query attention without copying the keys per query head)."""
    kv, t = keys.shape[0], keys.shape[1]
    group = m.heads // kv
    scores = (q.view(kv, group, m.d_head) @ keys.transpose(1, 2)).view(m.heads, t) * m.scaling[i]  # (heads, t)
    if m.attn_softcap is not None:
        scores = torch.tanh(scores / m.attn_softcap) * m.attn_softcap
    window = m.windows[i]
    if window is not None and t > window:  # keys older than the window: weight 0
        scores[:, :t - window] = float("-inf")
    weights = torch.softmax(scores, dim=-1)  # (heads, t)
    mixed = weights if keep is None else weights * keep[:, None]
    context = (mixed.view(kv, group, t) @ values).view(1, m.heads * m.d_head)  # (1, heads · dh)
    return context, weights


def _layer(m: CompactModel, i: int, b: Block, x, rot, cache: KVCache, keep):
    """x (1, d) through block i; the cache gains this position's key and value."""
    dq, dkv = m.heads * m.d_head, m.kv_heads * m.d_head
    qkv = b.qkv(_norm(m, x, *b.attn_norm))[0]  # (dq + 2 dkv,)
    qk, v = qkv[:dq + dkv].view(m.heads + m.kv_heads, m.d_head), qkv[dq + dkv:]
    if b.q_norm is not None:  # Qwen3: each head's q and k normed first
        qk = torch.cat([_norm(m, qk[:m.heads], b.q_norm), _norm(m, qk[m.heads:], b.k_norm)])
    if rot is not None:
        qk = qk @ rot  # (heads + kv_heads, dh): RoPE
    q, k = qk[:m.heads], qk[m.heads:, None]  # (heads, dh), (kv_heads, 1, dh)
    v = v.view(m.kv_heads, 1, m.d_head)  # (kv_heads, 1, dh)
    keys, values = cache.add(i, k, v)  # (kv_heads, t + 1, dh) each
    context, weights = _attend(m, i, q, keys, values, keep)
    out = b.o(context)  # (1, d)
    x = x + (out if b.post_attn_norm is None else _norm(m, out, b.post_attn_norm))
    h = b.up(_norm(m, x, *b.ffn_norm))  # (1, 2 ffn | ffn)
    if m.gated:
        gate, up = h.chunk(2, dim=-1)
        h = m.act(gate) * up
    else:
        h = m.act(h)
    mlp = b.down(h)
    x = x + (mlp if b.post_ffn_norm is None else _norm(m, mlp, b.post_ffn_norm))
    return x, weights, q, out[0]


def step(m: CompactModel, cache: KVCache, token: int, head_mask=None) -> dict:
    """One token at position cache.length: logits (vocab,), rows (layers, heads, t + 1), q (layers,
    heads, d_head) after RoPE, attn_out (layers, d), all float32 (native.py's step)."""
    pos = cache.length
    x = m.embed(token, pos)  # (1, d)
    rot = None if m.rotation is None else m.rotation(pos)
    rows, queries, outputs = [], [], []
    for i, b in enumerate(m.blocks):
        x, weights, q, out = _layer(m, i, b, x, rot, cache, None if head_mask is None else head_mask[i])
        rows.append(weights)
        queries.append(q)
        outputs.append(out)
    logits = m.output(_norm(m, x, *m.out_norm))[0]  # (vocab,)
    if m.final_softcap is not None:
        logits = torch.tanh(logits / m.final_softcap) * m.final_softcap
    return {"logits": logits, "rows": torch.stack(rows), "q": torch.stack(queries),
            "attn_out": torch.stack(outputs)}
