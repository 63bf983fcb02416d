"""Prefix tuning and prompt tuning: virtual tokens before the text, on the family's own forward.

    tokens = virtual_tokens(adapter, adapter_tensors, base_weights, name)   # checked shapes
    model = VirtualTokensModel(base_weights, tokens)    # a native.NativeModel, like the base

What peft 0.21.2 saves and computes (peft_model.get_prompt, PeftModelForCausalLM.forward):

- Prefix tuning: one tensor `prompt_embeddings` (v, layers · 2 · kv_heads · d_head), the
  prefix encoder's output (with prefix_projection the MLP was run before saving, so the file is
  the same shape either way). peft views it (v, layers · 2, kv_heads, d_head): layer i's keys
  are [:, 2i], its values [:, 2i + 1], and puts them in the KV cache before the text, as they
  are (no RoPE is applied to them). The text's tokens then take positions v..v + n - 1 (RoPE and
  learned positions alike: transformers counts from the cache's length), every query sees the v
  virtual keys, and the attentions are (n, v + n), the virtual keys first.
- Prompt tuning: `prompt_embeddings` (v, embedding width) put before the text's embeddings
  (inputs_embeds): v more tokens at positions 0..v - 1, queries and keys both, attentions
  (v + n, v + n); decoders and encoders.

The model: `forward` gives the attentions on that axis (virtual tokens first on the keys; on
the queries too for prompt tuning), `values` likewise (on the key axis), and logits, hidden and
hidden_states for the text's tokens only (a virtual token predicts nothing). For a decoder,
`new_cache()` is the cache pre-filled with the v virtual positions (prefix tuning's keys and
values; prompt tuning's computed once by running the virtual tokens), so `step` and everything
built on it (generation, the KV tab) run the adapted decoder unchanged. `virtual_tokens` (v) and
`virtual_queries` (prompt tuning) say what the axes hold.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import torch

from ..learned.llama import KVCache
from . import errors as e
from .adapter_files import Adapter, shape_text

TENSOR = "prompt_embeddings"


@dataclass(frozen=True)
class VirtualTokens:
    """What an adapter puts before the text."""

    method: str                         # "prefix" or "prompt"
    count: int                          # v
    embeddings: torch.Tensor | None     # prompt: (v, embedding width)
    keys: tuple | None                  # prefix: per layer (kv_heads, v, d_head)
    values: tuple | None


def virtual_tokens(adapter: Adapter, tensors: dict, base, name: str) -> VirtualTokens:
    """The checked virtual tokens of a prefix- or prompt-tuning adapter for the model `base`
    (a native Decoder or EncoderModel named `name`), float32 on its device."""
    s, path = adapter.settings, str(adapter.folder)
    if set(tensors) != {TENSOR}:
        stray = next(t for t in tensors if t != TENSOR) if set(tensors) - {TENSOR} else TENSOR
        raise e.fail(e.STRAY_TENSOR, ("method",), path=path, tensor=stray, method=e.METHOD_NAMES[s.method])
    table = tensors[TENSOR].to(device=base.device, dtype=torch.float32)
    v = s.num_virtual_tokens
    if s.method == "prompt":
        width = (base.word if hasattr(base, "word") else base.embed).shape[1]  # encoder: e; decoder: d_model
        _same(adapter, name, "token_dim", s.token_dim, width)
        if tuple(table.shape) != (v, width):
            raise e.fail(e.PROMPT_SHAPE, path=path, found=shape_text(table.shape), name=name,
                         expected=shape_text((v, width)))
        return VirtualTokens("prompt", v, table, None, None)
    if base.kind != "decoder":
        raise e.fail(e.NEEDS_DECODER, path=path, name=name)
    layers, kv, dh = base.layers, base.kv_heads, base.d_head
    _same(adapter, name, "num_layers", s.num_layers, layers)
    _same(adapter, name, "num_attention_heads", s.num_attention_heads, kv)
    _same(adapter, name, "token_dim", s.token_dim, kv * dh)
    if tuple(table.shape) != (v, layers * 2 * kv * dh):
        raise e.fail(e.PREFIX_SHAPE, path=path, found=shape_text(table.shape), name=name,
                     expected=shape_text((v, layers * 2 * kv * dh)))
    kv_table = table.view(v, layers * 2, kv, dh).permute(1, 2, 0, 3)  # (layers · 2, kv_heads, v, dh)
    keys = tuple(kv_table[2 * i].contiguous() for i in range(layers))  # (kv_heads, v, dh) each
    values = tuple(kv_table[2 * i + 1].contiguous() for i in range(layers))
    return VirtualTokens("prefix", v, None, keys, values)


def _same(adapter: Adapter, name: str, key: str, found, expected: int) -> None:
    if found is not None and found != expected:
        raise e.fail(e.CONFIG_MISMATCH, path=str(adapter.folder), key=key, found=found, name=name, expected=expected)


class VirtualTokensModel:
    """A native model (Decoder or EncoderModel) with an adapter's virtual tokens: a NativeModel
    itself (module docstring). The base model is shared, never changed."""

    def __init__(self, base, tokens: VirtualTokens):
        self.base, self.tokens = base, tokens
        self._prompt_cache: tuple | None = None
        self._lock = threading.Lock()

    # the sizes: the base's, less the positions the virtual tokens take
    kind = property(lambda self: self.base.kind)
    heads = property(lambda self: self.base.heads)
    kv_heads = property(lambda self: self.base.kv_heads)
    d_model = property(lambda self: self.base.d_model)
    d_head = property(lambda self: self.base.d_head)
    ffn = property(lambda self: self.base.ffn)
    vocab = property(lambda self: self.base.vocab)
    device = property(lambda self: self.base.device)
    layers = property(lambda self: self.base.layers)
    captures = property(lambda self: getattr(self.base, "captures", ()))

    @property
    def max_positions(self) -> int:
        return self.base.max_positions - self.tokens.count

    @property
    def virtual_tokens(self) -> int:
        """v: the positions before the text's tokens on the key axis."""
        return self.tokens.count

    @property
    def virtual_queries(self) -> bool:
        """True for prompt tuning (the virtual tokens are queries too), False for prefix tuning."""
        return self.tokens.method == "prompt"

    def forward(self, ids: list[int], head_mask=None, key_mask=None, capture=()) -> dict:
        """attentions (layers, heads, n or v + n, v + n), the virtual keys first; logits, hidden
        and hidden_states for the text's n tokens."""
        if self.tokens.method == "prefix":
            return self.base.forward(ids, head_mask, key_mask, capture, cache=self._prefix_cache())
        out = self.base.forward(ids, head_mask, key_mask, capture, virtual=self.tokens.embeddings)
        v = self.tokens.count
        for key in ("logits", "hidden", "final"):
            if key in out:
                out[key] = out[key][v:]  # (n, ...)
        if "hidden_states" in out:
            out["hidden_states"] = out["hidden_states"][:, v:]  # (layers + 1, n, d)
        return out

    def new_cache(self) -> KVCache:
        """The decoder's cache holding the v virtual positions (module docstring)."""
        if self.kind != "decoder":
            return self.base.new_cache()  # an encoder: the base says why not
        if self.tokens.method == "prefix":
            return self._prefix_cache()
        with self._lock:
            if self._prompt_cache is None:
                cache = KVCache()
                with torch.no_grad():
                    self.base.forward([], cache=cache, virtual=self.tokens.embeddings)
                self._prompt_cache = (tuple(cache.keys), tuple(cache.values))
        keys, values = self._prompt_cache
        return KVCache(list(keys), list(values))

    def _prefix_cache(self) -> KVCache:
        return KVCache(list(self.tokens.keys), list(self.tokens.values))

    def step(self, cache: KVCache, token: int, head_mask=None) -> dict:
        """One token at position cache.length (v + the tokens fed so far): the base's step."""
        return self.base.step(cache, token, head_mask)

    def unembed(self, x: torch.Tensor) -> torch.Tensor:
        return self.base.unembed(x)
