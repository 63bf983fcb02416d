"""A BERT encoder forward (Post-LN, GELU) in torch that returns every layer's attention weights.

Used for MiniLM (fp32 safetensors) and multilingual-e5-small (dequantised Q4_0). Imported only
when a pretrained encoder is used (it imports torch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from ..backends.linear import linear

LAYER_KEYS = ("q_w", "q_b", "k_w", "k_b", "v_w", "v_b", "o_w", "o_b", "ln1_w", "ln1_b",
              "fi_w", "fi_b", "fo_w", "fo_b", "ln2_w", "ln2_b")


@dataclass
class BertWeights:
    """Tensors on one device; matrices are (out, in) as both files store them."""

    embed: Callable[[list[int]], torch.Tensor]  # token ids -> (n, d) word embeddings
    pos: torch.Tensor                           # (max_positions, d)
    type0: torch.Tensor                         # (d,) token type 0
    ln_w: torch.Tensor
    ln_b: torch.Tensor
    layers: list[dict[str, torch.Tensor]]       # LAYER_KEYS each
    heads: int
    eps: float
    vocab: int = 0                              # word-embedding rows (0: not known; the table may stay quantised)

    # The NativeModel contract (core/checkpoints/native.py), which the shared code calls. `layers`
    # here is the list of per-layer tensors (its length is the layer count), as tests read it.
    kind = "encoder"

    @property
    def device(self) -> torch.device:
        return self.pos.device

    @property
    def kv_heads(self) -> int:
        return self.heads

    @property
    def d_model(self) -> int:
        return self.pos.shape[1]

    @property
    def d_head(self) -> int:
        return self.d_model // self.heads

    @property
    def ffn(self) -> int:
        return self.layers[0]["fi_w"].shape[0]

    @property
    def max_positions(self) -> int:
        return self.pos.shape[0]

    captures = ("values", "hidden_states")  # what forward(capture=...) can add (native.py)

    def forward(self, ids: list[int], head_mask: torch.Tensor | None = None,
                key_mask: torch.Tensor | None = None, capture=()) -> dict:
        return forward(self, ids, head_mask, key_mask, capture)

    def new_cache(self):
        raise TypeError("an encoder has no KV cache")

    def step(self, cache, token: int, head_mask=None) -> dict:
        raise TypeError("an encoder reads the whole sequence at once: no step")


def self_attention(x: torch.Tensor, p: dict, heads: int, keep: torch.Tensor | None,
                   key_mask: torch.Tensor | None = None, out: torch.Tensor | None = None):
    """(n, d) -> output (n, d), weights (h, n, n), the values mixed (h, n, d_head). `keep` (h,)
    scales each head's weights (0 prunes); `key_mask` (n,) bool: False = a padding key, its weight
    exactly 0 (softmax over -inf); `out` (h, n, n): where the weights go (weight_store's layer).
    The scaling and the mask ride on the product (baddbmm), not on a pass over the scores."""
    n, d = x.shape
    q, k, v = (linear(x, p[f"{c}_w"], p[f"{c}_b"]).view(n, heads, d // heads).transpose(0, 1)
               for c in "qkv")  # (h, n, d_head) each
    bias = torch.zeros(1, n, dtype=x.dtype, device=x.device)  # (1, n), every query row alike
    if key_mask is not None:
        bias.masked_fill_(~key_mask[None, :], float("-inf"))
    scores = torch.baddbmm(bias, q, k.transpose(1, 2), alpha=1 / math.sqrt(d // heads))  # (h, n, n)
    weights = torch.softmax(scores, dim=-1, out=out)  # (h, n, n)
    mixed = weights if keep is None else weights * keep[:, None, None]  # (h, n, n)
    context = (mixed @ v).transpose(0, 1).reshape(n, d)  # (n, d)
    return linear(context, p["o_w"], p["o_b"]), weights, v


def forward(w: BertWeights, ids: list[int], head_mask: torch.Tensor | None = None,
            key_mask: torch.Tensor | None = None, capture=()) -> dict:
    """attentions (layers, h, n, n) and the last hidden states (n, d); head_mask (layers, h) of 0/1;
    key_mask (n,) bool, False for padding keys (every query row ignores them); `capture` adds
    values + w_o and/or hidden_states (core/checkpoints/native.py)."""
    n = len(ids)
    x = w.embed(ids) + w.pos[:n] + w.type0  # (n, d)
    d = x.shape[-1]
    x = F.layer_norm(x, (d,), w.ln_w, w.ln_b, w.eps)
    store = weight_store(len(w.layers), w.heads, n, x)  # (layers, h, n, n) or None
    attentions, values, states = [], [], [x]
    for i, p in enumerate(w.layers):
        keep = None if head_mask is None else head_mask[i]
        attn_out, weights, v = self_attention(x, p, w.heads, keep, key_mask, None if store is None else store[i])
        x = F.layer_norm(x + attn_out, (d,), p["ln1_w"], p["ln1_b"], w.eps)  # (n, d)
        ffn = linear(F.gelu(linear(x, p["fi_w"], p["fi_b"])), p["fo_w"], p["fo_b"])  # (n, d)
        x = F.layer_norm(x + ffn, (d,), p["ln2_w"], p["ln2_b"], w.eps)
        attentions.append(weights)
        values.append(v)
        states.append(x)
    out = {"attentions": stacked(store, attentions), "hidden": x}  # (layers, h, n, n), (n, d)
    return with_captures(out, capture, values, [p["o_w"] for p in w.layers], states)


def weight_store(layers: int, heads: int, n: int, like: torch.Tensor) -> torch.Tensor | None:
    """An empty (layers, heads, n, n) tensor (like's dtype and device) each layer's softmax writes
    its weights into (out=): one allocation and no stacking after, which copied every weight once
    more (70 MB for SmolLM2 at 256 tokens). None while autograd records: `stacked` stacks then."""
    return output_buffer((layers, heads, n, n), like)


def output_buffer(shape: tuple, like: torch.Tensor) -> torch.Tensor | None:
    """An empty tensor of `shape` (like's dtype and device) for a result written with out=, or
    None while autograd records (LoRA fine-tuning runs the decoder's forward with gradients, and
    out= cannot be differentiated).

    torch's allocator, in 4 KB pages, not numpy's: numpy asks the kernel for huge pages (madvise)
    for an array of 4 MB and up, and where the kernel has none ready it compacts memory first,
    inside the page fault. Writing SmolLM2's fresh 70 MB store at 256 tokens took 7.5 ms in huge
    pages once they came readily, but 200-320 ms in each of the first 1-5 passes of a process
    (THP defrag "madvise", this project's machine and common desktop defaults), against a steady
    16.5-18.9 ms in 4 KB pages (session 16; docs/benchmarks.md). The first pictures of a session
    are what a class sees."""
    if torch.is_grad_enabled():
        return None
    return torch.empty(shape, dtype=like.dtype, device=like.device)


def stacked(store: torch.Tensor | None, weights: list) -> torch.Tensor:
    """The (layers, heads, n, n) attentions: weight_store's tensor, or the layers' weights stacked."""
    return torch.stack(weights) if store is None else store


def final_or_logits(capture, x: torch.Tensor, unembed) -> dict:
    """A decoder's forward's last output: "logits" (n, vocab) = unembed(x), or with capture "final"
    the residual stream x (n, d) itself under "final" (before the final norm), for a caller that
    unembeds only the rows it needs (core/learned/analysis.decoder_outputs)."""
    return {"final": x} if "final" in capture else {"logits": unembed(x)}


def with_captures(out: dict, capture, values: list, w_o: list, states: list) -> dict:
    """`out` with what `capture` names (core/checkpoints/native.py): "values" adds values (layers,
    kv_heads, n, d_head) and w_o (per layer (d_model, heads · d_head), as stored: (out, in));
    "hidden_states" adds (layers + 1, n, d_model), the residual stream before the first layer and
    after each. The encoders and decoders share it (core/checkpoints imports core/learned)."""
    if "values" in capture:
        out.update(values=torch.stack(values), w_o=tuple(w_o))
    if "hidden_states" in capture:
        out["hidden_states"] = torch.stack(states)
    return out


def sentence_vector(hidden: torch.Tensor) -> torch.Tensor:
    """Mean-pooled, L2-normalised sentence embedding (what MiniLM and e5 are trained for). (d,)"""
    return F.normalize(hidden.mean(dim=0), dim=0)
