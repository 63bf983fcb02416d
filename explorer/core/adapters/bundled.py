"""LoRA and IA³ on the bundled models (core.learned: MiniLM and e5 as BertWeights, SmolLM2 as
LlamaWeights), merged the same way as on a checkpoint.

    model = adapt_bundled("smollm2-135m", adapter, "cpu")   # an adapters.load.AdaptedModel

The bundled weights are named as the Hugging Face model they came from (`hf_tensors`: BERT's
"encoder.layer.{i}.attention.self.query.weight", ..., Llama's "model.layers.{i}.self_attn.q_proj.weight",
...), so an adapter peft made on that model (sentence-transformers/all-MiniLM-L6-v2,
HuggingFaceTB/SmolLM2-135M-Instruct, intfloat/multilingual-e5-small) finds its modules by the
same rules as on a checkpoint (targets.plan_edits), and the merged tensors go back into a copy of
the weights. SmolLM2's q and k come from GGUF, where llama.cpp permuted their rows (pairs
interleaved per head, core/learned/llama.py): they are un-permuted to Hugging Face's order before
the merge and permuted back after, exact row moves, so the adapter's update lands on the rows it
was trained for. The embeddings are not editable here (e5 keeps its table 4-bit); prefix and
prompt tuning need the checkpoint's own forward and are refused for bundled models.
"""

from __future__ import annotations

import dataclasses

import torch

from ..learned import bert, llama
from ..learned.loader import load_model
from . import errors as e
from .adapted import AdaptedModel
from .adapter_files import Adapter, read_tensors
from .info import adapter_info
from .merge import apply_plan
from .targets import plan_edits

_BERT = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
         "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm")
_LLAMA = {"attn_norm": "input_layernorm", "q": "self_attn.q_proj", "k": "self_attn.k_proj",
          "v": "self_attn.v_proj", "o": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
          "gate": "mlp.gate_proj", "up": "mlp.up_proj", "down": "mlp.down_proj"}


def unpermute(w: torch.Tensor, heads: int) -> torch.Tensor:
    """llama.cpp's q/k row order (pairs interleaved per head) -> Hugging Face's (halves)."""
    out = w.shape[0]
    return w.reshape(heads, out // heads // 2, 2, *w.shape[1:]).transpose(1, 2).reshape(w.shape)


def permute(w: torch.Tensor, heads: int) -> torch.Tensor:
    """Hugging Face's q/k row order -> llama.cpp's (convert_hf_to_gguf.permute)."""
    out = w.shape[0]
    return w.reshape(heads, 2, out // heads // 2, *w.shape[1:]).transpose(1, 2).reshape(w.shape)


def hf_tensors(weights) -> dict:
    """The bundled model's editable tensors under their Hugging Face names (q/k un-permuted)."""
    if isinstance(weights, bert.BertWeights):
        out = {"embeddings.position_embeddings.weight": weights.pos,
               "embeddings.LayerNorm.weight": weights.ln_w, "embeddings.LayerNorm.bias": weights.ln_b}
        for i, p in enumerate(weights.layers):
            for j, key in enumerate(bert.LAYER_KEYS):
                out[f"encoder.layer.{i}.{_BERT[j // 2]}.{'weight' if j % 2 == 0 else 'bias'}"] = p[key]
        return out
    out = {"model.norm.weight": weights.out_norm}
    for i, p in enumerate(weights.layers):
        for key, name in _LLAMA.items():
            t = p[key]
            if key in ("q", "k"):
                t = unpermute(t, weights.heads if key == "q" else weights.kv_heads)
            out[f"model.layers.{i}.{name}.weight"] = t
    return out


def with_tensors(weights, tensors: dict):
    """A copy of the bundled `weights` holding `tensors` (hf_tensors' names); unchanged ones shared."""
    if isinstance(weights, bert.BertWeights):
        layers = [{key: tensors[f"encoder.layer.{i}.{_BERT[j // 2]}.{'weight' if j % 2 == 0 else 'bias'}"]
                   for j, key in enumerate(bert.LAYER_KEYS)} for i in range(len(weights.layers))]
        return dataclasses.replace(weights, layers=layers, pos=tensors["embeddings.position_embeddings.weight"],
                                   ln_w=tensors["embeddings.LayerNorm.weight"], ln_b=tensors["embeddings.LayerNorm.bias"])
    layers = []
    for i in range(len(weights.layers)):
        p = {}
        for key, name in _LLAMA.items():
            t = tensors[f"model.layers.{i}.{name}.weight"]
            p[key] = permute(t, weights.heads if key == "q" else weights.kv_heads) if key in ("q", "k") else t
        layers.append(p)
    return dataclasses.replace(weights, layers=layers, out_norm=tensors["model.norm.weight"])


def adapt_bundled(name: str, adapter: Adapter, device: str):
    """The bundled model `name` with a LoRA or IA³ adapter merged (a new copy; the bundled model's
    own cached weights are not changed)."""
    if adapter.method not in ("lora", "ia3"):
        raise e.fail(e.NOT_ON_BUNDLED, ("method",), path=str(adapter.folder), method=e.METHOD_NAMES[adapter.method],
                     name=name)
    base = load_model(name, device)
    named = hf_tensors(base.weights)
    family = "bert" if isinstance(base.weights, bert.BertWeights) else "llama"
    plan = plan_edits(adapter, {k: tuple(t.shape) for k, t in named.items()}, name, family, tied=False)
    merged = apply_plan(plan, named, read_tensors(adapter))
    changed = {k: t for k, t in merged.items() if t is not named[k]}
    weights = with_tensors(base.weights, {**named, **changed})
    if isinstance(weights, llama.LlamaWeights):  # untouched q/k: the bundled tensors themselves
        for i, p in enumerate(weights.layers):
            for key in ("q", "k"):
                if f"model.layers.{i}.{_LLAMA[key]}.weight" not in changed:
                    p[key] = base.weights.layers[i][key]
    return AdaptedModel.of(base.spec, base.tokenizer, weights, base.device, adapter_info(adapter, plan))
