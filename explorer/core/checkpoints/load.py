"""Open a user's checkpoint as a core.learned LoadedModel, once per (folder, device, dtype).

    model = load_checkpoint("/path/to/folder", "cpu", should_stop, progress)   # or "ORG/NAME"
    model.spec        # ModelSpec from the config and the built model: kind, layers, heads, ...
    model.tokenizer   # tokenizer.py: the checkpoint's own tokenizer
    model.weights     # a native.NativeModel: families.builders()[model_type](config, tensors),
                      # or transformers_path.TransformersModel for any other architecture
    result = run(model, tokens, head_mask, padding)   # core.learned.analysis.LearnedResult

Order, so nothing is loaded half: the folder is checked (layout.py), the tokenizer parsed, the
memory compared with what the machine has, then the tensors are read and the model built; a
failure at any step leaves nothing cached. torch is imported here: import this module lazily.
"""

from __future__ import annotations

import importlib.util
import os
import threading

from ..cancel import check
from ..config import MAX_TOKENS
from ..messages import QT_TRANSLATE_NOOP
from .families import NATIVE_TYPES
from .layout import Checkpoint, open_checkpoint, size_text
from .native import CheckpointError

NATIVE, TRANSFORMERS = "native", "transformers"
UNKNOWN = QT_TRANSLATE_NOOP("core", "{name}: unknown architecture {family} (install transformers to open it)")
NOT_NATIVE = QT_TRANSLATE_NOOP("core", "{name}: {family} is not computed natively, so its weights cannot be "
                               "edited (an adapter needs the app's own forward)")
ENCODER_DECODER = QT_TRANSLATE_NOOP("core", "{name}: {family} is an encoder-decoder model; open an encoder "
                                    "or a decoder")

_LOCK = threading.Lock()
_CACHE: dict = {}


def native_types() -> frozenset:
    """The model types the app computes itself (families.NATIVE_TYPES)."""
    return NATIVE_TYPES


def transformers_installed() -> bool:
    return importlib.util.find_spec("transformers") is not None


def route(ckpt: Checkpoint) -> str:
    """NATIVE or TRANSFORMERS; CheckpointError when neither can open it."""
    if ckpt.config.get("is_encoder_decoder"):
        raise CheckpointError.of(ENCODER_DECODER, name=ckpt.name, family=ckpt.model_type)
    if ckpt.model_type in native_types():
        return NATIVE
    if transformers_installed():
        return TRANSFORMERS
    raise CheckpointError.of(UNKNOWN, name=ckpt.name, family=ckpt.model_type)


def cache_key(ckpt: Checkpoint, device: str, dtype: str | None = "float32") -> tuple:
    """What names a loaded model in a cache: the folder, device, dtype and the files' stamps (a
    changed file loads again). core/adapters keys its adapted models on it too."""
    return _key(ckpt, device, dtype)


def _key(ckpt: Checkpoint, device: str, dtype: str | None) -> tuple:
    stamps = []
    for f in (*ckpt.weight_files, ckpt.folder / "config.json"):
        info = os.stat(f)
        stamps.append((info.st_mtime_ns, info.st_size))
    return (str(ckpt.folder.resolve()), device, dtype, tuple(stamps))


def load_checkpoint(where, device: str = "cpu", should_stop=None, progress=None,
                    dtype: str | None = "float32"):
    """The checkpoint at `where` (folder or cached repo id) on `device`, loaded once (cached per
    folder, device and dtype; a changed file loads again). CheckpointError: one line.

    dtype: what the weights are read as for the transformers path. The native forwards compute in
    float32, so a native model is always read as float32, widened once as each tensor is read
    (asking for the file's own dtype used to keep a bfloat16 copy beside the float32 one while the
    model was built: 1.50× the float32 size at the peak instead of 1.25×, docs/benchmarks.md)."""
    from ..backends import resolve_torch_device
    ckpt = where if isinstance(where, Checkpoint) else open_checkpoint(where)
    dev = str(resolve_torch_device(device))
    key = _key(ckpt, dev, dtype)
    with _LOCK:
        model = _CACHE.get(key)
        if model is None:
            model = _load(ckpt, dev, dtype, should_stop, progress)
            _CACHE[key] = model
        elif progress is not None:
            progress(1.0)
        return model


