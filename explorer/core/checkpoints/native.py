"""The contract every natively computed family meets, so every view works on it.

A family module (encoders.py, decoders.py) turns a checkpoint's config and tensors into a
`NativeModel`: the app's own forward in torch, returning every layer's attention. The bundled
models' BERT and Llama forwards (core/learned/bert.py, llama.py) meet the same contract, and the
shared code (core/learned/analysis.run, generation.run_generation, pruning) calls only it.

    model = BUILDERS[config["model_type"]](config, tensors)   # families.py: the table
    out = model.forward(ids)                # attentions (layers, heads, n, n)
    out = model.forward(ids, head_mask, key_mask)
    cache = model.new_cache(); out = model.step(cache, token)  # decoders: one token, real KV cache
    out = model.forward(ids, capture=("values", "hidden_states"))  # what core/insight reads
    logits = model.unembed(out["hidden_states"][layer])          # decoders: the logit lens

Shapes: ids a list of ints; head_mask (layers, heads) float 0/1 (0 switches a head off: its
weights are multiplied by 0 before they mix the values; the attention maps returned are the
unmasked softmax); key_mask (n,) bool, False = a padding key (weight exactly 0 for every query).
Tensors float32 on the model's device unless the model keeps its weights in another dtype
(then the outputs are float32 all the same).

`capture` (a tuple of names from the model's `captures`; a model without that attribute, such
as one run through transformers, captures nothing) adds to forward's dict:
- "values": values (layers, kv_heads, n, d_head), what each layer's heads mix (biases included;
  query head h reads KV head h // (heads / kv_heads)), and w_o, per layer W_O as the forward
  applies it, (d_model, heads · d_head) (out, in): head h's slice is w_o[:, h·d_head:(h+1)·d_head];
- "hidden_states": (layers + 1, n, d_model), the residual stream before the first layer and after
  each one (a decoder's before its final norm: `unembed` applies the norm and the unembedding).
- "final" (decoders): the residual stream after the last layer (n, d_model), before the final
  norm, under "final" *instead of* "logits": the caller unembeds the rows it needs
  (core/learned/analysis.decoder_outputs; the whole (n, vocab) is the analysis's largest array).

A model with a PEFT adapter's virtual tokens (core/adapters/virtual.py: prefix and prompt tuning)
meets the same contract and adds `virtual_tokens` (v) and `virtual_queries`: its attentions have
v virtual keys first, (layers, heads, n, v + n), and for prompt tuning v virtual queries too,
(layers, heads, v + n, v + n); logits and hidden stay the n tokens'; new_cache() holds the v
virtual positions already, so step() runs the adapted decoder as it is. A model without the
attributes has none (v = 0).

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
    captures: tuple     # what forward's `capture` can add: ("values", "hidden_states", "final") (module docstring)

    def forward(self, ids: list[int], head_mask=None, key_mask=None, capture=()) -> dict:
        """attentions (layers, heads, n, n) float32; an encoder also gives hidden (n, d_model),
        the last layer's output; a decoder gives logits (n, vocab) float32; `capture`: see above."""

    def unembed(self, x):
        """Decoders: a residual stream (n, d_model) -> logits (n, vocab), through the final norm and
        the unembedding as after the last layer (core/insight/lens.py, the logit lens)."""

    def new_cache(self):
        """Decoders: an empty KV cache (core/learned/llama.KVCache: per layer K and V, each
        (kv_heads, cached, d_head))."""

    def step(self, cache, token: int, head_mask=None) -> dict:
        """Decoders: feed one token at position cache.length (the cache grows by one): logits
        (vocab,), rows (layers, heads, t + 1) attention of the new query, q (layers, heads,
        d_head) the queries as they meet the keys (after RoPE, scaling excluded), attn_out
        (layers, d_model) the attention block's output after W_O."""


UNKNOWN_FAMILY = QT_TRANSLATE_NOOP("core", "{name}: model type {family} is not computed natively")
