"""The Inside attention tab's state: what it shows, and the latest numbers of each view.

    insight = InsightState(shown, app_state, learned)   # app.shown, the course AppState, LearnedState
    insight.set_active(True)                             # the tab is shown: its view computes
    insight.view = "rollout"                             # sinks, rollout, values, lens
    insight.result("rollout")                            # RolloutView of the shown source, or None
    insight.message("values")                            # why a view has nothing ("" when it has)

Each choice is a field (one control, one field); the view's job (app.insight.jobs) runs on the
insight runner, one channel per view, latest request wins; nothing computes while the tab is
hidden. The inputs follow the shown source (`Shown.picture_changed`): a layer change or the
words switch keep them (same analysis), a new analysis or course result makes new ones.

Events (main thread): each field's `<name>_changed`, inputs_changed(Inputs or None),
layer_changed(int: the window's layer, the value view's), result_changed(view), busy_changed(str:
the view computing, "" when idle).
"""

from __future__ import annotations

from ..observable import Event, Field, Observable
from ..runner import Runner
from .inputs import VARIANTS, Inputs, inputs_now
from .jobs import LENS_POSITIONS, flow_view, lens_view, rollout_view, sinks_view, values_view

VIEWS = ("sinks", "rollout", "values", "lens")
JOBS = {"sinks": sinks_view, "rollout": rollout_view, "values": values_view, "lens": lens_view}


def _one_of(choices):
    def check(value):
        if value not in choices:
            raise ValueError(f"choose one of {', '.join(choices)}, not {value!r}")
        return value
    return check


