"""Helpers of the adapter tests (tests/adapters): peft's models as the oracle, the tolerance's terms.

    model = base_model(folder, "llama")     # transformers' model of a checkpoint folder, eager attention
    perturb(peft_model)                     # noise on every trainable tensor (the adapter's own)
    peft = load_peft(base, adapter_folder, "llama")
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import torch

DECODERS = {"llama", "gpt2"}
NOISE = 0.5         # IA³ vectors, virtual tokens, trained biases
LORA_NOISE = 0.25   # LoRA's A and B: scale·B·A then has entries like the base weights' (0.3)


def perturb(model, seed: int = 1) -> None:
    """Add Gaussian noise to every trainable tensor (the adapter's own): peft starts LoRA with
    B = 0 and IA³ with ones, which would change nothing. LoRA's noise is smaller: a merged update
    far larger than the weights makes float32 rounding of the outputs grow with it."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.requires_grad:
                p.add_(torch.randn(p.shape, generator=g) * (LORA_NOISE if "lora_" in name else NOISE))


def base_model(folder: Path, family: str):
    from transformers import AutoModel, AutoModelForCausalLM
    auto = AutoModelForCausalLM if family in DECODERS else AutoModel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return auto.from_pretrained(folder, attn_implementation="eager", local_files_only=True).eval()


def load_peft(base: Path, folder: Path, family: str):
    from peft import PeftModel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PeftModel.from_pretrained(base_model(base, family), folder).eval()


def score_size(attentions) -> float:
    """The spread of the scores each row's softmax saw, max log w − min log w over its unmasked
    keys (what the rounding of a softmax output scales with: tests/numeric.py's `scale`)."""
    p = torch.as_tensor(attentions).double()
    logp = torch.log(p)
    spread = logp.masked_fill(p == 0, -math.inf).amax(-1) - logp.masked_fill(p == 0, math.inf).amin(-1)
    return max(1.0, float(spread.max()))


def reduction(model, n: int) -> int:
    """The rule's reduction for a forward through `model` over n keys: per layer the widest sum
    (d_model, the MLP's width, heads × d_head) and the n keys twice (normaliser, weights @ V)."""
    return model.layers * (max(model.d_model, model.ffn, model.heads * model.d_head) + 2 * n)

