"""Which checkpoint tensors a LoRA or IA³ adapter changes, and how: a plan checked against the
checkpoint's header before any weight is read.

    plan = plan_edits(adapter, shapes, name="tiny-llama", model_type="llama", tied=False)
    plan.edits   # Edit per adapted module (and per whole tensor the adapter saved: biases, modules_to_save)

peft saves `base_model.model.<module key>.lora_A.weight` (r, in), `.lora_B.weight` (out, r),
`.lora_B.bias` (out,) with lora_bias, `.ia3_l` ((out, 1), or (1, in) for a feed-forward module),
and whole tensors `base_model.model.<tensor name>` (bias="all"/"lora_only": the trained biases;
modules_to_save: the trained modules). The module key is the module's path in the model peft
wrapped: a checkpoint saved from another class carries another base-model prefix ("model.",
"bert.", "transformer.") or none, so a key finds its tensor with the prefix present or absent,
and must find exactly one (`_Names.find`). Every tensor must find its target and fit its shape,
else one AdapterError line ("adapter for another base: ..."). GPT-2's Conv1D modules store their
weight (in, out): peft sets fan_in_fan_out from the module type, and so does the plan.
Qt-free, torch-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import errors as e
from .adapter_files import Adapter, shape_text
from .patterns import feedforward, pattern_key, targets

PEFT_PREFIX = "base_model.model."
ADAPTER_PARTS = ("lora_A.weight", "lora_B.weight", "lora_B.bias", "ia3_l")
REFUSED_PARTS = ("lora_embedding_A", "lora_embedding_B", "lora_magnitude_vector")
CONV1D = {"gpt2": ("c_attn", "c_proj", "c_fc")}      # modules stored (in, out), by family
HEADS = ("classifier", "score", "qa_outputs")         # task heads no native forward computes (nor "pooler")
EMBEDDINGS = ("embed_tokens.weight", "wte.weight", "word_embeddings.weight", "lm_head.weight")


@dataclass(frozen=True)
class Edit:
    """One change to the checkpoint's tensors (merge.apply_plan does it)."""

    kind: str                   # "lora", "ia3" or "replace"
    module: str                 # the adapter's module key (replace: the saved tensor's name)
    target: str                 # the checkpoint tensor changed (a module's weight; replace: any)
    bias: str | None            # the module's bias in the checkpoint, if it has one
    conv1d: bool                # the weight is stored (in, out)
    sources: tuple[str, ...]    # adapter tensors: lora (A, B) or (A, B, B's bias); ia3 (vector,); replace (tensor,)
    scale: float = 1.0          # lora: α / r (rsLoRA: α / √r), the module's own r and α
    rank: int = 0               # lora: the module's r
    feedforward: bool = False   # ia3: the vector scales the input columns, not the output rows


@dataclass(frozen=True)
class Plan:
    edits: tuple[Edit, ...]
    ignored: tuple[str, ...]    # adapter tensors of parts the model does not have and never computes
                                # (a task head of modules_to_save, BERT's pooler)

    @property
    def modules(self) -> tuple[str, ...]:
        return tuple(ed.module for ed in self.edits if ed.kind != "replace")


def plan_edits(adapter: Adapter, shapes: dict, name: str, model_type: str, tied: bool) -> Plan:
    """The checked plan of a LoRA or IA³ adapter on a checkpoint whose tensors have `shapes`
    (name -> shape tuple). AdapterError (one line) for a tensor that finds no target or does not fit."""
    p = _Planner(adapter, shapes, name, model_type, tied)
    modules: dict[str, dict[str, str]] = {}
    whole: list[tuple[str, str]] = []
    for tensor in adapter.tensors:
        key = tensor[len(PEFT_PREFIX):] if tensor.startswith(PEFT_PREFIX) else tensor
        part = next((s for s in (*ADAPTER_PARTS, *REFUSED_PARTS) if key.endswith("." + s)), None)
        if part in REFUSED_PARTS:
            module = key[:-len(part) - 1]
            if part.startswith("lora_embedding"):
                raise e.fail(e.EMBEDDING_LORA, path=p.path, module=module)
            raise p.stray(tensor)
        if part is None:  # a wrapped module's own tensor is saved under .base_layer.
            whole.append((tensor, key.replace(".base_layer.", ".")))
        else:
            modules.setdefault(key[:-len(part) - 1], {})[part] = tensor
    edits, ignored = [], []
    for module, parts in modules.items():
        edit = p.lora(module, parts) if adapter.method == "lora" else p.ia3(module, parts)
        if edit is None:
            ignored.extend(parts.values())
        else:
            edits.append(edit)
    if not edits:
        raise e.fail(e.EMPTY, ("method",), path=p.path, method=e.METHOD_NAMES[adapter.method])
    replaced = []
    for tensor, key in whole:
        edit = p.replace(tensor, key)
        if edit is None:
            ignored.append(tensor)
        else:
            replaced.append(edit)
    # the saved tensors first: LoRA's and IA³'s changes apply on top of the trained biases
    return Plan(tuple(replaced + edits), tuple(ignored))


class _Names:
    """The checkpoint's tensor names, found by a name with its base-model prefix present or absent."""

    def __init__(self, shapes: dict):
        self.shapes = shapes

    def find(self, wanted: str) -> list[str]:
        if wanted in self.shapes:
            return [wanted]
        return [n for n in self.shapes if n.endswith("." + wanted) or wanted.endswith("." + n)]


