"""The model sources there are (the registry), and the pretrained and trained ones.

The interface (ModelSource, Capabilities) and the course model's source are in app.model_source;
here are the registry (`listed`, `source_for`, `register_source`, `sources_changed`), the
pretrained models' source (core.learned.MODELS, run by the app's own forward) and the trained
model's ("trained", registered as the Train tab trains). A test or a later feature adds its own
with `register_source` (a few lines: a spec and an `analyse`), and every view shows it.

Qt-free; torch is imported only inside the runs (through core.learned).
"""

from __future__ import annotations

import time

from ...core.config import ConfigError
from ...core.learned import MODELS, ModelSpec, install_problem, load_model
from ..i18n import QT_TRANSLATE_NOOP, translate
from .learned import (RANDOM_LENGTH, TRAINED, Analysis, analyse_trained, analysis_of, prune_trained,
                      sequence_tokens, trained_spec)
from .model_source import COURSE, RANDOM, Capabilities, CourseSource, ModelSource
from ..observable import Event
from ...core.cancel import Cancelled

__all__ = ["RANDOM", "TRAINED", "Capabilities", "CourseSource", "ModelSource", "PretrainedSource",
           "TrainedSource", "analyse", "generate", "listed", "prune", "register_source", "source_for",
           "sources_changed", "spec_of", "unregister_source"]


class PretrainedSource(ModelSource):
    """A model whose weights ship in a pip package (core.learned.MODELS), run by the app's forward."""

    def __init__(self, spec: ModelSpec):
        self._spec = spec
        self.name = spec.name
        decoder = spec.kind == "decoder"
        self.capabilities = Capabilities(generation=decoder, positions="rope" if decoder else "learned",
                                         adapters="bundled")

    def spec(self) -> ModelSpec:
        return self._spec

    def label(self) -> str:
        if self.problem() is not None:
            return translate("learned.source", "{name} (not installed)").format(name=self.name)
        kind = {"encoder": translate("learned.source", "encoder"),
                "decoder": translate("learned.source", "decoder")}[self._spec.kind]
        return f"{self.name} ({kind})"

    def description(self) -> str:
        return translate("models", self._spec.description)

    def problem(self) -> Exception | None:
        return install_problem(self._spec)

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None,
                random_length=None):
        """Load the model on `device` (cached) and analyse the sequence; padding tokens are appended
        and masked as keys (core's run); head roles are scored on the real tokens only."""
        start = time.perf_counter()
        model = load_model(self.name, device)
        loaded = time.perf_counter()
        if should_stop is not None and should_stop():
            return None  # a newer request waits: it would be dropped anyway
        tokens = sequence_tokens(model, text, sequence, seed, random_length or RANDOM_LENGTH)
        return analysis_of(model, self._spec, tokens, text, sequence, padding, loaded - start)

    def load(self, device="cpu", should_stop=None, progress=None):
        return load_model(self.name, device)  # ~1 s the first time (three files, no progress)

    def prune(self, device, text, sequence, seed, heads, should_stop=None):
        """What switching `heads` off does (core's prune_effect: decoder loss and next-token top 5,
        encoder sentence-vector cosine)."""
        from ...core.learned.pruning import mask_without, prune_effect
        model = load_model(self.name, device)
        if should_stop is not None and should_stop():
            return None
        tokens = sequence_tokens(model, text, sequence, seed)
        effect = prune_effect(model, tokens, mask_without(model, sorted(heads)))
        return {**effect, "model": self.name, "heads": tuple(sorted(heads))}

    def generate(self, device, text, k, should_stop=None, fit=False):
        if not self.capabilities.generation:
            return super().generate(device, text, k, should_stop, fit)
        from .learned_generation import generate_pretrained
        return generate_pretrained(self.name, device, text, k, should_stop, fit)


