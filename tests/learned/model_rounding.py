"""The rule's reduction (tests/numeric.py) for the outputs of the transformers tested here.

Every layer a number passes through adds the terms its sums run over: d_model in its projections,
and the n keys in the softmax's normaliser and in weights @ V. For the pretrained models the
d_model sums dominate (384 or 576 against a dozen tokens: MiniLM's attentions are about 6 · 384);
for the trained tiny model (d_model 16, up to 32 tokens) the keys count as much. The logits add
the unembedding (d_model more), a mean loss the vocabulary's log-sum-exp.
"""

from __future__ import annotations


def through_layers(layers: int, d_model: int, n: int) -> int:
    """Terms summed along the longest path through `layers` layers of width d_model over n tokens."""
    return layers * (d_model + 2 * n)


def model_reduction(model, n: int, layers: int | None = None) -> int:
    """through_layers for a loaded pretrained model (its spec), all its layers by default."""
    spec = model.spec
    return through_layers(spec.layers if layers is None else layers, spec.d_model, n)


def logits_reduction(model, n: int) -> int:
    """The logits: every layer, then the unembedding's d_model-term products."""
    return model_reduction(model, n) + model.spec.d_model


def llama_logits_size(model, ids) -> float:
    """max |logits| of SmolLM2's full pass over `ids`: the scale of a logit's (and a loss's) error."""
    import torch

    from explorer.core.learned import llama
    with torch.inference_mode():
        return float(llama.forward(model.weights, list(ids))["logits"].abs().max())
