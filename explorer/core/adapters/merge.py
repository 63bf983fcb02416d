"""LoRA and IA³ merged into a checkpoint's tensors (name -> torch.Tensor), before the family
builder reads them: the adapted model is then the family's own forward, unchanged.

    tensors = apply_plan(plan, tensors, adapter_tensors)   # a new dict; the given one is not changed

- LoRA: W += scale · B·A, scale = α / r (rsLoRA α / √r), the module's own r and α (peft's merge,
  lora/layer.py Linear.get_delta_weight); a Conv1D weight (in, out) gets the update transposed
  (fan_in_fan_out); lora_bias: b += scale · B's bias.
- IA³ (ia3/layer.py Linear.merge): a vector (out, 1) scales the module's output rows, its bias
  too (peft scales the module's output, bias included); a feed-forward vector (1, in) scales the
  input columns (the bias is added after, unscaled).
- A whole saved tensor (a trained bias, a modules_to_save module) replaces the checkpoint's.

Merged weights are computed in float32 on the tensors' device; a changed tensor is a new tensor,
so the dict given (and any model that shares its tensors) stays as it was.
"""

from __future__ import annotations

import torch

from .targets import Edit, Plan


def apply_plan(plan: Plan, tensors: dict, adapter_tensors: dict) -> dict:
    """A copy of `tensors` with every edit of `plan` applied (targets.plan_edits checked the shapes)."""
    out = dict(tensors)
    for edit in plan.edits:
        sources = [adapter_tensors[name] for name in edit.sources]
        if edit.kind == "lora":
            _lora(out, edit, *sources)
        elif edit.kind == "ia3":
            _ia3(out, edit, sources[0])
        else:
            out[edit.target] = sources[0].to(device=out[edit.target].device, dtype=torch.float32)
    return out


def _on(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return t.to(device=like.device, dtype=torch.float32)


def lora_delta(a: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    """scale · B·A: (out, r) @ (r, in) -> (out, in)."""
    return (b @ a) * scale


def _lora(out: dict, edit: Edit, a, b, b_bias=None) -> None:
    weight = out[edit.target].to(torch.float32)
    delta = lora_delta(_on(a, weight), _on(b, weight), edit.scale)  # (out, in)
    out[edit.target] = weight + (delta.t() if edit.conv1d else delta)
    if b_bias is not None:
        bias = out[edit.bias].to(torch.float32)
        out[edit.bias] = bias + _on(b_bias, bias) * edit.scale  # (out,)


def _ia3(out: dict, edit: Edit, vector) -> None:
    weight = out[edit.target].to(torch.float32)
    v = _on(vector, weight)  # (out, 1) or (1, in)
    if edit.feedforward:
        scale = v.reshape(1, -1)  # (1, in): the input columns of an (out, in) weight
    else:
        scale = v.reshape(-1, 1)  # (out, 1): the output rows
        if edit.bias is not None:
            bias = out[edit.bias].to(torch.float32)
            out[edit.bias] = bias * v.reshape(-1)  # (out,)
    out[edit.target] = weight * (scale.t() if edit.conv1d else scale)
