"""The window's PEFT adapters: Load adapter…, and base / adapted / difference of an adapted source.

``AdapterState(learned)`` sits beside the LearnedState (app.models.learned_state):

    adapters.problem()        # why the chosen source takes no adapter (a text), or None
    adapters.load(folder)     # read, check and load it off the GUI thread, then choose it
    adapters.set_mode("difference")   # "adapted", "base" or "difference": what the heads grid shows
    adapters.comparison       # app.models.adapter_compare.AdapterComparison of the analysis shown
    adapters.next_tokens      # NextTokenComparison of the latest generation (the Generate tab)

Loading: `open_adapted` runs on the learned runner through LearnedState.open_source (its busy
line, its progress bar and its Cancel): the adapter folder is read and checked against the chosen
source (AdaptedSource: no pickle, every value checked) and the adapted model loaded, so a bad
adapter is refused as one line before anything changes: the base stays chosen and shown. Only
then is the AdaptedSource registered (the Model source list shows "<base> + LoRA r=8") and chosen.

For an adapted source, each analysis of it gets the base's analysis of the same tokens (a job on
the learned runner: compare_heads); `picture_for` turns the LearnedState's picture of a layer
into the one for the mode (None while the base's is still being computed: the grid keeps what it
showed). Each generation of it gets the base's next-token probabilities (compare_next_tokens).
Events (main thread): mode_changed(str), comparison_changed(AdapterComparison or None),
picture_changed(picture: the mode's, after a mode change or a comparison),
next_tokens_changed(NextTokenComparison or None), failed(str: a load's one line), loaded(str).
Qt-free.
"""

from __future__ import annotations

from pathlib import Path

from ...core.config import ConfigError
from ..i18n import QT_TRANSLATE_NOOP, error_text, translate
from ..observable import Event, Field, Observable
from .adapter_compare import MODES, adapted_layer_picture, compare_heads, compare_next_tokens
from .adapter_source import AdaptedSource

CONTEXT = "app.adapter_state"
ALREADY = QT_TRANSLATE_NOOP("app.adapter_state", "{model} already has an adapter: choose its base model to load "
                            "another")
NO_ADAPTER = QT_TRANSLATE_NOOP("app.adapter_state", "An adapter goes on a bundled model or an own checkpoint: "
                               "choose one under Model source first")
NOT_NATIVE = QT_TRANSLATE_NOOP("app.adapter_state", "{model} goes through transformers: adapters need the app's "
                               "own forward")


def _mode(value: str) -> str:
    if value not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {value!r}")
    return value


def is_adapted(source) -> bool:
    return source.capabilities.adapters == "adapted"


def adapter_problem(source) -> str | None:
    """Why `source` cannot take an adapter, in the UI language; None when it can (a natively run
    own checkpoint, or a bundled model that is installed). AdaptedSource decides the same."""
    kind = source.capabilities.adapters  # declared by the source (model_source.Capabilities)
    if kind == "adapted":
        return translate(CONTEXT, ALREADY).format(model=source.base.title())
    if not kind:
        return translate(CONTEXT, NO_ADAPTER)
    problem = source.problem()
    if problem is not None:
        return error_text(problem)
    if kind == "through_transformers":
        return translate(CONTEXT, NOT_NATIVE).format(model=source.title())
    return None


def open_adapted(base, device: str, folder: str, should_stop=None, progress=None, problems=None):
    """The opener's job: AdaptedSource(base, folder) with its model loaded (cached), so every
    problem of the adapter is raised here, off the GUI thread, before anything is chosen.
    `problems`: a list the ConfigError is appended to (said again in another language)."""
    try:
        source = AdaptedSource(base, Path(folder))  # AdapterError: one line
        source.load(device, should_stop, progress)   # Cancelled, AdapterError, CheckpointError
    except ConfigError as exc:
        if problems is not None:
            problems.append(exc)
        raise
    return source