def forget(where=None) -> None:
    """Drop the loaded models (all, or those of one folder)."""
    with _LOCK:
        if where is None:
            _CACHE.clear()
            return
        folder = str((where.folder if isinstance(where, Checkpoint) else open_checkpoint(where).folder).resolve())
        for key in [k for k in _CACHE if k[0] == folder]:
            del _CACHE[key]


def load_edited(ckpt: Checkpoint, device: str, edit, should_stop=None, progress=None):
    """The checkpoint built natively, its tensors passed through `edit(tensors) -> tensors` (a new
    dict) before the family builder reads them: how core/adapters merges LoRA and IA³. Not cached
    here (the caller caches what it edits); CheckpointError for a family not computed natively."""
    from ..backends import resolve_torch_device
    return _load(ckpt, str(resolve_torch_device(device)), "float32", should_stop, progress, edit)


def _load(ckpt: Checkpoint, device: str, dtype, should_stop, progress, edit=None):
    import torch
    from ..learned.loader import LoadedModel
    from .tokenizer import checkpoint_tokenizer
    from .families import builders
    way = route(ckpt)
    build = builders().get(ckpt.model_type)
    if build is None and edit is not None:
        raise CheckpointError.of(NOT_NATIVE, name=ckpt.name, family=ckpt.model_type)
    if build is None:
        if not transformers_installed():
            raise CheckpointError.of(UNKNOWN, name=ckpt.name, family=ckpt.model_type)
        way = TRANSFORMERS
    tokenizer = checkpoint_tokenizer(ckpt)
    check(should_stop, "loading the model")
    if way == NATIVE:
        from .tensors import load_tensors
        tensors = load_tensors(ckpt, device, "float32", should_stop, progress)
        check(should_stop, "loading the model")
        if edit is not None:
            tensors = edit(tensors)
        try:
            weights = build(ckpt.config, tensors)
        except CheckpointError:
            raise
        except (KeyError, ValueError, RuntimeError, TypeError, IndexError) as exc:
            line = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
            raise CheckpointError(f"{ckpt.name}: its tensors do not match a {ckpt.model_type} "
                                  f"model ({exc.__class__.__name__}: {line})") from None
    else:
        from .transformers_path import load_transformers
        weights = load_transformers(ckpt, device, dtype, should_stop, progress)
    vocab = getattr(weights, "vocab", 0)
    if vocab and tokenizer.vocab_size > vocab:
        raise CheckpointError(f"{ckpt.name}: its tokenizer has {tokenizer.vocab_size} tokens, the model's "
                              f"embedding {vocab} rows")
    return LoadedModel(spec_for(ckpt, weights, tokenizer.pad_id, way), tokenizer, weights, torch.device(device))


def description(ckpt: Checkpoint, way: str | None = None) -> str:
    """"family · dtype · size" (and "through transformers" when not native)."""
    parts = [ckpt.model_type, ckpt.dtype_name, size_text(ckpt.nbytes)]
    if way == TRANSFORMERS:
        parts.append("through transformers")
    return " · ".join(parts)


def spec_for(ckpt: Checkpoint, weights=None, pad_id: int = 0, way: str | None = None):
    """The ModelSpec of a checkpoint: sizes from the built model when there is one, else the config."""
    from ..learned.registry import ModelSpec
    sizes = ckpt.sizes
    kind = getattr(weights, "kind", None) or ckpt.kind
    layers = getattr(weights, "layers", None) or sizes["layers"]
    heads = getattr(weights, "heads", None) or sizes["heads"]
    kv_heads = getattr(weights, "kv_heads", None) or sizes["kv_heads"]
    d_model = getattr(weights, "d_model", None) or sizes["d_model"]
    max_positions = getattr(weights, "max_positions", None) or sizes["max_positions"] or MAX_TOKENS
    if type(layers) is not int or type(heads) is not int or layers <= 0 or heads <= 0:
        raise CheckpointError(f"{ckpt.name}: config.json does not say how many layers and heads it has")
    d_head = getattr(weights, "d_head", None) or sizes["d_head"]
    head_dim = 0 if d_head == d_model // heads else d_head  # Qwen3, Gemma 2: d_head ≠ d_model / heads
    return ModelSpec(ckpt.name, kind, layers, heads, kv_heads, d_model, min(max_positions, MAX_TOKENS),
                     "", "", str(ckpt.folder), ("safetensors", "tokenizers"), "", ckpt.nbytes / 1e6,
                     description(ckpt, way), pad_id=pad_id, head_dim=head_dim)
