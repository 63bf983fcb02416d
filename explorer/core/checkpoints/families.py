"""Which model types are computed natively: the builders of encoders.py and decoders.py.

    build = builders().get(config["model_type"])   # None: not native (transformers' path)
    model = build(config, tensors)                  # a native.NativeModel

Each builder checks the tensors against the config (a CheckpointError naming the tensor and both
shapes when they disagree) and keeps what it needs on the tensors' device.
"""

from __future__ import annotations

# The model types builders() holds, written out torch-free so that listing the cache (the window's
# start-up, `models`) imports no torch; tests/checkpoints/test_families.py checks the two agree.
NATIVE_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "distilbert", "electra",
                          "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma2"})


def builders() -> dict:
    """model_type (config.json) -> builder(config: dict, tensors: dict[str, Tensor]) -> NativeModel."""
    from . import decoders, encoders  # torch: only when a checkpoint is opened
    return {**encoders.BUILDERS, **decoders.BUILDERS}
