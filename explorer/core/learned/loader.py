"""Load a pretrained model's weights and tokenizer onto a device, once (cached per name and device).

Readers: safetensors (MiniLM), the E5S1 reader (e5), the GGUF reader (SmolLM2). None unpickles
and none touches the network. torch is imported here, so this module is imported lazily.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from ..backends import resolve_torch_device
from . import bert, llama
from .registry import ModelSpec, get_spec, weights_path
from .tokenization import ByteBPETokenizer, UnigramTokenizer, WordPieceTokenizer

_LOCK = threading.Lock()  # one load at a time: a second caller waits and then gets the cached model


@dataclass
class LoadedModel:
    spec: ModelSpec
    tokenizer: object          # Tokenizer: text -> Tokens
    weights: object            # bert.BertWeights or llama.LlamaWeights
    device: torch.device

    @property
    def is_decoder(self) -> bool:
        return self.spec.kind == "decoder"


def load_model(name: str, device: str = "cpu") -> LoadedModel:
    """The model on `device` ("cpu", "cuda", "cuda:N"); loaded on first use, then cached."""
    spec = get_spec(name)
    dev = resolve_torch_device(device)
    with _LOCK:
        return _load(spec.name, str(dev))


@lru_cache(maxsize=None)
def _load(name: str, device: str) -> LoadedModel:
    spec, dev = get_spec(name), torch.device(device)
    path = weights_path(spec)
    builder = {"minilm-l6": _minilm, "e5-small": _e5, "smollm2-135m": _smollm2}[name]
    tokenizer, weights = builder(path, dev)
    return LoadedModel(spec, tokenizer, weights, dev)


def _tensor(array: np.ndarray, dev: torch.device) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(dev)


def _minilm(path, dev):
    from safetensors.numpy import load_file
    t = {k: _tensor(v, dev) for k, v in load_file(str(path)).items() if v.dtype == np.float32}
    config = json.loads((path.parent / "config.json").read_text())
    word = t["embeddings.word_embeddings.weight"]  # (vocab, d)

    def layer(i: int) -> dict:
        pre = f"encoder.layer.{i}."
        names = ("attention.self.query.", "attention.self.key.", "attention.self.value.",
                 "attention.output.dense.", "attention.output.LayerNorm.", "intermediate.dense.",
                 "output.dense.", "output.LayerNorm.")
        return {key: t[pre + names[j // 2] + ("weight" if j % 2 == 0 else "bias")]
                for j, key in enumerate(bert.LAYER_KEYS)}

    weights = bert.BertWeights(
        embed=lambda ids: word[torch.as_tensor(ids, device=dev)],
        pos=t["embeddings.position_embeddings.weight"],
        type0=t["embeddings.token_type_embeddings.weight"][0],
        ln_w=t["embeddings.LayerNorm.weight"], ln_b=t["embeddings.LayerNorm.bias"],
        layers=[layer(i) for i in range(config["num_hidden_layers"])],
        heads=config["num_attention_heads"], eps=config["layer_norm_eps"])
    return WordPieceTokenizer(str(path.parent / "tokenizer.json")), weights


def _e5(path, dev):
    from .e5s1 import E5S1File
    f = E5S1File(path)
    h = f.header
    names = ("q.w", "q.b", "k.w", "k.b", "v.w", "v.b", "ao.w", "ao.b", "aln.w", "aln.b",
             "fi.w", "fi.b", "fo.w", "fo.b", "oln.w", "oln.b")
    shapes = {"q.w": (h.hidden, h.hidden), "k.w": (h.hidden, h.hidden), "v.w": (h.hidden, h.hidden),
              "ao.w": (h.hidden, h.hidden), "fi.w": (h.ffn, h.hidden), "fo.w": (h.hidden, h.ffn)}

    def layer(i: int) -> dict:
        return {key: _tensor(f.tensor(f"l{i}.{n}").reshape(shapes.get(n, (-1,))), dev)
                for key, n in zip(bert.LAYER_KEYS, names)}

    def embed(ids) -> torch.Tensor:  # the 250k × 384 table stays 4-bit; only the rows used are dequantised
        return _tensor(f.rows("emb.word", ids, h.hidden), dev)

    weights = bert.BertWeights(
        embed=embed, pos=_tensor(f.tensor("emb.pos").reshape(h.max_positions, h.hidden), dev),
        type0=_tensor(f.tensor("emb.type").reshape(h.type_vocab, h.hidden)[0], dev),
        ln_w=_tensor(f.tensor("emb.ln.w"), dev), ln_b=_tensor(f.tensor("emb.ln.b"), dev),
        layers=[layer(i) for i in range(h.layers)], heads=h.heads, eps=h.eps)
    return UnigramTokenizer(f.vocab), weights


def _smollm2(path, dev):
    from .gguf import GGUFFile
    f = GGUFFile(path)
    meta = f.metadata
    names = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate",
             "ffn_up", "ffn_down")
    layers = [{key: _tensor(f.tensor(f"blk.{i}.{n}.weight"), dev)
               for key, n in zip(llama.LAYER_KEYS, names)}
              for i in range(int(meta["llama.block_count"]))]
    embed = _tensor(f.tensor("token_embd.weight"), dev)  # (vocab, d)
    output = _tensor(f.tensor("output.weight"), dev) if "output.weight" in f.tensors else embed
    weights = llama.LlamaWeights(
        embed=embed, layers=layers, out_norm=_tensor(f.tensor("output_norm.weight"), dev),
        output=output, heads=int(meta["llama.attention.head_count"]),
        kv_heads=int(meta["llama.attention.head_count_kv"]),
        rope_theta=float(meta["llama.rope.freq_base"]),
        eps=float(meta["llama.attention.layer_norm_rms_epsilon"]))
    tokenizer = ByteBPETokenizer(list(meta["tokenizer.ggml.tokens"]), list(meta["tokenizer.ggml.merges"]))
    return tokenizer, weights
