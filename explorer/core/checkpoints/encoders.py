"""Native encoders (BERT, RoBERTa, XLM-RoBERTa, DistilBERT, ELECTRA): see native.py.

Each builder reads a `save_pretrained` checkpoint's tensors (AutoModel or a task head's: the
base model's prefix "bert.", "roberta.", "distilbert.", "electra." present or absent; the head
tensors are ignored), checks every shape against config.json and returns an `EncoderModel`: the
Post-LN BERT forward of core/learned/bert.py (same head_mask and key_mask semantics) with what
differs by family:

- BERT: positions 0..n-1, token type 0 added to the embeddings;
- RoBERTa, XLM-RoBERTa: positions as transformers' create_position_ids_from_input_ids (a token
  that is not the padding id counts from padding_idx + 1, a padding token keeps padding_idx), so
  max_position_embeddings - padding_idx - 1 tokens at most;
- DistilBERT: q_lin/k_lin/v_lin/out_lin, sa_layer_norm, ffn.lin1/lin2, output_layer_norm, no
  token types, LayerNorm eps fixed at 1e-12, the activation under "activation"; the position
  table as stored (sinusoidal_pos_embds fills it at init, and save_pretrained writes it);
- ELECTRA: embeddings of embedding_size, projected to hidden_size by embeddings_project when the
  two differ.

The activation is the one transformers' ACT2FN gives the config's name; layer_norm_eps comes from
the config. Weights are kept float32 on the tensors' device (a float16 or bfloat16 checkpoint is
widened once, here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

from ..learned.bert import LAYER_KEYS, self_attention, with_captures
from ..backends.linear import linear
from ..messages import QT_TRANSLATE_NOOP
from .native import CheckpointError

SHAPE_MISMATCH = QT_TRANSLATE_NOOP(
    "core", "{tensor} has shape {found}, but config.json makes it {expected}")
MISSING_TENSOR = QT_TRANSLATE_NOOP("core", "{tensor} is missing from the checkpoint's weights")
NOT_NATIVE_SETTING = QT_TRANSLATE_NOOP("core", "{family}: {setting} {value} is not computed natively")


def _gelu_fast(x):
    return 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)))


def _laplace(x, mu=0.707107, sigma=0.282095):
    return 0.5 * (1.0 + torch.erf((x - mu).div(sigma * math.sqrt(2.0))))


# transformers' ACT2FN names -> the same function (the tanh forms of GELU all compute
# 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))): F.gelu's "tanh" differs from them by rounding only).
ACTIVATIONS: dict[str, Callable] = {
    "gelu": F.gelu,
    "gelu_python": F.gelu,
    "gelu_new": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_python_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_accurate": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_fast": _gelu_fast,
    "gelu_10": lambda x: torch.clip(F.gelu(x), -10.0, 10.0),
    "quick_gelu": lambda x: x * torch.sigmoid(1.702 * x),
    "relu": F.relu,
    "relu2": lambda x: torch.square(F.relu(x)),
    "relu6": F.relu6,
    "leaky_relu": F.leaky_relu,
    "silu": F.silu,
    "swish": F.silu,
    "mish": F.mish,
    "hardswish": F.hardswish,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "laplace": _laplace,
    "linear": lambda x: x,
}


@dataclass
class EncoderModel:
    """A Post-LN encoder meeting native.NativeModel; matrices (out, in) as checkpoints store them."""

    family: str
    word: torch.Tensor                  # (vocab, e) word embeddings (e = embedding width)
    pos: torch.Tensor                   # (max_position_embeddings, e)
    type0: torch.Tensor | None          # (e,) token type 0, None where the family has none
    emb_ln: tuple[torch.Tensor, torch.Tensor]
    project: tuple[torch.Tensor, torch.Tensor] | None  # ELECTRA: (hidden, e) and (hidden,)
    blocks: list[dict[str, torch.Tensor]]               # bert.LAYER_KEYS each
    act: Callable
    eps: float
    heads: int
    ffn: int
    padding_idx: int | None = None      # RoBERTa-style positions: counted from padding_idx + 1
    kind: str = field(default="encoder", init=False)

    @property
    def layers(self) -> int:
        return len(self.blocks)

    @property
    def kv_heads(self) -> int:
        return self.heads

    @property
    def d_model(self) -> int:
        return self.blocks[0]["o_w"].shape[0]

    @property
    def d_head(self) -> int:
        return self.d_model // self.heads

    @property
    def vocab(self) -> int:
        return self.word.shape[0]

    @property
    def max_positions(self) -> int:
        table = self.pos.shape[0]
        return table if self.padding_idx is None else table - self.padding_idx - 1

    @property
    def device(self) -> torch.device:
        return self.word.device

    def position_ids(self, ids: torch.Tensor, virtual: int = 0) -> torch.Tensor:
        """(virtual + n,) positions of `virtual` prompt-tuning tokens and the tokens `ids` (n,), as
        transformers computes them for the family (a virtual token is never padding)."""
        if self.padding_idx is None:
            return torch.arange(virtual + ids.shape[0], device=ids.device)
        real = ids.ne(self.padding_idx).long()  # (n,)
        real = torch.cat([torch.ones(virtual, dtype=torch.long, device=ids.device), real])  # (virtual + n,)
        return torch.cumsum(real, dim=0) * real + self.padding_idx

    def embed(self, ids: list[int], virtual: torch.Tensor | None = None) -> torch.Tensor:
        """(n, d_model): word + position (+ token type 0) embeddings, LayerNorm, projection;
        `virtual` (v, e) prompt-tuning embeddings go before the words' (then (v + n, d_model))."""
        v = 0 if virtual is None else virtual.shape[0]
        n = v + len(ids)
        if n > self.max_positions:
            raise ValueError(f"{n} tokens; this {self.family} model accepts at most {self.max_positions}")
        t = torch.as_tensor(ids, dtype=torch.long, device=self.device)  # (n - v,)
        words = self.word[t] if virtual is None else torch.cat([virtual.to(self.word), self.word[t]])  # (n, e)
        x = words + self.pos[self.position_ids(t, v)]  # (n, e)
        if self.type0 is not None:
            x = x + self.type0
        x = F.layer_norm(x, (x.shape[-1],), *self.emb_ln, self.eps)
        if self.project is not None:
            x = linear(x, *self.project)  # (n, d_model)
        return x

    captures = ("values", "hidden_states")  # what forward(capture=...) can add (native.py)

    def forward(self, ids: list[int], head_mask=None, key_mask=None, capture=(),
                virtual: torch.Tensor | None = None) -> dict:
        """attentions (layers, heads, n, n) float32 and hidden (n, d_model), the last layer's
        output. head_mask (layers, heads) 0/1: a 0 head's weights are multiplied by 0 before they
        mix the values (the maps returned are unmasked); key_mask (n,) bool, False = padding key;
        `capture` adds values + w_o and/or hidden_states (native.py). `virtual` (v, e): prompt
        tuning's embeddings before the tokens (core/adapters/virtual.py): every output v + n long."""
        dev = self.device
        mask = None if head_mask is None else torch.as_tensor(head_mask, dtype=torch.float32, device=dev)
        keys = None if key_mask is None else torch.as_tensor(key_mask, dtype=torch.bool, device=dev)
        if keys is not None and virtual is not None:  # a virtual token is never padding
            keys = torch.cat([torch.ones(virtual.shape[0], dtype=torch.bool, device=dev), keys])
        x = self.embed(ids, virtual)
        d = x.shape[-1]
        attentions, values, states = [], [], [x]
        for i, p in enumerate(self.blocks):
            attn_out, weights, v = self_attention(x, p, self.heads, None if mask is None else mask[i], keys)
            x = F.layer_norm(x + attn_out, (d,), p["ln1_w"], p["ln1_b"], self.eps)
            inner = self.act(linear(x, p["fi_w"], p["fi_b"]))  # (n, ffn)
            x = F.layer_norm(x + linear(inner, p["fo_w"], p["fo_b"]), (d,), p["ln2_w"], p["ln2_b"], self.eps)
            attentions.append(weights)
            values.append(v)
            states.append(x)
        out = {"attentions": torch.stack(attentions).float(), "hidden": x.float()}
        return with_captures(out, capture, values, [p["o_w"] for p in self.blocks], states)

    def new_cache(self):
        raise NotImplementedError("an encoder has no KV cache")

    def step(self, cache, token: int, head_mask=None) -> dict:
        raise NotImplementedError("an encoder is not stepped token by token")


