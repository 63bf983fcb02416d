"""The window's "Fine-tune LoRA…": a LoRA fine-tuned on a few typed sentences, saved, shown.

``LoraTuning(learned, adapters)`` sits beside the LearnedState and the AdapterState:

    tuning.problem()              # why the chosen source cannot be fine-tuned (UI language), or None
    tuning.choices()              # (target names, default targets) for the chosen source
    tuning.start(text, settings)  # core.adapters.lora_train.TuneSettings; False (+ failed) if bad
    tuning.cancel()               # stops within a step; nothing is kept
    tuning.save(folder, replace)  # written off the GUI thread (saved / exists / failed follow)
    tuning.show()                 # the saved adapter on its base, as Load adapter… would

The fine-tune runs in chunks (`CHUNK_SECONDS`, at least one step each) on a channel of the
learned runner, the runner that loads and analyses the window's models: the model is loaded
(cached, shared with the views: its tensors are never written) by the first chunk, an analysis
asked for meanwhile runs between two chunks, and Cancel makes the running chunk's token stale, so
it stops before the step's update (core.adapters.lora_train checks between sentences). The
main thread reads the tuner's losses only when a chunk is delivered, before the next is queued.

Only a natively run decoder is fine-tuned: an own checkpoint of a native family or the bundled
SmolLM2. A source that carries an adapter, an encoder, a model through transformers and the course
or Train-tab models are refused with their reason (the button's tooltip, the dialog's line).

Events (main thread): status_changed(str: "idle", "running", "done", "cancelled", "failed"),
progress(losses: tuple of floats, steps: int), finished(TunedLora), failed(str: one line),
saved(str: folder), exists(str: folder, an adapter is there: ask, then save(folder, replace=True)).
Qt-free.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from ...core.adapters import lora_train as lt
from ...core.config import ConfigError
from ..i18n import QT_TRANSLATE_NOOP, error_text, translate
from ..observable import Event, Observable

CONTEXT = "app.lora_tuning"
CHUNK_SECONDS = 0.25   # the longest a chunk holds the learned runner beyond one step
NOT_TUNABLE = QT_TRANSLATE_NOOP("app.lora_tuning", "LoRA fine-tuning here is for an own checkpoint or SmolLM2: "
                                "choose one under Model source (the Train tab fine-tunes the course's model)")
NOTHING = QT_TRANSLATE_NOOP("app.lora_tuning", "nothing fine-tuned yet")
NOT_SAVED = QT_TRANSLATE_NOOP("app.lora_tuning", "save the adapter first")


def source_family(source) -> str | None:
    """The model family whose module names a LoRA on `source` uses, or None."""
    from .checkpoint_source import CheckpointSource
    from .sources import PretrainedSource
    if isinstance(source, CheckpointSource):
        return source.checkpoint.model_type
    if isinstance(source, PretrainedSource) and source.spec().kind == "decoder":
        return "llama"  # SmolLM2: core.learned.llama
    return None


def tuning_problem(source) -> str | None:
    """Why `source` cannot be fine-tuned here, in the UI language; None when it can."""
    from .adapter_source import AdaptedSource
    from .checkpoint_source import CheckpointSource
    from .sources import PretrainedSource
    name = source.title()
    if isinstance(source, AdaptedSource):
        return error_text(lt.LoraTuneError.of(lt.ADAPTED, name=name))
    if not isinstance(source, (CheckpointSource, PretrainedSource)):
        return translate(CONTEXT, NOT_TUNABLE)
    problem = source.problem()
    if problem is not None:
        return error_text(problem)
    if source.kind != "decoder":
        return error_text(lt.LoraTuneError.of(lt.NOT_A_DECODER, name=name))
    if isinstance(source, CheckpointSource) and not source.native:
        return error_text(lt.LoraTuneError.of(lt.NOT_NATIVE, name=name))
    return None


def base_name(source) -> str | None:
    """base_model_name_or_path: an own checkpoint's folder or repo id, SmolLM2's repo."""
    from .checkpoint_source import CheckpointSource
    if isinstance(source, CheckpointSource):
        return source.checkpoint.where
    return lt.BUNDLED_REPOS.get(source.name)


def tune_chunk(tuner, source, device: str, text: str, settings, name, seconds: float, should_stop=None):
    """The runner's job: the tuner (made, with its model loaded, by the first chunk) after at
    least one more step and at most `seconds` more; with the TunedLora once done."""
    if tuner is None:
        model = source.load(device, should_stop)
        tuner = lt.LoraTuner(model, text, settings, name)
    start = time.perf_counter()
    while not tuner.done:
        tuner.step(should_stop)
        if time.perf_counter() - start >= seconds:
            break
    return tuner, tuner.result() if tuner.done else None


def save_job(tuned, folder: str, replace: bool):
    """The runner's job: ("saved", folder), or ("exists", folder) when an adapter is there and
    `replace` is false; ExportError (one line) when it cannot be written."""
    from ...core.adapters.lora_write import save_adapter
    from ...core.files.output_files import ExportExistsError
    try:
        save_adapter(tuned, folder, "overwrite" if replace else "error")
    except ExportExistsError:
        return "exists", folder
    return "saved", folder


class LoraTuning(Observable):
    """See the module docstring."""

    def __init__(self, learned, adapters=None):
        super().__init__()
        for name in ("status_changed", "progress", "finished", "failed", "saved", "exists"):
            setattr(self, name, Event())
        self._learned, self._adapters = learned, adapters
        self._channel = learned.channel(self._on_chunk)
        self._saves = learned.channel(self._on_saved)
        self.status = "idle"
        self.base = None             # the name of the source being (or last) fine-tuned
        self.settings = None         # its checked TuneSettings
        self.losses: tuple = ()
        self.result = None           # the TunedLora once done
        self.saved_folder = None     # where it was saved last
        self._run = None             # (source, text, device, base name) of the running fine-tune
        self._base_source = None     # the source object of `base`

    # ----- reading -----------------------------------------------------------------------------
    def problem(self) -> str | None:
        return tuning_problem(self._learned.model)

    def family(self) -> str | None:
        return source_family(self._learned.model)

    def shown_base(self):
        """The source the dialog speaks of: the one being fine-tuned, else the chosen one."""
        if self.status == "running" and self._base_source is not None:
            return self._base_source
        return self._learned.model

    def choices(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(every target name, the default ones) for the chosen source; ((), ()) when none."""
        family = self.family()
        if family is None:
            return (), ()
        return tuple(dict.fromkeys(lt.target_names(family))), lt.default_targets(family)

    def is_idle(self) -> bool:
        return self._channel.is_idle() and self._saves.is_idle()

    # ----- changes (main thread) ---------------------------------------------------------------
    def start(self, text: str, settings) -> bool:
        """Fine-tune the chosen source on the lines of `text`; False (and `failed`) when it
        cannot be or a setting is bad: then nothing changes."""
        problem = self.problem()
        if problem is not None:
            self.failed.emit(problem)
            return False
        source = self._learned.model
        try:
            settings = lt.check_settings(settings, self.family())
            lt.split_sentences(text)
        except ConfigError as exc:
            self.failed.emit(error_text(exc))
            return False
        self._channel.cancel()
        self.base, self.settings, self._base_source = source.name, settings, source
        self.losses, self.result, self.saved_folder = (), None, None
        self._run = (source, text, self._learned.device, base_name(source))
        self._set_status("running")
        self.progress.emit(self.losses, settings.steps)
        self._submit(None)
        return True

    def cancel(self) -> None:
        """Stop the fine-tune within a step; what it trained is dropped."""
        if self.status != "running":
            return
        self._channel.cancel()
        self._run = None
        self.losses = ()
        self._set_status("cancelled")
        self.progress.emit(self.losses, self.settings.steps)

    def save(self, folder, replace: bool = False) -> bool:
        """Write the finished adapter into `folder` off the GUI thread; False (+ failed) if none."""
        if self.result is None:
            self.failed.emit(translate(CONTEXT, NOTHING))
            return False
        self._saves.submit(save_job, self.result, str(folder), replace)
        return True

    def show(self) -> bool:
        """Choose the fine-tuned base again (if another source is shown) and load the saved
        adapter onto it through the AdapterState (Load adapter…'s path); False if not saved."""
        if self.saved_folder is None or self._adapters is None:
            self.failed.emit(translate(CONTEXT, NOT_SAVED))
            return False
        learned = self._learned
        if learned.source != self.base and not learned.set_source(self.base):
            return False
        return self._adapters.load(self.saved_folder)

    def shutdown(self) -> None:
        self._channel.cancel()
        self._saves.cancel()

    # ----- deliveries --------------------------------------------------------------------------
    def _submit(self, tuner) -> None:
        source, text, device, name = self._run
        self._channel.submit(partial(tune_chunk, tuner, source, device, text, self.settings, name, CHUNK_SECONDS),
                             cancellable=True)

    def _on_chunk(self, _generation: int, value, error: str | None) -> None:
        if self._run is None:
            return
        if error is not None:
            self._run = None
            self._set_status("failed")
            self.failed.emit(error)
            return
        tuner, result = value
        self.losses = tuple(tuner.losses)
        self.progress.emit(self.losses, self.settings.steps)
        if result is None:
            self._submit(tuner)
            return
        self._run, self.result = None, result
        self._set_status("done")
        self.finished.emit(result)

    def _on_saved(self, _generation: int, value, error: str | None) -> None:
        if error is not None:
            self.failed.emit(error)
            return
        what, folder = value
        if what == "exists":
            self.exists.emit(folder)
            return
        self.saved_folder = str(Path(folder))
        self.saved.emit(self.saved_folder)

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self.status_changed.emit(status)