class _Planner:
    def __init__(self, adapter: Adapter, shapes: dict, name: str, model_type: str, tied: bool):
        self.adapter, self.settings = adapter, adapter.settings
        self.names, self.name, self.model_type, self.tied = _Names(shapes), name, model_type, tied
        self.path = str(adapter.folder)

    # -- finding things
    def stray(self, tensor: str) -> e.AdapterError:
        return e.fail(e.STRAY_TENSOR, ("method",), path=self.path, tensor=tensor,
                      method=e.METHOD_NAMES[self.adapter.method])

    def target(self, wanted: str, module: str) -> str | None:
        found = self.names.find(wanted)
        if len(found) > 1:
            raise e.fail(e.AMBIGUOUS, path=self.path, module=module, first=found[0], second=found[1],
                         name=self.name)
        return found[0] if found else None

    def module_weight(self, module: str, tensor: str) -> tuple[str, tuple[int, int], bool, str | None] | None:
        """(checkpoint weight, (out, in), stored (in, out), checkpoint bias or None) of a module;
        None for a head's module the model does not have (nothing it computes depends on it)."""
        if not targets(self.settings, module):
            raise e.fail(e.NOT_TARGETED, path=self.path, tensor=tensor)
        weight = self.target(module + ".weight", module)
        if weight is None and _is_head(module):
            return None
        if weight is None:
            raise e.fail(e.ANOTHER_BASE, path=self.path, name=self.name, module=module)
        shape = tuple(self.names.shapes[weight])
        if len(shape) != 2:
            raise e.fail(e.ANOTHER_SHAPE, path=self.path, tensor=tensor, found=shape_text(
                self.adapter.tensors[tensor].shape), name=self.name, target=weight, expected="a matrix")
        conv1d = module.rsplit(".", 1)[-1] in CONV1D.get(self.model_type, ())
        out_in = (shape[1], shape[0]) if conv1d else shape
        bias = weight[:-len("weight")] + "bias"
        return weight, out_in, conv1d, bias if bias in self.names.shapes else None

    def fit(self, tensor: str, expected: tuple, target: str) -> None:
        found = tuple(self.adapter.tensors[tensor].shape)
        if found != tuple(expected):
            raise e.fail(e.ANOTHER_SHAPE, path=self.path, tensor=tensor, found=shape_text(found), name=self.name,
                         target=target, expected=shape_text(expected))

    # -- the three kinds of edit
    def lora(self, module: str, parts: dict) -> Edit:
        for have, missing in (("lora_A.weight", "lora_B.weight"), ("lora_B.weight", "lora_A.weight")):
            if have in parts and missing not in parts:
                raise e.fail(e.UNPAIRED, path=self.path, module=module, found=have, missing=missing)
        if "ia3_l" in parts:
            raise self.stray(parts["ia3_l"])
        a, b = parts["lora_A.weight"], parts["lora_B.weight"]
        found = self.module_weight(module, a)
        if found is None:
            return None
        weight, (out, inp), conv1d, bias = found
        s = self.settings
        r = s.rank_pattern.get(pattern_key(s.rank_pattern, module), s.r)
        alpha = float(s.alpha_pattern.get(pattern_key(s.alpha_pattern, module), s.alpha))
        rank = self.adapter.tensors[a].shape[0] if self.adapter.tensors[a].shape else 0
        if rank != r:
            raise e.fail(e.WRONG_RANK, path=self.path, tensor=a, found=rank, module=module, expected=r)
        self.fit(a, (r, inp), weight)
        self.fit(b, (out, r), weight)
        sources = (a, b)
        if "lora_B.bias" in parts:
            if bias is None:
                raise e.fail(e.NO_BIAS, path=self.path, tensor=parts["lora_B.bias"], module=module, name=self.name)
            self.fit(parts["lora_B.bias"], (out,), bias)
            sources = (a, b, parts["lora_B.bias"])
        scale = alpha / math.sqrt(r) if s.use_rslora else alpha / r
        return Edit("lora", module, weight, bias, conv1d, sources, scale=scale, rank=r)

    def ia3(self, module: str, parts: dict) -> Edit:
        if set(parts) != {"ia3_l"}:
            raise self.stray(next(t for p, t in parts.items() if p != "ia3_l"))
        vector = parts["ia3_l"]
        found = self.module_weight(module, vector)
        if found is None:
            return None
        weight, (out, inp), conv1d, bias = found
        ff = feedforward(self.settings, module)
        self.fit(vector, (1, inp) if ff else (out, 1), weight)
        return Edit("ia3", module, weight, bias, conv1d, (vector,), feedforward=ff)

    def replace(self, tensor: str, key: str) -> Edit | None:
        """A whole tensor the adapter saved (a trained bias, a module of modules_to_save), or None
        for a task head's tensor the model does not compute (a classifier)."""
        saved = [m for m in self.settings.modules_to_save if f".{m}." in f".{key}"]
        is_bias = key.endswith(".bias") and getattr(self.settings, "bias", "none") != "none"
        if not saved and not is_bias:
            raise self.stray(tensor)
        target = self.target(key, key)
        if target is None:
            if (saved and all(m in HEADS for m in saved)) or _is_head(key):
                return None
            raise e.fail(e.ANOTHER_BASE, path=self.path, name=self.name, module=key)
        if saved and self.tied and target.endswith(EMBEDDINGS):
            raise e.fail(e.UNSUPPORTED_OPTION, ("why",), path=self.path, key="modules_to_save",
                         value=repr(saved[0]), why=e.WHY_TIED)
        self.fit(tensor, tuple(self.names.shapes[target]), target)
        return Edit("replace", key, target, None, False, (tensor,))


def tied(config: dict) -> bool:
    """Whether a checkpoint's output layer is its input embedding (transformers' defaults)."""
    return bool(config.get("tie_word_embeddings", config.get("model_type") in ("gpt2", "gemma2")))


def _is_head(name: str) -> bool:
    """A module or tensor of a part no native forward computes (a task head, BERT's pooler)."""
    return any(f".{head}." in f".{name}." for head in (*HEADS, "pooler"))
