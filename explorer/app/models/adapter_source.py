"""A PEFT adapter on a model as one more model source: every view and `dump` treat it as any other.

    source = AdaptedSource(base_source, "/path/to/adapter")   # AdapterError (one line) for a bad folder
    source.label()                       # "tiny (llama) + LoRA r=8"
    a = source.analyse("cpu", text)      # AdaptedAnalysis of the adapted model
    b = source.analyse_base("cpu", text) # the base model's Analysis of the same text (base / difference)
    d = difference(a, b)                 # (layers, heads, v + n, v + n): adapted − base, on a's axes
    source.generate("cpu", text, k)      # the adapted decoder, stepped with its real KV cache

The base is a CheckpointSource (an own checkpoint, natively computed) or a PretrainedSource (a
bundled model: LoRA and IA³ only); the adapter is read through core.adapters (no pickle, every
value checked) and loaded with the model on first use (core.adapters.load.load_adapted: cached;
the base model stays as it was, in its own cache). Capabilities are the base's. The caller
registers it (the window's "Load adapter…", never at import time); the command line uses it
directly (`dump --model M --adapter DIR`).

The axes of an AdaptedAnalysis: prefix and prompt tuning put v virtual tokens before the text.
`attentions` is (layers, heads, v + n, v + n) with labels "⟨p1⟩".."⟨pv⟩" first, so every view
draws it as a square map: for prompt tuning the virtual tokens are queries and keys; for prefix
tuning they are keys only, and their query rows are empty (all 0: `layer_picture` marks them so).
`ids` are the text's tokens only; head roles are scored on the text's block (`repeat` is on the
attentions' axes). LoRA and IA³ add no virtual token (v = 0): the axes are the base's.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core.adapters.adapter_files import open_adapter
from ...core.adapters.info import AdapterInfo, adapter_info
from ...core.cancel import Cancelled
from ...core.config import ConfigError
from ...core.learned import find_repeat, score_heads
from ..i18n import QT_TRANSLATE_NOOP, translate
from .learned import Analysis, LayerPicture
from .model_source import ModelSource

VIRTUAL_LABEL = "⟨p{i}⟩"
NOT_ADAPTABLE = QT_TRANSLATE_NOOP("core", "{name}: an adapter needs a bundled model or an own checkpoint")
OTHER_TEXT = QT_TRANSLATE_NOOP("core", "the base and the adapted analysis are of different texts")


@dataclass(frozen=True)
class AdaptedAnalysis(Analysis):
    """An Analysis of an adapted model (the module docstring gives its axes)."""

    virtual_tokens: int = 0           # v
    virtual_queries: bool = False     # True: prompt tuning (the virtual tokens are queries too)
    adapter: AdapterInfo | None = None
    model_attentions: np.ndarray | None = None  # as the model gives them: (layers, heads, nq, v + n)

    @property
    def n_real(self) -> int:
        """Positions before the padding, virtual ones included (the axis of `attentions`)."""
        return self.virtual_tokens + len(self.ids) - self.padding

    @property
    def n_tokens(self) -> int:
        return self.virtual_tokens + len(self.ids)

    def dump_fields(self, layer: int | None = None) -> dict:
        """What `dump --adapter` adds to the JSON: the weights with the queries the model has
        (prefix tuning: the text's rows only), virtual_tokens and the adapter."""
        weights = self.model_attentions if layer is None else self.model_attentions[layer]
        return {"weights": np.round(weights.astype(np.float64), 6).tolist(),
                "virtual_tokens": self.virtual_tokens, "adapter": self.adapter.to_dict()}


def layer_picture(analysis: Analysis, layer: int) -> LayerPicture:
    """app.models.learned.layer_picture, with prefix tuning's virtual query rows marked empty."""
    from .learned import layer_picture as plain
    picture = plain(analysis, layer)
    v = getattr(analysis, "virtual_tokens", 0)
    if not v or getattr(analysis, "virtual_queries", True):
        return picture
    mask, empty = picture.mask.copy(), picture.empty_rows.copy()
    mask[:v] = False
    empty[:v] = True
    return dataclasses.replace(picture, mask=mask, empty_rows=empty)


def difference(adapted: Analysis, base: Analysis) -> np.ndarray:
    """adapted − base attentions on the adapted analysis's axes (layers, heads, v + n, v + n): the
    base has no virtual token, so its rows and columns there count as 0. ConfigError when the
    two are not of the same tokens."""
    v = getattr(adapted, "virtual_tokens", 0)
    if tuple(adapted.ids) != tuple(base.ids):
        raise ConfigError.of(OTHER_TEXT)
    aligned = np.zeros_like(adapted.attentions)
    aligned[:, :, v:, v:] = base.attentions
    return adapted.attentions - aligned


def head_change(adapted: Analysis, base: Analysis) -> np.ndarray:
    """(layers, heads): how much the adapter changed each head, the total-variation distance
    ½ Σ_keys |adapted − base| of the text's query rows, averaged (0: unchanged, 1: disjoint)."""
    v = getattr(adapted, "virtual_tokens", 0)
    n = base.n_real
    diff = np.abs(difference(adapted, base)[:, :, v:v + n, :])  # (layers, heads, n, v + n)
    return 0.5 * diff.sum(-1).mean(-1)


class AdaptedSource(ModelSource):
    """A base source with a PEFT adapter (the module docstring)."""

    def __init__(self, base: ModelSource, adapter_folder):
        if base.capabilities.adapters not in ("bundled", "checkpoint", "through_transformers"):
            raise ConfigError.of(NOT_ADAPTABLE, name=base.name)  # (through transformers: _early_checks)
        self.base = base
        self.adapter = open_adapter(adapter_folder)  # AdapterError: one line, nothing loaded
        self._info = adapter_info(self.adapter, self._early_checks())  # complete once loaded
        self._loaded_info: AdapterInfo | None = None
        self._loaded_spec = None
        self.name = f"{base.name} + {self.adapter.folder}"
        self.capabilities = dataclasses.replace(base.capabilities, adapters="adapted")

    def _early_checks(self):
        """What can be refused before any weight is read: the route, the method on a bundled
        model, and (LoRA / IA³ on a checkpoint) every tensor against the checkpoint's header,
        whose plan (core.adapters.targets) it returns; None when there is none yet."""
        from ...core.adapters import errors as e
        path = str(self.adapter.folder)
        kind = self.base.capabilities.adapters
        if kind != "bundled":  # an own checkpoint
            ckpt = self.base.checkpoint
            if kind == "through_transformers":
                raise e.fail(e.NOT_NATIVE, path=path, name=ckpt.name, family=ckpt.model_type)
            if self.adapter.method in ("lora", "ia3"):
                from ...core.adapters.targets import plan_edits, tied
                shapes = {name: t.shape for name, t in ckpt.tensors.items()}
                return plan_edits(self.adapter, shapes, ckpt.name, ckpt.model_type, tied(ckpt.config))
        elif self.adapter.method not in ("lora", "ia3"):
            raise e.fail(e.NOT_ON_BUNDLED, ("method",), path=path, method=self._info_method(), name=self.base.name)
        return None

    def _info_method(self) -> str:
        from ...core.adapters.errors import METHOD_NAMES
        return METHOD_NAMES[self.adapter.method]

    @property
    def info(self) -> AdapterInfo:
        """The adapter as shown (targets and parameters complete once the model was loaded)."""
        return self._loaded_info or self._info

    def adapter_label(self) -> str:
        """"LoRA r=8", "IA³", "prefix tuning v=20" in the UI language."""
        info = self.info
        if info.method == "lora":
            return info.label()
        name = translate("core", info.method_name)
        return f"{name} v={info.virtual_tokens}" if info.virtual_tokens else name

    def spec(self):
        if self._loaded_spec is not None:
            return self._loaded_spec
        spec = self.base.spec()
        v = self.info.virtual_tokens
        return dataclasses.replace(spec, name=f"{spec.name} + {self.info.label()}",
                                   max_tokens=max(1, spec.max_tokens - v),
                                   description=f"{spec.description} · {self.info.label()}")

    @property
    def kind(self) -> str:
        return self.base.kind

    def label(self) -> str:
        return f"{self.base.label()} + {self.adapter_label()}"

    def title(self) -> str:
        return f"{self.base.title()} + {self.adapter_label()}"

    def description(self) -> str:
        info = self.info
        targets = ", ".join(info.targets)
        parts = [self.base.description(), self.adapter_label()]
        if targets:
            parts.append(targets)
        parts.append(translate("learned.source", "{n} trainable parameters").format(n=f"{info.trainable_parameters:,}"))
        return " · ".join(parts)

    def problem(self):
        return self.base.problem()

    def load(self, device: str = "cpu", should_stop=None, progress=None):
        """The adapted model (core.adapters.load.load_adapted: cached); the base is not changed."""
        from ...core.adapters.load import load_adapted
        problem = self.base.problem()
        if problem is not None:
            raise problem
        where = self.base.name if self.base.capabilities.adapters == "bundled" else self.base.checkpoint
        model = load_adapted(where, self.adapter, device, should_stop, progress)
        self._loaded_spec, self._loaded_info = model.spec, model.adapter
        return model

    def tokens_for(self, model, text, sequence, seed, random_length):
        """The tokens the model reads (the base's rule: an own checkpoint's random tokens, ...)."""
        return self.base.tokens_for(model, text, sequence, seed, random_length)

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None,
                random_length=None):
        """The adapted model's AdaptedAnalysis of the text (module docstring: its axes)."""
        ready = self.loaded_tokens(device, text, sequence, seed, random_length, should_stop)
        if ready is None:
            return None
        model, tokens, load_s = ready
        return adapted_analysis(model, tokens, text, sequence, padding, load_s)

    def analyse_base(self, device, text, sequence="text", seed=0, padding=0, should_stop=None,
                     random_length=None):
        """The base model's Analysis of the same text (for the base / adapted / difference views)."""
        return self.base.analyse(device, text, sequence, seed, padding, should_stop, random_length)

    def prune(self, device, text, sequence, seed, heads, should_stop=None):
        """What switching `heads` off does in the adapted model (core's prune_effect)."""
        from ...core.learned.pruning import mask_without, prune_effect
        if not self.capabilities.pruning:
            return super().prune(device, text, sequence, seed, heads, should_stop)
        ready = self.loaded_tokens(device, text, sequence, seed, None, should_stop)
        if ready is None:
            return None
        model, tokens, _ = ready
        effect = prune_effect(model, tokens, mask_without(model, sorted(heads)))
        return {**effect, "model": self.name, "heads": tuple(sorted(heads))}

    def generate(self, device, text, k, should_stop=None, fit=False):
        """The adapted decoder stepped with its real KV cache (app.learned_generation.GenerationRun).
        With virtual tokens the cache starts with them: run.keys / run.values hold v + positions
        (prefix tuning's keys and values, or prompt tuning's virtual tokens' own), run.records
        one per fed token, each step checked against one full pass."""
        if not self.capabilities.generation:
            return super().generate(device, text, k, should_stop, fit)
        from .adapter_generation import generate_adapted
        try:
            model = self.load(device, should_stop)
        except Cancelled:
            return None
        return generate_adapted(model, self.name, text, k, should_stop, fit)


