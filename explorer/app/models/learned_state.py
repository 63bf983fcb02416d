"""The model source the window shows (app.sources): the course's random model, a pretrained one, the trained one.

``LearnedState`` holds the choice and what a pretrained model reads (text, sequence, seed, device)
and which layer is shown. Every change that needs the model runs the source's `analyse` as a job on its
own `Runner` channel ("learned-models": loading takes seconds and must never hold up the random
model's compute); the latest request wins (a second model chosen during a load wins: the first
load finishes, its result is dropped), and the layer slider only slices the last analysis (no
recompute). Errors (text too long, a model not installed) emit ``error`` and keep the last good
analysis and the user's text.

Events (main thread): source_changed(str), text_changed, sequence_changed, seed_changed,
device_changed, layer_changed(int), busy_changed(str: "" when idle), analysis_changed(Analysis, or
None: the source shown was replaced, a new trained model or a folder opened again),
picture_changed(LayerPicture), pruned_changed(frozenset of (layer, head)), effect_changed(dict or
None: what switching those heads off does, measured on a second channel),
generation_changed(GenerationRun, after `generate(k)`, a third channel), trained_changed(ModelSpec:
the Train tab's model was registered as the "trained" source, `set_trained`), error(str).
"""

from __future__ import annotations

import weakref
from functools import partial

from ...core.config import ConfigError
from .learned import SEQUENCES, Analysis, LayerPicture, layer_picture, register_trained
from ..i18n import error_text, translate
from ..observable import Event, Observable
from ..dispatch import post_to_main
from ..runner import Runner, describe_error
from .sources import (RANDOM, ModelSource, TrainedSource, analyse, generate, listed, prune, register_source,
                      source_for, sources_changed)