class InsightState(Observable):
    """The tab's choices and results (module docstring)."""

    view = Field("sinks", _one_of(VIEWS))
    variant = Field("as_is", _one_of(VARIANTS))
    rollout_layer = Field(0, int)
    flow = Field(False, bool)       # attention flow instead of rollout (where n is small enough)
    head = Field(0, int)            # the head the value view enlarges
    lens_start = Field(0, int)      # the lens table's first position

    def __init__(self, shown, state, learned=None, runner: Runner | None = None):
        super().__init__()
        for name in ("view_changed", "variant_changed", "rollout_layer_changed", "flow_changed", "head_changed",
                     "lens_start_changed", "inputs_changed", "layer_changed", "result_changed", "busy_changed"):
            setattr(self, name, Event())
        self._shown, self._state, self._learned = shown, state, learned
        self._own_runner = runner is None
        self.runner = runner if runner is not None else insight_runner()
        self._channels = {view: self.runner.channel(
            lambda _g, value, error, view=view: self._deliver(view, value, error)) for view in (*VIEWS, "flow")}
        self.active = False
        self.inputs: Inputs | None = None
        self.busy = ""
        self._serial = 0         # one per new inputs: what the results are keyed by
        self._layer_seen = 0
        self._asked: dict = {}   # view -> key of the newest request
        self._done: dict = {}    # view -> (key, value or None, message)
        shown.picture_changed.connect(lambda _p: self.refresh())
        shown.source_changed.connect(lambda _s: self.refresh())
        for name in ("view_changed", "variant_changed", "flow_changed", "lens_start_changed"):
            getattr(self, name).connect(lambda _v: self._want())
        self.rollout_layer_changed.connect(lambda _v: self.flow and self._want())
        self.refresh()

    # ----- reading ---------------------------------------------------------------------------
    @property
    def layer(self) -> int:
        """The layer the window shows (the value view's)."""
        return min(self._shown.layer, self.inputs.layers - 1) if self.inputs is not None else 0

    @property
    def device(self) -> str:
        return self._learned.device if self._learned is not None else "cpu"

    def result(self, view: str):
        """The view's latest numbers for the present inputs and choices, or None."""
        done = self._done.get(view)
        return done[1] if done is not None and done[0] == self._key(view) else None

    def message(self, view: str) -> str:
        """Why the view has no numbers (its job's one line), "" when it has or is computing."""
        done = self._done.get(view)
        return done[2] if done is not None and done[0] == self._key(view) else ""

    def pending(self, view: str) -> bool:
        """The view's numbers for the present choices are being computed."""
        done = self._done.get(view)
        key = self._key(view)
        return key is not None and self._asked.get(view) == key and (done is None or done[0] != key)

    def is_idle(self) -> bool:
        return all(channel.is_idle() for channel in self._channels.values())

    # ----- changes -----------------------------------------------------------------------------
    def set_active(self, on: bool) -> None:
        """The tab is shown (compute what it shows) or hidden (compute nothing)."""
        self.active = bool(on)
        self._want()

    def refresh(self) -> None:
        """Follow the shown source: new inputs when its analysis or course result changed."""
        inputs = inputs_now(self._shown, self._state)
        if not _same(inputs, self.inputs):
            self._set_inputs(inputs)
        if self.layer != self._layer_seen:
            self._layer_seen = self.layer
            self.layer_changed.emit(self.layer)
        self._want()

    def shutdown(self, timeout: float = 0.0) -> bool:
        for channel in self._channels.values():
            channel.cancel()
        return self.runner.close(timeout) if self._own_runner else True

    def _set_inputs(self, inputs: Inputs | None) -> None:
        old = self.inputs
        self.inputs = inputs
        self._serial += 1
        if inputs is not None:
            with self.batch():
                if old is None or old.layers != inputs.layers:
                    self.rollout_layer = inputs.layers - 1
                self.rollout_layer = min(self.rollout_layer, inputs.layers - 1)
                self.head = min(self.head, inputs.attentions.shape[1] - 1)
                if old is None or old.n_real != inputs.n_real:
                    self.lens_start = max(0, inputs.n_real - LENS_POSITIONS)
        self.inputs_changed.emit(inputs)

    def _key(self, view: str) -> tuple | None:
        """What a view's numbers depend on: the inputs (by identity) and its own choices."""
        if self.inputs is None:
            return None
        params = {"sinks": (self.variant, self.device), "values": (self.device,),
                  "lens": (self.lens_start, self.device), "flow": (self.rollout_layer,)}.get(view, ())
        return (self._serial, *params)

    def _want(self) -> None:
        """Submit the shown view's job (and flow's) unless its numbers are there or asked for."""
        if not self.active or self.inputs is None:
            return
        wanted = [self.view] + (["flow"] if self.view == "rollout" and self.flow else [])
        for view in wanted:
            key = self._key(view)
            if self._asked.get(view) == key:
                continue
            self._asked[view] = key
            self._channels[view].submit(self._job(view), cancellable=True)
            self._set_busy(self.view)

    def _job(self, view: str):
        inputs, device = self.inputs, self.device
        if view == "flow":
            layer = self.rollout_layer
            return lambda should_stop=None: flow_view(inputs, layer, should_stop)
        if view == "sinks":
            variant = self.variant
            return lambda should_stop=None: sinks_view(inputs, variant, device, should_stop)
        if view == "lens":
            start = self.lens_start
            return lambda should_stop=None: lens_view(inputs, device, start, should_stop=should_stop)
        if view == "values":
            return lambda should_stop=None: values_view(inputs, device, should_stop)
        return lambda should_stop=None: JOBS[view](inputs, should_stop)

    def _deliver(self, view: str, value, error: str | None) -> None:
        self._done[view] = (self._asked.get(view), value, error or "")
        if all(channel.is_idle() or channel is self._channels[view] for channel in self._channels.values()):
            self._set_busy("")
        self.result_changed.emit(view)

    def _set_busy(self, text: str) -> None:
        if text != self.busy:
            self.busy = text
            self.busy_changed.emit(text)


def _same(a: Inputs | None, b: Inputs | None) -> bool:
    """The same numbers to compute from: the same source and the same analysis or course result."""
    if a is None or b is None:
        return a is b
    return a.source == b.source and a.course is b.course and a.analysis is b.analysis


def insight_runner() -> Runner:
    """A runner of its own ("insight"), its BLAS threads capped like the main compute's and torch's
    once loaded (the models' runs here are small: they must not crowd the GUI's compute)."""
    from ..course.compute import ComputeWorker, limit_torch_threads
    capped = []

    def around(threads):
        if threads is not None and not capped and limit_torch_threads(threads):
            capped.append(True)

    return Runner("insight", setup=ComputeWorker._cap_blas, around_job=around)
