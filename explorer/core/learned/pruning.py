"""Switch heads off in a real model and measure what it does to the output.

A head mask (layers, heads) of 0/1 multiplies each head's attention weights (0: the head adds
nothing to its layer's output), as transformers' head_mask does. The effect:
- decoder: the loss on the text (mean next-token cross-entropy, nats) and the next-token top 5,
  with and without the mask;
- encoder (no language-model head in these packages): the cosine similarity between the sentence
  vectors (mean-pooled, as MiniLM and e5 are trained) with and without the mask.
"""

from __future__ import annotations

import numpy as np

from .analysis import run
from .tokenization import Tokens


def prune_effect(model, tokens: Tokens, head_mask) -> dict:
    base = run(model, tokens)
    pruned = run(model, tokens, head_mask)
    effect = {"heads_off": int((np.asarray(head_mask) == 0).sum())}
    if model.is_decoder:
        effect.update(loss=base.loss, loss_pruned=pruned.loss,
                      next_top=base.next_top, next_top_pruned=pruned.next_top)
    else:
        a, b = base.hidden.mean(0), pruned.hidden.mean(0)  # (d,) each
        effect["sentence_cosine"] = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return effect


def mask_without(model, heads) -> np.ndarray:
    """A (layers, heads) mask of ones with the (layer, head) pairs in `heads` switched off."""
    mask = np.ones((model.spec.layers, model.spec.heads), dtype=np.float32)
    for layer, head in heads:
        mask[layer, head] = 0.0
    return mask
