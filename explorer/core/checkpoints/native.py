"""The contract every natively computed family meets, so every view works on it.

A family module (encoders.py, decoders.py) turns a checkpoint's config and tensors into a
`NativeModel`: the app's own forward in torch, returning every layer's attention. The bundled
models' BERT and Llama forwards (core/learned/bert.py, llama.py) meet the same contract, and the
shared code (core/learned/analysis.run, generation.run_generation, pruning) calls only it.

    model = BUILDERS[config["model_type"]](config, tensors)   # families.py: the table
    out = model.forward(ids)                # attentions (layers, heads, n, n)
    out = model.forward(ids, head_mask, key_mask)
    cache = model.new_cache(); out = model.step(cache, token)  # decoders: one token, real KV cache

Shapes: ids a list of ints; head_mask (layers, heads) float 0/1 (0 switches a head off: its
weights are multiplied by 0 before they mix the values; the attention maps returned are the
unmasked softmax); key_mask (n,) bool, False = a padding key (weight exactly 0 for every query).
Tensors float32 on the model's device unless the model keeps its weights in another dtype
(then the outputs are float32 all the same).

Qt-free; torch is imported by the family modules, not here.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..config import ConfigError
from ..messages import QT_TRANSLATE_NOOP


class CheckpointError(ConfigError):
    """A checkpoint that cannot be opened: one line saying why (and how to fix it, if it can be)."""


class NativeModel(Protocol):
    """The sizes the shared code needs come from the model's ModelSpec (LoadedModel.spec); these
    attributes are the forward's own (the bundled BertWeights / LlamaWeights keep `layers` as
    their list of blocks, so the shared code never reads `layers` here)."""

    kind: str           # "encoder" or "decoder"
    heads: int          # query heads
    kv_heads: int       # key/value heads (fewer: grouped-query attention)
    d_model: int
    d_head: int         # may differ from d_model / heads (Qwen3, Gemma 2)
    ffn: int            # the MLP's inner width (the KV tab's FLOPs)
    max_positions: int  # the longest input it accepts
    vocab: int
    device: Any         # torch.device

    def forward(self, ids: list[int], head_mask=None, key_mask=None) -> dict:
        """attentions (layers, heads, n, n) float32; an encoder also gives hidden (n, d_model),
        the last layer's output; a decoder gives logits (n, vocab) float32."""

    def new_cache(self):
        """Decoders: an empty KV cache (core/learned/llama.KVCache: per layer K and V, each
        (kv_heads, cached, d_head))."""

    def step(self, cache, token: int, head_mask=None) -> dict:
        """Decoders: feed one token at position cache.length (the cache grows by one): logits
        (vocab,), rows (layers, heads, t + 1) attention of the new query, q (layers, heads,
        d_head) the queries as they meet the keys (after RoPE, scaling excluded), attn_out
        (layers, d_model) the attention block's output after W_O."""


UNKNOWN_FAMILY = QT_TRANSLATE_NOOP("core", "{name}: model type {family} is not computed natively")