class _Tensors:
    """The checkpoint's tensors under the base model's prefix, checked against expected shapes."""

    PREFIXES = ("bert.", "roberta.", "xlm_roberta.", "distilbert.", "electra.", "model.", "")

    def __init__(self, tensors: dict, anchor: str):
        self.tensors = tensors
        found = [name[:-len(anchor)] for name in tensors if name.endswith(anchor)
                 and (name == anchor or name[:-len(anchor)].endswith("."))]
        known = [p for p in self.PREFIXES if p in found]
        self.prefix = known[0] if known else (min(found, key=len) if found else "")

    def has(self, name: str) -> bool:
        return self._key(name) is not None

    def _key(self, name: str) -> str | None:
        for candidate in (name, _legacy(name)):
            if candidate and self.prefix + candidate in self.tensors:
                return self.prefix + candidate
        return None

    def get(self, name: str, shape: tuple[int, ...]) -> torch.Tensor:
        key = self._key(name)
        if key is None:
            raise CheckpointError.of(MISSING_TENSOR, tensor=self.prefix + name)
        t = self.tensors[key]
        if tuple(t.shape) != tuple(shape):
            raise CheckpointError.of(SHAPE_MISMATCH, tensor=key, found=_shape(t.shape), expected=_shape(shape))
        return t.detach().to(dtype=torch.float32).contiguous()


