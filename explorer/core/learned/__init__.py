"""Pretrained models (MiniLM-L6, multilingual-e5-small, SmolLM2-135M) whose weights ship in pip packages.

Importing this package imports neither torch nor the models' packages: the registry says what
exists and whether it is installed; `load_model` (torch) reads the weights on first use.

The calls a view or the CLI makes (each may raise ConfigError with a message to show as is):

    model = load_model("e5-small", "cpu")            # slow the first time: call it off the GUI thread
    tokens = analysis.tokenize(model, text)            # Tokens: ids, pieces, labels (axis labels)
    result = analysis.run(model, tokens, head_mask)    # attentions (layers, heads, n, n), next_top, loss
    roles = score_heads(result.attentions, model.is_decoder, find_repeat(tokens.ids))
    tokens = sequences.random_repeated(model, 20, seed)    # "random tokens repeated"
    records, cache, new = generation.run_generation(model, tokens, k, check=True)  # decoder, KV cache
    effect = pruning.prune_effect(model, tokens, pruning.mask_without(model, [(layer, head)]))
"""

from __future__ import annotations

from .analysis import TextTooLongError
from .registry import (MODELS, ModelNotInstalledError, ModelSpec, get_spec, install_problem,
                       installed_version, is_installed, weights_path)
from .roles import ROLES, HeadRole, find_repeat, score_heads

__all__ = ["MODELS", "ROLES", "HeadRole", "ModelNotInstalledError", "ModelSpec", "TextTooLongError",
           "find_repeat", "get_spec", "install_problem", "installed_version", "is_installed", "load_model",
           "score_heads", "weights_path"]


def load_model(name: str, device: str = "cpu"):
    """The loaded model (cached); imports torch on first call."""
    from .loader import load_model as _load
    return _load(name, device)

