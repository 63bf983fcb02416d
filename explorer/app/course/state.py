"""The one source of truth: the current config, the latest picture, and how it is viewed.

``AppState`` holds the validated ``AttentionConfig`` and the latest good ``AttentionResult``.
Controls change it only through ``update(**changes)`` / ``set_config``, which validate (the one
``core.validate``) and, on success, emit ``config_changed`` and send the config to the worker.
Results come back through ``result_changed``. An invalid change emits ``error`` and keeps the
old config, so the state is always valid.

Results: the newest finished result is shown, never one older than what is on screen. While a
slider is dragged this may be an in-between value (the picture keeps moving); once the burst
ends the last request's result always arrives (``state.result.config == state.computed_config``,
which is ``state.config`` unless automatic precision is on, below).

Automatic precision (``auto_precision=True``, the interactive window): where no number is shown
(at least AUTO_FLOAT32_MIN_TOKENS tokens and cell values not forced on), a float64 config is
computed in float32 (``computed_config``): at 512 tokens x d_model 512 x 16 heads a float64
forward pass takes ~77 ms on 2 cores, float32 ~31 ms, and the colours are the same to the eye.
The info strip says so. The course preset, every size below the threshold and any view with
values shown stay float64 exact; exports rebuilt from a config (CLI, ``from_window.window_png``)
never use it.

A compute that fails (e.g. ``DeviceUnavailableError``, any torch/CUDA exception) emits ``error``,
keeps the last good result, and, when a torch backend failed, falls back to numpy on the CPU.

``ViewState`` holds how the picture is drawn (colormap, show values, presentation, PE rows, KV
head, focused head): not part of the computation, so changing it never recomputes.

Qt-free: the events are ``observable.Event``s, emitted on the main thread (the compute's results
reach it through ``dispatch.post_to_main``); widgets connect to them as to Qt signals.
"""

from __future__ import annotations

from ...core import AttentionConfig, ConfigError, validate
from .compute import ComputeWorker, Outcome
from ..i18n import error_text
from ..observable import Event, Field, Observable  # noqa: F401 (Field: its old home)
from ..settings import SHOW_VALUES_MODES, check_setting  # noqa: F401 (SHOW_VALUES_MODES: its old home)
from .topic_settings import TopicSettings

AUTO_FLOAT32_MIN_TOKENS = 64  # well above where "auto" prints cell values (12 tokens)


def auto_precision_config(config: AttentionConfig, show_values: str) -> AttentionConfig:
    """`config` in float32 when its float64 numbers would not be displayed: at least
    AUTO_FLOAT32_MIN_TOKENS tokens and values not forced on; otherwise `config` itself."""
    if (config.dtype == "float64" and config.n_tokens >= AUTO_FLOAT32_MIN_TOKENS
            and show_values != "on"):
        return config.replace(dtype="float32")
    return config


def _show_values_mode(mode: str) -> str:
    return check_setting("show_values", mode)  # the one table of valid settings (app.settings)


class ViewState(Observable):
    """How the views draw (not part of the computation: changing it never recomputes).

    Shared by the controls, the views, the menus and the export: colormap, show values,
    presentation mode, the rows of the PE table and its curve columns, the KV panel's head
    choice (0 = all heads, h + 1 = head h) and step, and the head enlarged in the heads grid (None = the
    grid). One control listens to one field and writes back through its setter; setting an
    equal value emits nothing, so a control that follows its own echo stops there.
    """

    colormap = Field("viridis")
    show_values = Field("auto", _show_values_mode)
    presentation = Field(False, bool)
    pe_positions = Field(None)          # int | None (None: the PE panel's default)
    pe_dims = Field(None)               # tuple[int, ...] | None: PE columns drawn as curves
    kv_head_choice = Field(0, int)
    kv_step = Field(0, int)             # the KV cache after this step (0-based) is shown
    focus_head = Field(None)            # int | None

    def __init__(self, colormap: str = "viridis", show_values: str = "auto",
                 presentation: bool = False):
        super().__init__()
        for name in ("colormap", "show_values", "presentation", "pe_positions", "pe_dims",
                     "kv_head_choice", "kv_step", "focus_head"):
            setattr(self, name + "_changed", Event())
        self.colormap, self.show_values, self.presentation = colormap, show_values, presentation