def _legacy(name: str) -> str | None:
    """The TF-era LayerNorm names (gamma, beta) transformers still accepts on load."""
    if name.endswith("LayerNorm.weight"):
        return name[:-len("weight")] + "gamma"
    if name.endswith("LayerNorm.bias"):
        return name[:-len("bias")] + "beta"
    return None


def _shape(shape) -> str:
    return str(tuple(int(s) for s in shape))


def _activation(family: str, name) -> Callable:
    act = ACTIVATIONS.get(str(name))
    if act is None:
        raise CheckpointError.of(NOT_NATIVE_SETTING, family=family, setting="activation", value=str(name))
    return act


def _heads(family: str, d: int, heads: int) -> int:
    if heads <= 0 or d % heads:
        raise CheckpointError.of(NOT_NATIVE_SETTING, family=family, setting="hidden size / attention heads",
                                 value=f"{d} / {heads}")
    return heads


def _bert_like(family: str, config: dict, tensors: dict, *, padding_positions: bool,
               defaults: dict) -> EncoderModel:
    """BERT, RoBERTa, XLM-RoBERTa, ELECTRA: the same layer names, embeddings that differ."""
    c = {**defaults, **{k: v for k, v in config.items() if v is not None}}
    position_type = c.get("position_embedding_type", "absolute")
    if position_type not in (None, "absolute"):
        raise CheckpointError.of(NOT_NATIVE_SETTING, family=family, setting="position_embedding_type",
                                 value=str(position_type))
    d, layers = int(c["hidden_size"]), int(c["num_hidden_layers"])
    heads = _heads(family, d, int(c["num_attention_heads"]))
    ffn, vocab, table = int(c["intermediate_size"]), int(c["vocab_size"]), int(c["max_position_embeddings"])
    e = int(c["embedding_size"]) if family == "electra" else d  # ELECTRA's embedding width
    pad = int(c["pad_token_id"]) if c.get("pad_token_id") is not None else 0
    t = _Tensors(tensors, "embeddings.word_embeddings.weight")
    word = t.get("embeddings.word_embeddings.weight", (vocab, e))
    pos = t.get("embeddings.position_embeddings.weight", (table, e))
    types = int(c.get("type_vocab_size") or 0)
    type0 = (t.get("embeddings.token_type_embeddings.weight", (types, e))[0]
             if types > 0 and t.has("embeddings.token_type_embeddings.weight") else None)
    emb_ln = (t.get("embeddings.LayerNorm.weight", (e,)), t.get("embeddings.LayerNorm.bias", (e,)))
    project = None
    if e != d:  # as transformers: a projection only where the widths differ
        project = (t.get("embeddings_project.weight", (d, e)), t.get("embeddings_project.bias", (d,)))
    names = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "o": "attention.output.dense", "ln1": "attention.output.LayerNorm",
             "fi": "intermediate.dense", "fo": "output.dense", "ln2": "output.LayerNorm"}
    shapes = {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "ln1": None,
              "fi": (ffn, d), "fo": (d, ffn), "ln2": None}
    blocks = [_block(t, f"encoder.layer.{i}.", names, shapes, d) for i in range(layers)]
    if padding_positions and table < pad + 2:
        raise CheckpointError.of(SHAPE_MISMATCH, tensor=t.prefix + "embeddings.position_embeddings.weight",
                                 found=_shape(pos.shape), expected=f"(at least {pad + 2}, {e})")
    return EncoderModel(family=family, word=word, pos=pos, type0=type0, emb_ln=emb_ln, project=project,
                        blocks=blocks, act=_activation(family, c.get("hidden_act", "gelu")),
                        eps=float(c.get("layer_norm_eps", 1e-12)), heads=heads, ffn=ffn,
                        padding_idx=pad if padding_positions else None)