def virtual_labels(v: int) -> tuple[str, ...]:
    return tuple(VIRTUAL_LABEL.format(i=i + 1) for i in range(v))


def adapted_analysis(model, tokens, text: str, sequence: str, padding: int = 0, load_s: float = 0.0) -> AdaptedAnalysis:
    """One forward pass of an adapted model (core.adapters AdaptedModel) over `tokens`: its
    attentions put on the square (v + n) axes, head roles scored on the text's block."""
    from ...core.learned.analysis import run
    start = time.perf_counter()
    result = run(model, tokens, padding=padding)
    v, prompt = model.virtual_tokens, model.virtual_queries
    a = result.attentions  # (layers, heads, nq, v + n + pad): nq = v + n + pad for prompt tuning
    square = a if prompt else np.concatenate([np.zeros(a.shape[:2] + (v, a.shape[-1]), a.dtype), a], axis=2)
    n = len(tokens.ids)
    real = square[:, :, v:v + n, v:v + n]
    repeat = find_repeat(tokens.ids)
    roles = score_heads(real, causal=model.is_decoder, repeat=repeat)
    labels = virtual_labels(v)
    shifted = None if repeat is None else (repeat[0] + v, repeat[1])
    return AdaptedAnalysis(model.spec, str(model.device), sequence, text, result.tokens.ids,
                           labels + tuple(result.tokens.labels), square, tuple(roles), shifted,
                           result.next_top, result.loss, load_s, time.perf_counter() - start, padding,
                           labels + tuple(result.tokens.pieces), virtual_tokens=v, virtual_queries=prompt,
                           adapter=model.adapter, model_attentions=a)


def adapted_source(base: ModelSource, folder) -> AdaptedSource:
    """AdaptedSource(base, folder) for a path given as text or Path."""
    return AdaptedSource(base, Path(folder))
