"""The model source the window shows: "random" (the course's sliders, AppState) or a pretrained model.

``LearnedState`` holds the choice and what a pretrained model reads (text, sequence, seed, device)
and which layer is shown. Every change that needs the model runs `learned.analyse` as a job on its
own `Runner` channel ("learned-models": loading takes seconds and must never hold up the random
model's compute); the latest request wins (a second model chosen during a load wins: the first
load finishes, its result is dropped), and the layer slider only slices the last analysis (no
recompute). Errors (text too long, a model not installed) emit ``error`` and keep the last good
analysis and the user's text.

Events (main thread): source_changed(str), text_changed, sequence_changed, seed_changed,
device_changed, layer_changed(int), busy_changed(str: "" when idle), analysis_changed(Analysis),
picture_changed(LayerPicture), pruned_changed(frozenset of (layer, head)), effect_changed(dict or
None: what switching those heads off does, measured on a second channel),
generation_changed(GenerationRun, after `generate(k)`, a third channel), trained_changed(ModelSpec:
the Train tab's model was registered as the "trained" source, `set_trained`), error(str).
"""

from __future__ import annotations

from functools import partial

from ..core.config import ConfigError
from ..core.learned import get_spec, install_problem
from .learned import (SEQUENCES, TRAINED, Analysis, LayerPicture, analyse, layer_picture, prune,
                      register_trained, spec_of, trained_spec)
from .i18n import error_text, translate
from .observable import Event, Observable
from .runner import Runner, describe_error
from .state import Field

RANDOM = "random"
DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."


def _sequence(value: str) -> str:
    if value not in SEQUENCES:
        raise ValueError(f"sequence must be one of {SEQUENCES}, not {value!r}")
    return value