def _block(t: _Tensors, base: str, names: dict, shapes: dict, d: int) -> dict:
    """One layer's bert.LAYER_KEYS from the checkpoint's names (names[k] + .weight / .bias)."""
    p = {}
    for key in ("q", "k", "v", "o", "ln1", "fi", "fo", "ln2"):
        w_shape = shapes[key] or (d,)
        p[f"{key}_w"] = t.get(f"{base}{names[key]}.weight", w_shape)
        p[f"{key}_b"] = t.get(f"{base}{names[key]}.bias", (w_shape[0],))
    assert set(p) == set(LAYER_KEYS)
    return p


# transformers' configuration defaults, for config.json files that leave a key out
_BERT_DEFAULTS = {"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                  "intermediate_size": 3072, "hidden_act": "gelu", "max_position_embeddings": 512,
                  "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0}
_ROBERTA_DEFAULTS = {**_BERT_DEFAULTS, "pad_token_id": 1}
_ELECTRA_DEFAULTS = {**_BERT_DEFAULTS, "embedding_size": 128, "hidden_size": 256, "num_attention_heads": 4,
                     "intermediate_size": 1024}


def build_bert(config: dict, tensors: dict) -> EncoderModel:
    return _bert_like("bert", config, tensors, padding_positions=False, defaults=_BERT_DEFAULTS)


def build_roberta(config: dict, tensors: dict) -> EncoderModel:
    return _bert_like("roberta", config, tensors, padding_positions=True, defaults=_ROBERTA_DEFAULTS)


def build_xlm_roberta(config: dict, tensors: dict) -> EncoderModel:
    return _bert_like("xlm-roberta", config, tensors, padding_positions=True, defaults=_ROBERTA_DEFAULTS)


def build_electra(config: dict, tensors: dict) -> EncoderModel:
    return _bert_like("electra", config, tensors, padding_positions=False, defaults=_ELECTRA_DEFAULTS)


_DISTILBERT_DEFAULTS = {"vocab_size": 30522, "max_position_embeddings": 512, "n_layers": 6, "n_heads": 12,
                        "dim": 768, "hidden_dim": 3072, "activation": "gelu"}


def build_distilbert(config: dict, tensors: dict) -> EncoderModel:
    c = {**_DISTILBERT_DEFAULTS, **{k: v for k, v in config.items() if v is not None}}
    d, layers = int(c["dim"]), int(c["n_layers"])
    heads = _heads("distilbert", d, int(c["n_heads"]))
    ffn, vocab, table = int(c["hidden_dim"]), int(c["vocab_size"]), int(c["max_position_embeddings"])
    t = _Tensors(tensors, "embeddings.word_embeddings.weight")
    word = t.get("embeddings.word_embeddings.weight", (vocab, d))
    pos = t.get("embeddings.position_embeddings.weight", (table, d))
    emb_ln = (t.get("embeddings.LayerNorm.weight", (d,)), t.get("embeddings.LayerNorm.bias", (d,)))
    names = {"q": "attention.q_lin", "k": "attention.k_lin", "v": "attention.v_lin", "o": "attention.out_lin",
             "ln1": "sa_layer_norm", "fi": "ffn.lin1", "fo": "ffn.lin2", "ln2": "output_layer_norm"}
    shapes = {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "ln1": None,
              "fi": (ffn, d), "fo": (d, ffn), "ln2": None}
    blocks = [_block(t, f"transformer.layer.{i}.", names, shapes, d) for i in range(layers)]
    return EncoderModel(family="distilbert", word=word, pos=pos, type0=None, emb_ln=emb_ln, project=None,
                        blocks=blocks, act=_activation("distilbert", c["activation"]), eps=1e-12,
                        heads=heads, ffn=ffn)


BUILDERS = {"bert": build_bert, "roberta": build_roberta, "xlm-roberta": build_xlm_roberta,
            "distilbert": build_distilbert, "electra": build_electra}
