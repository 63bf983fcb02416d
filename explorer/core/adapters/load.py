"""A model with a PEFT adapter applied, loaded once per (model, adapter, device): the function the
app layer calls.

    model = load_adapted("/path/to/checkpoint", "/path/to/adapter", "cpu", should_stop, progress)
    model.weights        # a native.NativeModel: the adapted model, run by the shared code as it is
    model.adapter        # info.AdapterInfo: method, r, α, targets, trainable parameters, v
    model.virtual_tokens # v: positions before the text on the key axis (0 for LoRA / IA³)

`where` is what core.checkpoints.load.load_checkpoint takes (a folder, a cached repo id ORG/NAME,
a Checkpoint) or a bundled model's name (core.learned.MODELS: LoRA and IA³ only, bundled.py).

- LoRA, IA³: the plan (targets.py) is checked against the checkpoint's header first, then the
  checkpoint's tensors are read again and the adapter merged into them (merge.py) before the
  family builder runs: a second copy of the weights, the base model's own (cached by
  load_checkpoint) untouched.
- Prefix and prompt tuning change no weight: the base model is loaded through load_checkpoint
  (cached, shared) and wrapped (virtual.VirtualTokensModel).

Order, so nothing is cached half: adapter folder, plan, tokenizer, weights, build; any failure
(AdapterError / CheckpointError: one line) leaves nothing cached. torch is imported here.
"""

from __future__ import annotations

import threading

from ..cancel import check
from ..checkpoints.layout import Checkpoint, open_checkpoint
from ..learned.loader import LoadedModel
from . import errors as e
from .adapter_files import Adapter, open_adapter, read_tensors
from .adapted import AdaptedModel
from .info import AdapterInfo, adapter_info

_LOCK = threading.Lock()
_CACHE: dict = {}


def load_adapted(where, adapter, device: str = "cpu", should_stop=None, progress=None) -> AdaptedModel:
    """The model at `where` with the adapter in the folder `adapter` (or an open Adapter) applied,
    on `device`; cached per model, adapter (its files' stamps) and device."""
    from ..backends import resolve_torch_device
    from ..learned import MODELS
    ad = adapter if isinstance(adapter, Adapter) and not adapter.changed() else \
        open_adapter(adapter.folder if isinstance(adapter, Adapter) else adapter)
    dev = str(resolve_torch_device(device))
    if isinstance(where, str) and where in MODELS:
        base_key: tuple = ("bundled", where)
        ckpt = None
    else:
        from ..checkpoints.load import cache_key
        ckpt = where if isinstance(where, Checkpoint) else open_checkpoint(where)
        base_key = cache_key(ckpt, dev)
    key = (base_key, ad.opened, dev)
    with _LOCK:
        model = _CACHE.get(key)
        if model is None:
            model = _bundled(where, ad, dev) if ckpt is None else _load(ckpt, ad, dev, should_stop, progress)
            _CACHE[key] = model
        elif progress is not None:
            progress(1.0)
        return model


def forget() -> None:
    """Drop every adapted model (the base models stay in load_checkpoint's cache)."""
    with _LOCK:
        _CACHE.clear()


def cached_count() -> int:
    with _LOCK:
        return len(_CACHE)


def _load(ckpt: Checkpoint, adapter: Adapter, device: str, should_stop, progress) -> AdaptedModel:
    from ..checkpoints.load import NATIVE, route
    if route(ckpt) != NATIVE:
        raise e.fail(e.NOT_NATIVE, path=str(adapter.folder), name=ckpt.name, family=ckpt.model_type)
    if adapter.method in ("lora", "ia3"):
        return _merged(ckpt, adapter, device, should_stop, progress)
    return _virtual(ckpt, adapter, device, should_stop, progress)


def _merged(ckpt, adapter, device, should_stop, progress) -> AdaptedModel:
    from ..checkpoints.load import load_edited
    from .merge import apply_plan
    from .targets import plan_edits, tied
    shapes = {name: t.shape for name, t in ckpt.tensors.items()}
    plan = plan_edits(adapter, shapes, ckpt.name, ckpt.model_type, tied(ckpt.config))
    adapter_tensors = read_tensors(adapter)
    check(should_stop, "loading the adapter")
    model = load_edited(ckpt, device, lambda tensors: apply_plan(plan, tensors, adapter_tensors),
                        should_stop, progress)
    return _adapted(model, adapter_info(adapter, plan))


def _virtual(ckpt, adapter, device, should_stop, progress) -> AdaptedModel:
    from ..checkpoints.decoders import Decoder
    from ..checkpoints.encoders import EncoderModel
    from ..checkpoints.load import NATIVE, load_checkpoint, spec_for
    from .virtual import VirtualTokensModel, virtual_tokens
    tensors = read_tensors(adapter)
    base = load_checkpoint(ckpt, device, should_stop, progress)  # cached, shared, never changed
    if not isinstance(base.weights, (Decoder, EncoderModel)):
        raise e.fail(e.NOT_NATIVE, path=str(adapter.folder), name=ckpt.name, family=ckpt.model_type)
    weights = VirtualTokensModel(base.weights, virtual_tokens(adapter, tensors, base.weights, ckpt.name))
    if weights.max_positions < 2:
        raise e.fail(e.TOO_LONG, path=str(adapter.folder), v=weights.virtual_tokens, name=ckpt.name,
                     limit=base.weights.max_positions)
    spec = spec_for(ckpt, weights, base.spec.pad_id, NATIVE)
    return _adapted(LoadedModel(spec, base.tokenizer, weights, base.device), adapter_info(adapter))


def _adapted(model: LoadedModel, info: AdapterInfo) -> AdaptedModel:
    return AdaptedModel.of(model.spec, model.tokenizer, model.weights, model.device, info)


def _bundled(name: str, adapter: Adapter, device: str) -> AdaptedModel:
    from .bundled import adapt_bundled
    return adapt_bundled(name, adapter, device)