class LearnedState(Observable):
    """The chosen source and the latest analysis of a pretrained model (see module docstring)."""

    source = Field(RANDOM)
    text = Field(DEFAULT_TEXT, str)
    sequence = Field("text", _sequence)
    seed = Field(0, int)
    device = Field("cpu", str)
    layer = Field(0, int)
    pruned = Field(frozenset(), frozenset)   # (layer, head) pairs switched off
    padding = Field(0, int)                  # padding tokens appended and masked as keys

    def __init__(self, runner: Runner | None = None, job=analyse, prune_job=prune):
        super().__init__()
        for name in ("source_changed", "text_changed", "sequence_changed", "seed_changed",
                     "device_changed", "layer_changed", "padding_changed", "busy_changed", "analysis_changed",
                     "picture_changed", "pruned_changed", "effect_changed", "generation_changed",
                     "trained_changed", "error"):
            setattr(self, name, Event())
        self._job = job
        self._own_runner = runner is None
        self._runner = runner if runner is not None else _learned_runner()
        self._channel = self._runner.channel(self._deliver, describe=_describe)
        self._prune_job = prune_job
        self._effects = self._runner.channel(self._deliver_effect, describe=_describe)
        self.effect: dict | None = None  # the pruning effect for the current `pruned`
        self._generations = self._runner.channel(self._deliver_generation, describe=_describe)
        self.generation = None           # the latest GenerationRun of the chosen decoder
        self._analysis: Analysis | None = None
        self._loaded: set[tuple[str, str]] = set()
        self.busy = ""

    # ----- reading -------------------------------------------------------------------------
    @property
    def is_random(self) -> bool:
        return self.source == RANDOM

    @property
    def analysis(self) -> Analysis | None:
        """The latest analysis of the chosen model (None for random, or before the first)."""
        if self._analysis is None or self._analysis.spec.name != self.source:
            return None
        return self._analysis

    def picture(self) -> LayerPicture | None:
        analysis = self.analysis
        return None if analysis is None else layer_picture(analysis, self.layer)

    @property
    def is_generating(self) -> bool:
        """A generation job is queued or running."""
        return self._generations.is_busy()

    def is_idle(self) -> bool:
        return self._channel.is_idle() and self._effects.is_idle() and self._generations.is_idle()

    # ----- changes (main thread) -----------------------------------------------------------
    def set_source(self, name: str) -> bool:
        """RANDOM or a model name; a model not installed is refused with its install command."""
        if name == TRAINED:
            if trained_spec() is None:
                self.error.emit(translate("app.learned_state", "no trained model yet: train or load one in the Train tab"))
                return False
        elif name != RANDOM:
            try:
                spec = get_spec(name)
            except ConfigError as exc:
                self.error.emit(error_text(exc))
                return False
            problem = install_problem(spec)
            if problem is not None:
                self.error.emit(error_text(problem))
                return False
        if name == self.source:
            return True
        self.source = name
        self.set_pruned(frozenset())
        self._drop_generation()
        if name == RANDOM:
            self._channel.cancel()
            self._set_busy("")
        else:
            self._submit()
        return True

    def set_trained(self, model, config, steps: int) -> None:
        """The Train tab's model (after training or a load) becomes the "trained" source (a copy);
        shown again at once if it is the source now. Main thread, while no training chunk runs."""
        register_trained(model, config, steps)
        self.trained_changed.emit(trained_spec())
        if self.source == TRAINED:
            self._drop_generation()  # stepped by the model before: the KV tab steps the new one
            self._submit()

    def _drop_generation(self) -> None:
        if self.generation is not None or self._generations.is_busy():
            self._generations.cancel()
            self.generation = None
            self.generation_changed.emit(None)

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self._submit()

    def set_sequence(self, sequence: str) -> None:
        if sequence != self.sequence:
            self.sequence = sequence
            self._submit()

    def set_seed(self, seed: int) -> None:
        if seed != self.seed:
            self.seed = seed
            if self.sequence == "random":
                self._submit()

    def set_padding(self, count: int) -> None:
        """Append `count` padding tokens (masked as keys), as in a batch with a longer sentence."""
        from ..core.learned.analysis import MAX_PADDING
        count = max(0, min(int(count), MAX_PADDING))
        if count != self.padding:
            self.padding = count
            self._submit()

    def set_device(self, device: str) -> None:
        device = "cuda" if device.startswith("cuda") else "cpu"
        if device != self.device:
            self.device = device
            self._submit()

    def set_layer(self, layer: int) -> None:
        spec = spec_of(self.source)
        if spec is not None:
            layer = max(0, min(layer, spec.layers - 1))
        if layer != self.layer:
            self.layer = layer
            picture = self.picture()
            if picture is not None:
                self.picture_changed.emit(picture)

    def set_pruned(self, heads) -> None:
        """Switch these (layer, head) pairs off (the rest on) and measure the effect."""
        heads = frozenset(heads)
        if heads == self.pruned:
            return
        self.pruned = heads
        self._submit_effect()

    def toggle_head(self, layer: int, head: int) -> None:
        self.set_pruned(self.pruned ^ {(layer, head)})

    def generate(self, k: int, job=None, fit: bool = False) -> bool:
        """Step the chosen decoder through the text and `k` tokens of its own (off the GUI thread);
        fit: fewer if the model's length limit leaves less room (the KV tab's own stepping)."""
        spec = spec_of(self.source)
        if spec is None or spec.kind != "decoder":
            self.error.emit(translate("app.learned_state", "generation needs a decoder: choose smollm2-135m or the trained model as the model source"))
            return False
        from .learned_generation import generate
        self._set_busy(translate("app.learned_state", "generating with {model}…").format(model=self.source))
        job = job or (partial(generate, fit=True) if fit else generate)
        self._generations.submit(job, self.source, self.device, self.text, k, cancellable=True)
        return True

    def recompute(self) -> None:
        self._submit()

    def shutdown(self, timeout: float = 0.0) -> bool:
        self._channel.cancel()
        self._effects.cancel()
        self._generations.cancel()
        return self._runner.close(timeout) if self._own_runner else True

    # ----- the job -------------------------------------------------------------------------
    def _submit(self) -> None:
        if self.is_random:
            return
        key = (self.source, self.device)
        self._set_busy((translate("app.learned_state", "running {model}…") if key in self._loaded
                        else translate("app.learned_state", "loading {model}…")).format(model=self.source))
        job = partial(self._job, padding=self.padding) if self.padding else self._job
        self._channel.submit(job, self.source, self.device, self.text, self.sequence,
                             self.seed, cancellable=True)
        self._submit_effect()

    def _submit_effect(self) -> None:
        if self.is_random or not self.pruned:
            self._effects.cancel()
            self._set_effect(None)
            return
        self._effects.submit(self._prune_job, self.source, self.device, self.text, self.sequence,
                             self.seed, self.pruned, cancellable=True)

    def _deliver_effect(self, _generation: int, effect: dict | None, error: str | None) -> None:
        if error is not None:
            self.error.emit(error)
        elif effect is not None and effect["model"] == self.source:
            self._set_effect(effect)

    def _deliver_generation(self, _generation: int, run, error: str | None) -> None:
        if not (self._channel.is_busy() or self._generations.is_busy()):
            self._set_busy("")
        if error is not None:
            self.error.emit(error)
        elif run is not None and run.model == self.source:
            self.generation = run
            self.generation_changed.emit(run)

    def _set_effect(self, effect: dict | None) -> None:
        if effect is not self.effect:
            self.effect = effect
            self.effect_changed.emit(effect)

    def _deliver(self, _generation: int, analysis: Analysis | None, error: str | None) -> None:
        if not (self._channel.is_busy() or self._generations.is_busy()):
            self._set_busy("")
        if error is not None:
            self.error.emit(error)
            return
        if analysis is None or analysis.spec.name != self.source:
            return
        self._loaded.add((analysis.spec.name, self.device))
        self._analysis = analysis
        self.layer = min(self.layer, analysis.spec.layers - 1)
        self.analysis_changed.emit(analysis)
        self.picture_changed.emit(layer_picture(analysis, self.layer))

    def _set_busy(self, text: str) -> None:
        if text != self.busy:
            self.busy = text
            self.busy_changed.emit(text)


def _describe(exc: BaseException) -> str:
    """A ConfigError (text too long, not installed, …) as its own message; others typed."""
    return error_text(exc) if isinstance(exc, ConfigError) else describe_error(exc)


def _learned_runner() -> Runner:
    """A runner of its own, its BLAS/torch threads capped like the main compute's."""
    from .compute import ComputeWorker, limit_torch_threads
    capped = []

    def around(threads):
        if threads is not None and not capped:
            if limit_torch_threads(threads):
                capped.append(True)

    return Runner("learned-models", setup=ComputeWorker._cap_blas, around_job=around)
