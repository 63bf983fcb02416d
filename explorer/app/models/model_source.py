"""The model-source interface: what every source of attention offers, and the course model's.

A `ModelSource` is what the window, the exports, the lessons and the command line know of a model:
its name, its label and description, its sizes (`spec`: kind, layers, heads, KV heads, d_model,
d_head), why it cannot be used here (`problem`: not installed, not trained yet), and its runs:

    source = source_for("minilm-l6")                      # app.sources: the registry
    analysis = source.analyse("cpu", "the cat sat")       # every layer's attention + head roles
    effect = source.prune("cpu", text, "text", 0, {(2, 3)})   # what switching heads off does
    run = source.generate("cpu", text, k=8)               # decoder: steps with the real KV cache

What a source can do is declared in its `Capabilities` (pruning, generation, integer tokens, …),
never probed: a view asks `source.capabilities.generation`, not which kind of model it is.

The course's random model is one source among the others (`CourseSource`, "random"): one layer
whose settings are the sliders (`capabilities.course_settings`); its attention is AppState's
result, computed from the config, so it has no text run here. The pretrained models, the model the
Train tab trains and any source a test or a later feature registers live in app.sources. This
module is light (no model registry, no torch): the window's start-up imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.config import ConfigError
from ..i18n import QT_TRANSLATE_NOOP, translate

if TYPE_CHECKING:
    from ...core.learned import ModelSpec
    from .learned import Analysis

RANDOM = "random"


@dataclass(frozen=True)
class Capabilities:
    """What a source can give besides every layer's attention (declared, never probed)."""

    course_settings: bool = False  # its attention is the course sliders' result (AppState), not a text run
    integer_tokens: bool = False   # its text is space-separated token ids (the trained model)
    roles: bool = True             # head roles (previous-token, induction, …) are scored
    pruning: bool = True           # heads can be switched off and the effect measured
    generation: bool = False       # a decoder stepped with its real KV cache (Generate, KV tabs)
    mlp: bool = True               # its blocks have an MLP (the KV tab's FLOPs count it)
    positions: str = "learned"     # "sinusoidal", "learned" or "rope" (why there is no PE figure)
    # a PEFT adapter (app.models.adapter_source): "" takes none; "bundled": LoRA and IA³ merged
    # into a bundled model's weights; "checkpoint": any method on a natively run own checkpoint
    # (the source's `checkpoint`); "through_transformers": an own checkpoint it cannot go on;
    # "adapted": the source carries one already (its `base` takes another)
    adapters: str = ""


class ModelSource:
    """One source of attention (see the module docstring). Subclasses set `name` and
    `capabilities` and implement what they declare; the rest refuse with a ConfigError."""

    name: str = ""
    capabilities: Capabilities = Capabilities()

    def spec(self) -> ModelSpec | None:
        """Kind and sizes; None for the course model (its sizes are the sliders')."""
        return None

    @property
    def kind(self) -> str:
        """"encoder" or "decoder"."""
        spec = self.spec()
        return "encoder" if spec is None else spec.kind

    def label(self) -> str:
        """The name in the Model source list, in the UI language."""
        return self.name

    def title(self) -> str:
        """How a sentence names it ("minilm-l6", "the trained model"), in the UI language."""
        return self.name

    def description(self) -> str:
        """One line about the model (the list's tooltip), in the UI language."""
        spec = self.spec()
        return "" if spec is None else spec.description

    def problem(self) -> Exception | None:
        """Why it cannot be used here (a ConfigError saying how to fix it), or None."""
        return None

    def load(self, device: str = "cpu", should_stop=None, progress=None):
        """Get the model ready on `device` before a run (cached after the first time): the one
        slow step, so it polls `should_stop` and reports `progress(fraction)` while it reads the
        weights. Nothing to load by default (the course model, the trained one)."""
        return None

    def tokens_for(self, model, text: str, sequence: str = "text", seed: int = 0,
                   random_length: int | None = None):
        """The Tokens its loaded `model` reads for the text (or its repeat, or random tokens
        repeated): app.models.learned.sequence_tokens, unless the source has its own rule."""
        from .learned import RANDOM_LENGTH, sequence_tokens
        return sequence_tokens(model, text, sequence, seed, random_length or RANDOM_LENGTH)

    def loaded_tokens(self, device: str, text: str, sequence: str = "text", seed: int = 0,
                      random_length: int | None = None, should_stop=None):
        """(model, tokens, seconds the load took) for a run, or None when `should_stop` said
        stop while or after loading (a newer request waits: this one would be dropped)."""
        import time
        from ...core.cancel import Cancelled
        start = time.perf_counter()
        try:
            model = self.load(device, should_stop)
        except Cancelled:
            return None
        load_s = time.perf_counter() - start
        if should_stop is not None and should_stop():
            return None
        return model, self.tokens_for(model, text, sequence, seed, random_length), load_s

    def analyse(self, device: str, text: str, sequence: str = "text", seed: int = 0, padding: int = 0,
                should_stop=None, random_length: int | None = None) -> Analysis | None:
        """Every layer's attention and head roles for the text (or its repeat, or random tokens);
        None when `should_stop` said stop. A background job: it may load the model."""
        raise ConfigError(f"{self.name} has no text run")

    def prune(self, device: str, text: str, sequence: str, seed: int, heads: frozenset,
              should_stop=None) -> dict | None:
        """What switching `heads` ((layer, head) pairs) off does (capabilities.pruning)."""
        raise ConfigError(f"{self.name} cannot switch heads off")

    def generate(self, device: str, text: str, k: int, should_stop=None, fit: bool = False):
        """A GenerationRun: the text, then `k` tokens of its own, with the real KV cache
        (capabilities.generation)."""
        raise ConfigError(f"{self.name} does not generate")


class CourseSource(ModelSource):
    """The course's random weights: one layer, the sliders as its settings (AppState computes it)."""

    name = RANDOM
    capabilities = Capabilities(course_settings=True, roles=False, pruning=False,
                                positions="sinusoidal")
    LABEL = QT_TRANSLATE_NOOP("learned.source", "random (course)")

    def label(self) -> str:
        return translate("learned.source", self.LABEL)


COURSE = CourseSource()