class AdapterState(Observable):
    """See the module docstring."""

    mode = Field("adapted", _mode)

    def __init__(self, learned):
        super().__init__()
        for name in ("mode_changed", "comparison_changed", "picture_changed", "next_tokens_changed",
                     "failed", "loaded"):
            setattr(self, name, Event())
        self._learned = learned
        self._heads = learned.channel(self._deliver_comparison)
        self._next = learned.channel(self._deliver_next_tokens)
        self.comparison = None
        self.next_tokens = None
        self.last_error = ""           # the last load's problem ("" after a load that worked)
        self.last_exception = None     # ... as its ConfigError, when it was one (for another language)
        self._problems: list = []      # the running load's ConfigError (open_adapted appends it)
        learned.source_changed.connect(lambda _name: self._on_source())
        learned.analysis_changed.connect(self._on_analysis)
        learned.generation_changed.connect(self._on_generation)

    # ----- reading ---------------------------------------------------------------------------
    @property
    def source(self):
        """The chosen source when it carries an adapter, else None."""
        source = self._learned.model
        return source if is_adapted(source) else None

    def problem(self) -> str | None:
        return adapter_problem(self._learned.model)

    def shown_layer(self) -> int:
        return self._learned.layer

    def is_idle(self) -> bool:
        return self._heads.is_idle() and self._next.is_idle()

    def picture_for(self, picture):
        """The picture the heads grid shows for the LearnedState's `picture` of a layer: itself
        for a source without an adapter; else the mode's (None until the base's analysis of
        those tokens is there)."""
        if picture is None or self.source is None:
            return picture
        c = self.comparison
        if c is not None and c.adapted is picture.analysis:
            return c.picture(self.mode, picture.layer)
        if self.mode == "adapted":  # prefix tuning's virtual query rows empty
            return adapted_layer_picture(picture.analysis, picture.layer)
        return None

    # ----- changes (main thread) ---------------------------------------------------------------
    def load(self, folder: str) -> bool:
        """Load adapter…: the adapter in `folder` on the chosen source (module docstring); False
        (with `failed`) when the chosen source takes none."""
        problem = self.problem()
        if problem is not None:
            self._problems = []
            self._fail(problem)
            return False
        from functools import partial
        learned = self._learned
        self._problems = []
        job = partial(open_adapted, learned.model, learned.device, problems=self._problems)
        name = Path(folder).name or str(folder)
        busy = translate("app.adapter_state", "loading the adapter {name}…").format(name=name)
        learned.open_source(job, str(folder), busy, remember=False, failed=self._fail, opened=self._opened)
        return True

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self._show()

    def _opened(self, source) -> None:
        self.last_error, self.last_exception = "", None
        self.mode = "adapted"  # a new adapter: first as it is
        self.loaded.emit(source.name)

    def _fail(self, message: str) -> None:
        self.last_error = message
        self.last_exception = self._problems[-1] if self._problems else None
        self.failed.emit(message)

    def _show(self) -> None:
        picture = self.picture_for(self._learned.picture())
        if picture is not None and self.source is not None:
            self.picture_changed.emit(picture)

    def _on_source(self) -> None:
        self._heads.cancel()
        self._next.cancel()
        self._set_comparison(None)
        self._set_next_tokens(None)

    def _on_analysis(self, analysis) -> None:
        if analysis is None:  # the source shown was replaced (opened again): nothing to compare yet
            self._on_source()
            return
        source = self.source
        if source is None:
            return
        learned = self._learned
        self._heads.submit(compare_heads, source, learned.device, analysis, learned.seed, cancellable=True)

    def _on_generation(self, run) -> None:
        source = self.source
        self._set_next_tokens(None)
        if source is None or run is None or run.model != source.name:
            self._next.cancel()
            return
        self._next.submit(compare_next_tokens, source, self._learned.device, run, cancellable=True)

    def _deliver_comparison(self, _generation: int, comparison, error: str | None) -> None:
        if error is not None:
            self._learned.error.emit(error)
            return
        if comparison is None or comparison.adapted is not self._learned.analysis:
            return
        self._set_comparison(comparison)
        if self.mode != "adapted":  # the adapted picture is shown already
            self._show()

    def _deliver_next_tokens(self, _generation: int, compared, error: str | None) -> None:
        if error is not None:
            self._learned.error.emit(error)
        elif compared is not None and compared.run is self._learned.generation:
            self._set_next_tokens(compared)

    def _set_comparison(self, comparison) -> None:
        if comparison is not self.comparison:
            self.comparison = comparison
            self.comparison_changed.emit(comparison)

    def _set_next_tokens(self, compared) -> None:
        if compared is not self.next_tokens:
            self.next_tokens = compared
            self.next_tokens_changed.emit(compared)