class TrainedSource(ModelSource):
    """The Train tab's model (app.learned.register_trained), its tokens integers."""

    name = TRAINED
    capabilities = Capabilities(integer_tokens=True, generation=True, mlp=False)

    def spec(self) -> ModelSpec | None:
        return trained_spec()

    @property
    def kind(self) -> str:
        return "decoder"

    def label(self) -> str:
        return translate("learned.source", "trained (this session)")

    def title(self) -> str:
        return translate("window.learned_export", "the trained model")

    def description(self) -> str:
        spec = trained_spec()
        return translate("learned.source", "train or load a model in the Train tab first") if spec is None \
            else spec.description

    def problem(self) -> Exception | None:
        if trained_spec() is None:
            return ConfigError.of(QT_TRANSLATE_NOOP("core", "no trained model yet: train or load one in the Train tab"))
        return None

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None,
                random_length=None):
        return analyse_trained(device, text, sequence, seed)

    def prune(self, device, text, sequence, seed, heads, should_stop=None):
        return {**prune_trained(device, text, sequence, seed, heads), "model": self.name,
                "heads": tuple(sorted(heads))}

    def generate(self, device, text, k, should_stop=None, fit=False):
        from .learned_generation import generate_trained
        return generate_trained(device, text, k, fit)


# ----- the registry ------------------------------------------------------------------------------
_SOURCES: dict[str, ModelSource] = {}
sources_changed = Event()  # emitted (no arguments) when a source is registered or removed


def _builtin() -> None:
    _SOURCES[RANDOM] = COURSE
    for spec in MODELS.values():
        _SOURCES[spec.name] = PretrainedSource(spec)
    _SOURCES[TRAINED] = TrainedSource()


def listed() -> tuple[ModelSource, ...]:
    """Every source, in the Model source list's order: the course model, the pretrained models,
    any registered later, the trained model last."""
    ordered = [s for name, s in _SOURCES.items() if name != TRAINED]
    return (*ordered, _SOURCES[TRAINED])


def source_for(name: str) -> ModelSource:
    """The source called `name`; ConfigError (listing the choices) for an unknown name."""
    source = _SOURCES.get(name)
    if source is None:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown model {value} (choose from {choices})"),
                             value=repr(name), choices=", ".join(n for n in _SOURCES if n != RANDOM))
    return source


def spec_of(name: str) -> ModelSpec | None:
    """The sizes of the source called `name` (None: the course model, or unknown)."""
    source = _SOURCES.get(name)
    return None if source is None else source.spec()


def register_source(source: ModelSource) -> None:
    """Add (or replace) a source; the Model source list shows it at once."""
    if not source.name or source.name in (RANDOM, TRAINED):
        raise ValueError(f"a source needs its own name, not {source.name!r}")
    _SOURCES[source.name] = source
    sources_changed.emit()


def unregister_source(name: str) -> None:
    """Remove a source added with register_source (a built-in one stays)."""
    if name in (RANDOM, TRAINED) or name in MODELS or _SOURCES.pop(name, None) is None:
        return
    sources_changed.emit()


def analyse(name: str, device: str, text: str, sequence: str = "text", seed: int = 0,
            should_stop=None, padding: int = 0, progress=None) -> Analysis | None:
    """The learned runner's job (LearnedState): the source loads (reporting `progress` while it
    reads its weights), then analyses."""
    source = source_for(name)
    try:
        source.load(device, should_stop, progress)
    except Cancelled:
        return None  # a newer request, or Cancel: nothing half loaded is kept
    if should_stop is not None and should_stop():
        return None
    return source.analyse(device, text, sequence, seed, padding, should_stop)


def prune(name: str, device: str, text: str, sequence: str, seed: int, heads: frozenset,
          should_stop=None) -> dict | None:
    return source_for(name).prune(device, text, sequence, seed, heads, should_stop)


def generate(name: str, device: str, text: str, k: int, should_stop=None, fit: bool = False):
    return source_for(name).generate(device, text, k, should_stop, fit)


_builtin()