from ..course.state import Field
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

    def __init__(self, runner: Runner | None = None, job=None, prune_job=prune, generate_job=generate):
        """job: the analysis run (default: the source's load, with progress, then its analyse)."""
        super().__init__()
        for name in ("source_changed", "text_changed", "sequence_changed", "seed_changed",
                     "device_changed", "layer_changed", "padding_changed", "busy_changed", "analysis_changed",
                     "picture_changed", "pruned_changed", "effect_changed", "generation_changed",
                     "trained_changed", "progress_changed", "opened", "error"):
            setattr(self, name, Event())
        self._job = job
        self._own_runner = runner is None
        self._runner = runner if runner is not None else _learned_runner()
        self._channel = self._runner.channel(self._deliver, describe=_describe)
        self._prune_job = prune_job
        self._generate_job = generate_job
        self._effects = self._runner.channel(self._deliver_effect, describe=_describe)
        self.effect: dict | None = None  # the pruning effect for the current `pruned`
        self._generations = self._runner.channel(self._deliver_generation, describe=_describe)
        self._opener = self._runner.channel(self._deliver_opened, describe=_describe)
        self.progress: float | None = None  # the model's weights read so far (0..1), None: no load
        self._before_load = RANDOM         # the source to go back to when a load is cancelled
        self._open_hooks = (True, None, None)  # (remember, failed, opened) of the opener's request
        self.generation = None           # the latest GenerationRun of the chosen decoder
        self._analysis: Analysis | None = None
        self._analysis_of = ""  # the name of the source it is an analysis of (app.models.sources)
        self._loaded: set[tuple[str, str]] = set()
        self.busy = ""
        # before any view's slot: a removed source is left first; weakly, so the registry (module
        # level) keeps no state alive
        sources_changed.connect(_weak_slot(self, LearnedState._on_sources))

    # ----- reading -------------------------------------------------------------------------
    @property
    def model(self) -> ModelSource:
        """The chosen source (app.sources): its sizes, its capabilities, its runs."""
        return source_for(self.source)

    @property
    def analysis(self) -> Analysis | None:
        """The latest analysis of the chosen model (None for random, or before the first)."""
        if self._analysis is None or self._analysis_of != self.source:
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
        return (self._channel.is_idle() and self._effects.is_idle() and self._generations.is_idle()
                and self._opener.is_idle())

    # ----- changes (main thread) -----------------------------------------------------------
    def set_source(self, name: str, again: bool = False) -> bool:
        """Choose a source by name; one that cannot be used here (not installed, not trained yet,
        unknown) is refused with its message. Everything that belongs to the old source (pruned
        heads, generation, a layer past the new model's last) is reset first, and the changed
        fields are published together (`batch`): a listener of source_changed reads one
        consistent state. `again`: chosen anew even if it is the source now (its model was
        replaced under the same name: a new trained model, a folder opened again)."""
        try:
            source = source_for(name)
        except ConfigError as exc:
            self.error.emit(error_text(exc))
            return False
        problem = source.problem()
        if problem is not None:
            self.error.emit(error_text(problem))
            return False
        if name == self.source and not again:
            return True
        if self._before_load == name:  # Cancel never "goes back" to the source it cancels
            self._before_load = RANDOM
        if name != self.source and (self.analysis is not None or self.model.capabilities.course_settings):
            self._before_load = self.source  # what Cancel goes back to
        self._drop_generation()
        with self.batch():
            self.pruned = frozenset()
            self._set_effect(None)
            spec = source.spec()
            self.layer = 0 if spec is None else min(self.layer, spec.layers - 1)
            self.source = name
        self._effects.cancel()
        if source.capabilities.course_settings:
            self._channel.cancel()
            self._set_busy("")
        else:
            self._submit()
        return True

    def set_trained(self, model, config, steps: int) -> None:
        """The Train tab's model (after training or a load) becomes the "trained" source (a copy);
        shown again at once if it is the source now. Main thread, while no training chunk runs."""
        spec = register_trained(model, config, steps)
        self._forget_analysis_of(TrainedSource.name)
        if self.source == TrainedSource.name:
            # chosen anew: the old model's generation (the KV tab steps the new one), heads
            # switched off and a layer past the new model's last are dropped
            self.set_source(TrainedSource.name, again=True)
        self.trained_changed.emit(spec)

    def _forget_analysis_of(self, name: str) -> None:
        """The source `name` was replaced (a new trained model, a folder opened again): the
        analysis kept under its name is the old model's, whose layers may differ, so it is
        never shown or sliced again."""
        if self._analysis_of == name:
            self._analysis, self._analysis_of = None, ""
            self._loaded = {key for key in self._loaded if key[0] != name}  # "loading", not "running"
            if name == self.source:
                self.analysis_changed.emit(None)  # the overview's tiles, an adapter's comparison

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
        from ...core.learned.analysis import MAX_PADDING
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
        spec = self.model.spec()
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
        if not self.model.capabilities.generation:
            self.error.emit(translate("app.learned_state", "generation needs a decoder: choose smollm2-135m or the trained model as the model source"))
            return False
        self._set_busy(translate("app.learned_state", "generating with {model}…").format(model=self.model.title()))
        job = job or (partial(self._generate_job, fit=True) if fit else self._generate_job)
        self._generations.submit(job, self.source, self.device, self.text, k, cancellable=True)
        return True

    def recompute(self) -> None:
        self._submit()

    def _on_sources(self) -> None:
        """The chosen source was removed from the registry: back to the course model."""
        if self.source not in {s.name for s in listed()}:
            self.set_source(RANDOM)

    def shutdown(self, timeout: float = 0.0) -> bool:
        self._channel.cancel()
        self._effects.cancel()
        self._generations.cancel()
        self._opener.cancel()
        return self._runner.close(timeout) if self._own_runner else True

    # ----- the job -------------------------------------------------------------------------
    def _submit(self) -> None:
        if self.model.capabilities.course_settings:
            return
        key = (self.source, self.device)
        self._set_busy((translate("app.learned_state", "running {model}…") if key in self._loaded
                        else translate("app.learned_state", "loading {model}…")).format(model=self.model.title()))
        if self._job is None:
            job = partial(analyse, padding=self.padding, progress=self._progress_from_job)
        else:
            job = partial(self._job, padding=self.padding) if self.padding else self._job
        self._channel.submit(_tagged, job, self.source, self.device, self.text, self.sequence,
                             self.seed, cancellable=True)
        self._submit_effect()

    def _submit_effect(self) -> None:
        if not self.model.capabilities.pruning or not self.pruned:
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

    def _deliver(self, _generation: int, tagged, error: str | None) -> None:
        of, analysis = tagged if tagged is not None else (None, None)  # (source name, Analysis)
        self._posted_progress = None
        self._set_progress(None)
        if not (self._channel.is_busy() or self._generations.is_busy()):
            self._set_busy("")
        if error is not None:
            self.error.emit(error)
            return
        if analysis is None or of != self.source:
            return
        self._loaded.add((of, self.device))
        self._analysis, self._analysis_of = analysis, of
        self.layer = min(self.layer, analysis.spec.layers - 1)
        self.analysis_changed.emit(analysis)
        self.picture_changed.emit(layer_picture(analysis, self.layer))

    # ----- own models: a folder or a cached repo id; a load's progress and its Cancel --------
    def open_folder(self, where: str) -> None:
        """Open a model folder (or a repo id of the local Hugging Face cache) and choose it: its
        config and weight headers are read and checked on the learned runner (never the GUI
        thread); a problem is one `error` line and nothing changes."""
        from .checkpoint_source import source_for_folder
        self._set_busy(translate("app.learned_state", "opening {path}…").format(path=where))
        self._open_hooks = (True, None, None)
        self._opener.submit(_opened, source_for_folder, where, cancellable=True)

    def open_source(self, job, where: str, busy: str, remember: bool = True, failed=None, opened=None) -> None:
        """Open a source off the GUI thread as open_folder does, made by `job(where,
        should_stop=..., progress=...)` (Load adapter…: app.models.adapter_state.open_adapted),
        with the busy line `busy`, the progress bar and Cancel. `remember`: emit `opened` (the
        recent list); `failed(message)` hears a problem (also an `error`), `opened(source)` the
        source just before it is chosen."""
        self._set_busy(busy)
        self._open_hooks = (remember, failed, opened)
        self._opener.submit(_opened_by, partial(job, progress=self._progress_from_job), where, cancellable=True)

    def channel(self, deliver):
        """A channel of its own on the learned runner (app.models.adapter_state's jobs)."""
        return self._runner.channel(deliver, describe=_describe)

    def find_cached(self, recent: tuple[str, ...] = ()) -> None:
        """List the local Hugging Face cache's models and the `recent` folders that still open
        as sources (on the learned runner; one that no longer opens is left out quietly)."""
        self._open_hooks = (True, None, None)
        self._opener.submit(_opened, partial(_listed_sources, tuple(recent)), None, cancellable=True)

    def cancel_load(self) -> None:
        """Stop the model being loaded and go back to the source shown before it."""
        if self._channel.is_busy() or self._opener.is_busy():
            self._channel.cancel()
            self._opener.cancel()
            self._set_progress(None)
            self._set_busy("")
            if self.analysis is None:
                self.set_source(self._before_load)

    def _deliver_opened(self, _generation: int, opened, error: str | None) -> None:
        if not (self._channel.is_busy() or self._generations.is_busy()):
            self._set_busy("")
        remember, failed, opened_hook = self._open_hooks
        if error is not None:
            self._posted_progress = None
            self._set_progress(None)
            self.error.emit(error)
            if failed is not None:
                failed(error)
            return
        if opened is None:
            return
        where, sources = opened
        for source in sources:
            if where is None and source.name == self.source:
                continue  # a listing keeps the source shown now (and its analysis) as it is
            self._forget_analysis_of(source.name)  # before the views hear of the new source
            register_source(source)
        if where is not None and sources:
            if remember:
                self.opened.emit(where)
            if opened_hook is not None:
                opened_hook(sources[0])
            self.set_source(sources[0].name, again=True)

    def _progress_from_job(self, fraction: float) -> None:
        """The load's progress, from the runner's thread: at most every 2 % to the GUI thread."""
        shown = self._posted_progress
        if shown is None or fraction >= 1.0 or fraction - shown >= 0.02:
            self._posted_progress = fraction
            post_to_main(lambda: self._set_progress(fraction if fraction < 1.0 else None))

    _posted_progress: float | None = None

    def _set_progress(self, fraction: float | None) -> None:
        if fraction != self.progress:
            self.progress = fraction
            self.progress_changed.emit(fraction)

    def _set_busy(self, text: str) -> None:
        if text != self.busy:
            self.busy = text
            self.busy_changed.emit(text)