class AppState(Observable):
    """Config + latest result + KV trace + view settings (``view``) + topic settings
    (``topics``, `topic_settings.TopicSettings`); talks to one ComputeWorker.

    Events (Qt-free, emitted on the main thread): config_changed(AttentionConfig),
    result_changed(AttentionResult), kv_trace_changed(KVTrace, only while kv_enabled),
    error(str, for the status bar), devices_changed(list[DeviceInfo], once torch has been
    asked), fallback(str: a torch backend failed, the message says what we did).
    """

    def __init__(self, config: AttentionConfig | None = None, worker: ComputeWorker | None = None,
                 view: ViewState | None = None, topics: TopicSettings | None = None,
                 auto_precision: bool = False):
        super().__init__()
        for name in ("config_changed", "result_changed", "kv_trace_changed", "error",
                     "devices_changed", "fallback"):
            setattr(self, name, Event())
        self._config = validate(config if config is not None else AttentionConfig())
        self._worker = worker if worker is not None else ComputeWorker()
        self._worker.finished.connect(self._on_outcome)
        self._worker.devices_listed.connect(self._on_devices)
        self.view = view if view is not None else ViewState()
        self.topics = topics if topics is not None else TopicSettings()
        self.auto_precision = bool(auto_precision)
        self.view.show_values_changed.connect(self._on_show_values)
        self._result = None
        self._trace = None
        self._devices = None
        self._kv_enabled = False
        self._shown_generation = 0
        self._submit()

    # ----- properties ----------------------------------------------------------------------
    @property
    def config(self) -> AttentionConfig:
        return self._config

    @property
    def computed_config(self) -> AttentionConfig:
        """What is computed for `config`: `config` itself, or its float32 twin under automatic
        precision (see the module docstring)."""
        if not self.auto_precision:
            return self._config
        return auto_precision_config(self._config, self.view.show_values)

    @property
    def result(self):
        """The latest good AttentionResult (None until the first compute lands)."""
        return self._result

    @property
    def kv_trace(self):
        return self._trace

    @property
    def devices(self):
        """list[DeviceInfo] once listed, else None."""
        return self._devices

    @property
    def worker(self) -> ComputeWorker:
        return self._worker

    @property
    def kv_enabled(self) -> bool:
        return self._kv_enabled

    @kv_enabled.setter
    def kv_enabled(self, on: bool) -> None:
        on = bool(on)
        if on == self._kv_enabled:
            return
        self._kv_enabled = on
        if on and (self._trace is None
                   or not _same_computation(self._trace.config, self.computed_config)):
            self._submit()

    def is_idle(self) -> bool:
        """No compute pending and the newest request's outcome has been handled."""
        return self._worker.is_idle()

    # ----- changes -------------------------------------------------------------------------
    def update(self, **changes) -> bool:
        """Change some fields. Invalid -> emit error, keep the old config, return False."""
        try:
            new = self._config.replace(**changes)
        except TypeError as exc:  # an unknown field name: a programming error, said plainly
            raise AttributeError(str(exc)) from exc
        return self.set_config(new)

    def set_config(self, config: AttentionConfig) -> bool:
        try:
            validate(config)
        except ConfigError as exc:
            self.error.emit(error_text(exc))  # in the UI language
            return False
        if config == self._config:
            return True
        self._config = config
        self.config_changed.emit(config)
        self._submit()
        return True

    def recompute(self) -> None:
        """Compute the current config again (e.g. after devices became known)."""
        self._submit()

    def request_devices(self) -> None:
        self._worker.request_devices()

    def shutdown(self, timeout: float = 30.0) -> bool:
        """Stop the worker thread, waiting at most `timeout` s for a running compute; True when
        the thread has ended (False: a compute was abandoned, see ``ComputeWorker.stop``)."""
        return self._worker.stop(timeout)

    # ----- worker --------------------------------------------------------------------------
    def _submit(self) -> None:
        """The picture first; the KV trace (seconds to a minute at large sizes) follows as a
        request of its own once the picture is shown (see _on_outcome), and a newer change
        cancels it."""
        config = self.computed_config
        if self._kv_enabled and self._result is not None and self._result.config == config:
            self._worker.submit(config, with_kv=True, result=self._result)
        else:
            self._worker.submit(config)

    def _on_show_values(self, _mode) -> None:
        """Values forced on (or off again) may change the precision computed."""
        if self.auto_precision and (self._result is None
                                    or self._result.config != self.computed_config):
            self._submit()

    def _on_outcome(self, outcome: Outcome) -> None:
        if outcome.generation <= self._shown_generation:
            return  # stale: something newer is already on screen
        if not outcome.ok:
            self._on_failure(outcome)
            return
        self._shown_generation = outcome.generation
        if outcome.result is not self._result:  # a trace for the result shown: no repaint
            self._result = outcome.result
            self.result_changed.emit(outcome.result)
        if outcome.trace is not None:
            self._trace = outcome.trace
            self.kv_trace_changed.emit(outcome.trace)
        elif self._kv_enabled and outcome.config == self.computed_config and not (
                self._trace is not None
                and _same_computation(self._trace.config, self.computed_config)):
            self._worker.submit(outcome.config, with_kv=True, result=outcome.result)

    def _on_failure(self, outcome: Outcome) -> None:
        failed = outcome.config
        where = f"{failed.backend}/{failed.device}"
        if failed.backend != "numpy" and (self._config.backend, self._config.device) == (
                failed.backend, failed.device):
            message = f"{where} failed: {outcome.error} — switched to numpy (CPU)"
            self.error.emit(message)
            self.fallback.emit(message)
            self.update(backend="numpy", device="cpu")
        else:
            self.error.emit(f"compute on {where} failed: {outcome.error}")

    def _on_devices(self, devices) -> None:
        self._devices = list(devices)
        self.devices_changed.emit(self._devices)


def _same_computation(a: AttentionConfig, b: AttentionConfig) -> bool:
    """Would run_kv_cache give the same trace for a and b? (it forces causal numpy)."""
    keep = dict(causal=True, backend="numpy", device="cpu")
    return a.replace(**keep) == b.replace(**keep)
