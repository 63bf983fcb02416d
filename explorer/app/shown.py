"""What the window shows, decided once: the source, its layer, the heads picture, the KV trace.

Two producers make pictures: ``AppState`` (the course model's result, from the sliders) and
``LearnedState`` (a model source's analysis, one layer of it). ``Shown`` listens to both and
publishes the one the chosen source gives; the heads grid, the overview, the KV and Generate
tabs, the exports and the lessons read it and never ask which kind of source it is:

    shown.source         # the chosen ModelSource (app.model_source): sizes and capabilities
    shown.picture        # the HeadsPicture on the heads grid (app.pictures)
    shown.layer          # the layer it is of (0 for the course model's one layer)
    shown.analysis       # the model's latest Analysis (None for the course model, or before it)
    shown.kv_trace       # the KV tab's trace: the course model's or a decoder's real cache
    shown.focus_head     # the head enlarged (ViewState's)

Events: source_changed(ModelSource) once per change of source, after the learned state is
consistent again (pruning and generation reset, layer clamped); picture_changed(HeadsPicture)
whenever the shown picture changes (a new result of the chosen source, another layer);
kv_changed(trace or None). A producer's picture for a source that is not shown is dropped.

The learned state is attached after the first paint (`attach_learned`); until then the course
model is the source. Qt-free.
"""

from __future__ import annotations

from .models.model_source import COURSE, ModelSource
from .observable import Event
from .pictures import CoursePicture


class Shown:
    """The one shown state (see the module docstring)."""

    def __init__(self, state):
        self.source_changed = Event()
        self.picture_changed = Event()
        self.kv_changed = Event()
        self._state = state
        self._learned = None
        self._adapter = None  # app.models.adapter_state.AdapterState, once attached
        self._picture = None
        self._kv_trace = None
        self._words = None  # attach_words
        self._base = None   # the producer's picture before any grouping into words
        state.result_changed.connect(self._on_result)
        if state.result is not None:
            self._picture = CoursePicture(state.result)

    def attach_learned(self, learned) -> None:
        """The model sources' state (learned_wiring.install_learned)."""
        self._learned = learned
        learned.source_changed.connect(lambda _name: self._on_source())
        learned.picture_changed.connect(self._on_layer)

    def attach_adapter(self, adapter) -> None:
        """The adapters' state (learned_wiring.install_learned): for an adapted source it decides
        which picture of a layer is shown, the adapted model's, the base's or their difference
        (`picture_for`; None while that is being computed), and sends the new one when the
        choice changes."""
        self._adapter = adapter
        adapter.picture_changed.connect(lambda picture: self.course or self._show(picture))

    def _chosen(self, picture):
        return picture if self._adapter is None else self._adapter.picture_for(picture)

    def attach_words(self, words) -> None:
        """Words, not pieces (app.insight.words.WordsState): while its switch is on, the picture
        shown is `words.picture_for(picture)`, the producer's picture grouped into words (None
        while that runs in the background: the grid keeps what it shows until `words.changed`)."""
        self._words = words
        words.changed.connect(self._reshow)

    # ----- reading -----------------------------------------------------------------------------
    @property
    def source(self) -> ModelSource:
        return COURSE if self._learned is None else self._learned.model

    @property
    def course(self) -> bool:
        """The course model's sliders drive what is shown (its controls and info strip are shown)."""
        return self.source.capabilities.course_settings

    @property
    def picture(self):
        """The chosen source's picture on the heads grid; None until its first one arrives (a
        model loading: the grid still shows the previous source's pixels, the info strip says so)."""
        return self._picture

    @property
    def layer(self) -> int:
        return 0 if self.course else self._learned.layer

    @property
    def analysis(self):
        return None if self._learned is None or self.course else self._learned.analysis

    @property
    def kv_trace(self):
        """The course model's trace (AppState's) or the chosen decoder's real cache (set by the
        window's KV wiring; None until the KV tab stepped it, and for an encoder)."""
        return self._state.kv_trace if self.course else self._kv_trace

    @property
    def focus_head(self) -> int | None:
        return self._state.view.focus_head

    def is_current(self) -> bool:
        """The picture is the chosen source's latest for its present settings (the course model's
        result of the config as it is; the model's last analysis at the chosen layer): what a
        lesson waits for before it enlarges a head."""
        picture = self._picture
        if picture is None:
            return False
        if self.course:
            result = self._state.result
            return result is not None and picture.result is result and result.config == self._state.config
        analysis = self._learned.analysis
        return analysis is not None and picture.analysis is analysis and picture.layer == self._learned.layer

    # ----- changes -----------------------------------------------------------------------------
    def set_kv_trace(self, trace) -> None:
        """The trace the KV tab shows (the window's KV wiring decides which it is)."""
        if trace is not self._kv_trace:
            self._kv_trace = trace
            self.kv_changed.emit(trace)

    def _on_result(self, result) -> None:
        if self.course:
            self._show(CoursePicture(result))

    def _on_layer(self, picture) -> None:
        picture = None if self.course else self._chosen(picture)
        if picture is not None:
            self._show(picture)

    def _on_source(self) -> None:
        if self.course:
            picture = None if self._state.result is None else CoursePicture(self._state.result)
        else:
            picture = self._chosen(self._learned.picture())
        focus = self._state.view.focus_head
        if focus is not None:  # the head enlarged belonged to the old source
            self._state.view.focus_head = None
        self._picture = self._base = None  # until the new source's picture arrives (the grid keeps its pixels)
        self.source_changed.emit(self.source)
        if picture is not None:
            self._show(picture)

    def _reshow(self) -> None:
        if self._base is not None:
            self._show(self._base)

    def _show(self, picture) -> None:
        self._base = picture
        if self._words is not None:
            picture = self._words.picture_for(picture)
            if picture is None:
                return  # grouped in the background: _reshow shows it
        focus = self._state.view.focus_head
        if focus is not None and focus >= picture.n_heads:
            self._state.view.focus_head = None
        self._picture = picture
        self.picture_changed.emit(picture)