def _tagged(job, name: str, *args, **kwargs):
    """The analysis job's result with the name of the source it ran for: a folder's model is
    named by its path in the registry but its spec carries a short display name."""
    return name, job(name, *args, **kwargs)


def _listed_sources(recent: tuple[str, ...], _where) -> tuple:
    """The cache's sources, then the recent folders' (those that open), each once."""
    from ...core.config import ConfigError
    from .checkpoint_source import cached_sources, source_for_folder
    found = {source.name: source for source in cached_sources()}
    for where in recent:
        try:
            source = source_for_folder(where)
        except ConfigError:
            continue
        found.setdefault(source.name, source)
    return tuple(found.values())


def _opened(open_source, where, should_stop=None):
    """The opener's job: (where, sources) — one source for a folder, the cache's for None."""
    found = open_source(where)
    return where, (found,) if where is not None else tuple(found)


def _opened_by(job, where, should_stop=None):
    """open_source's job: (where, (the source job made,))."""
    return where, (job(where, should_stop=should_stop),)


def _weak_slot(owner, method):
    """A slot calling method(owner) while owner lives (and nothing after)."""
    ref = weakref.ref(owner)

    def slot():
        alive = ref()
        if alive is not None:
            method(alive)
    return slot


def _describe(exc: BaseException) -> str:
    """A ConfigError (text too long, not installed, …) as its own message; others typed."""
    return error_text(exc) if isinstance(exc, ConfigError) else describe_error(exc)


def _learned_runner() -> Runner:
    """A runner of its own, its BLAS/torch threads capped like the main compute's."""
    from ..course.compute import ComputeWorker, limit_torch_threads
    capped = []

    def around(threads):
        if threads is not None and not capped:
            if limit_torch_threads(threads):
                capped.append(True)

    return Runner("learned-models", setup=ComputeWorker._cap_blas, around_job=around)
