"""One training run on the shared background runner: Start, Pause, Step, Reset (Qt-free).

The Train tab (gui/training/view.py) binds its buttons to these methods and listens to the
events. Training runs as a chain of short jobs (`CHUNK_SECONDS` each) on a `Runner` channel (the
tab gives it a runner of its own, `training_runner`; on a shared runner the channel's low
priority lets a higher-priority compute in between two chunks), so a Pause, a Reset or a close
never waits on training for longer than a chunk. The `Trainer` (explorer.core.training)
lives on the runner's thread; the main thread reads its finished records and snapshots when a
chunk is delivered (frozen objects, appended whole).

Events (emitted on the main thread):
- ``progress(records, snapshots)``: the LogRecords and Snapshots logged since the last delivery;
- ``status_changed(status)``: "idle" (nothing trained yet), "running", "paused" or "done";
- ``error(message)``: one line (a bad config, a missing CUDA device, an unreadable model file);
  training stops.
- ``loaded(config, path)``: a model file was loaded (its config, with the session's device).

`LoraSession` (at the end) runs a LoRA fine-tune of a trained model the same way, in chunks on
the same runner: Start, Pause, Cancel, and the adapter's files made on the main thread.

A saved model's bytes are made on the main thread, only while no chunk runs (``is_idle``): the
trainer is the runner's between chunks; the Train tab writes them through the one output writer
(explorer.core.files.output_files). Loading runs on the runner (it imports torch, reads the file through
core.user_files, which refuses a FIFO at once, and builds a Trainer around the loaded model, whose
first snapshot is the loaded model's attention). Errors reach ``error`` as one line, in the UI's
language when they have a template (a refused model file, a bad config).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..core.config import ConfigError
from ..core.messages import QT_TRANSLATE_NOOP, TranslatableError
from ..core.training import TrainConfig, validate_train
from .i18n import error_text
from .observable import Event, Observable
from .runner import describe_error

CHUNK_SECONDS = 0.1  # the longest the runner's thread is held by training at a time


def training_runner():
    """A runner of its own for the Train tab (a chunk never delays the main compute's thread).

    Tried and dropped: a lower niceness for this thread (Linux). Under load 5 on 2 cores the
    window's stalls were no better than without it (benchmarks/training_gui.py, noisy), and a
    low-priority thread that holds the GIL when it is preempted can make the GUI thread wait longer.
    """
    from .runner import Runner
    return Runner("training")


def _describe(exc: BaseException) -> str:
    """One line for `error`: a CheckpointError or ConfigError in the UI's language, else the runner's."""
    if isinstance(exc, TranslatableError) and exc.template is not None:
        return error_text(exc).splitlines()[0]
    return describe_error(exc)


def _load_job(path, device: str, threads: int):
    """Runs on the runner: a Trainer at step 0 around the model read from `path`. → (trainer, path)"""
    from ..core.training import Trainer, load_model
    model, config, _steps = load_model(path, device)
    return Trainer(config, threads=threads, model=model), path


def _train_chunk(trainer, config: TrainConfig, threads: int, max_steps: int, seconds: float,
                 should_stop):
    """Runs on the runner: a new Trainer if `trainer` is None, then steps until a limit. → trainer"""
    if trainer is None:
        from ..core.training import Trainer  # imports torch, on the runner's thread
        trainer = Trainer(config, threads=threads)
    return _steps(trainer, max_steps, seconds, should_stop)


def _steps(trainer, max_steps: int, seconds: float, should_stop):
    """Step a Trainer (or a FineTune) until done, max_steps, `seconds` or should_stop(). → it"""
    deadline = time.perf_counter() + seconds
    done = 0
    while (not trainer.done and done < max_steps and time.perf_counter() < deadline
           and not should_stop()):
        trainer.step(1)
        done += 1
    return trainer


class TrainingSession(Observable):
    def __init__(self, runner, config: TrainConfig = TrainConfig(), threads: int = 1):
        super().__init__()
        self.config = validate_train(config)
        self.threads = threads
        self.trainer = None       # the runner's Trainer, once its first chunk is delivered
        self.records: list = []   # LogRecords delivered so far (main thread)
        self.snapshots: list = []
        self.status = "idle"
        self._running = False
        self._fresh = True        # the next chunk starts a new Trainer
        self.progress, self.status_changed, self.error, self.loaded = Event(), Event(), Event(), Event()
        self._channel = runner.channel(self._on_chunk, priority=-1,  # below the main compute
                                       describe=_describe)

    def is_idle(self) -> bool:
        """No chunk waiting, running or being handed over: the trainer may be read (saved)."""
        return self._channel.is_idle()

    def model_bytes(self) -> bytes:
        """The trained model as a safetensors file's bytes (core.training.checkpoint), to write.
        RuntimeError if there is no model yet or a chunk is running (pause first);
        CheckpointError without safetensors."""
        if self.trainer is None:
            raise RuntimeError("nothing trained yet")
        if self.status == "running" or not self.is_idle():
            raise RuntimeError("pause the training before saving")
        from ..core.training.checkpoint import model_bytes
        return model_bytes(self.trainer.model, self.trainer.step_count)

    def load(self, path) -> None:
        """Load a saved model on the runner (`loaded` follows, or `error`); resets the run."""
        self.reset()
        self._fresh = False  # the next Start trains the loaded model further
        self._channel.submit(_load_job, path, self.config.device, self.threads)

    def set_config(self, config: TrainConfig) -> None:
        """A new run's settings (ConfigError if invalid, nothing changed); resets the run."""
        self.config = validate_train(config)
        self.reset()

    def start(self) -> None:
        if self.status == "done":
            return
        self._running = True
        self._set_status("running")
        self._submit(max_steps=self.config.steps)

    def pause(self) -> None:
        self._running = False  # the chunk in flight finishes (≤ CHUNK_SECONDS); no next one
        if self.status == "running":
            self._set_status("paused")

    def step(self, n: int | None = None) -> None:
        """Train n steps (default: one log interval) and stop."""
        self._running = False
        if self.status != "done":
            self._set_status("paused")
            self._submit(max_steps=n or self.config.log_every, seconds=float("inf"))

    def reset(self) -> None:
        """Forget the run; the next Start or Step trains a fresh model from the seed."""
        self._running, self._fresh = False, True
        # a newer request: a chunk in flight sees its token go stale, stops, and is never delivered
        self._channel.submit(lambda: None)
        self.trainer, self.records, self.snapshots = None, [], []
        self._set_status("idle")

    def _submit(self, max_steps: int, seconds: float = CHUNK_SECONDS) -> None:
        trainer = None if self._fresh else self.trainer
        self._fresh = False
        self._channel.submit(_train_chunk, trainer, self.config, self.threads, max_steps, seconds,
                             cancellable=True)

    def _on_chunk(self, generation: int, trainer, error: str | None) -> None:
        if error is not None:
            self._running, self._fresh = False, self.trainer is None
            self._set_status("idle" if self.trainer is None else "paused")
            self.error.emit(error)
            return
        if trainer is None:  # the empty job a reset submits
            return
        if isinstance(trainer, tuple):  # a model loaded from a file (_load_job)
            trainer, path = trainer
            self.config = trainer.config
            self.trainer, self.records, self.snapshots = trainer, [], []
            self._set_status("paused")
            self.loaded.emit(self.config, path)
        self.trainer = trainer
        records = trainer.records[len(self.records):]
        snapshots = trainer.snapshots[len(self.snapshots):]
        self.records += records
        self.snapshots += snapshots
        self.progress.emit(records, snapshots)
        if trainer.done:
            self._running = False
            self._set_status("done")
        elif self._running:
            self._submit(max_steps=self.config.steps)

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self._notify("status_changed", status)


# ----- a LoRA fine-tune (the Train tab's LoRA mode) ----------------------------------------------
NO_BASE = QT_TRANSLATE_NOOP("core", "there is no base model yet: train one or load a model file")


def _load_base_job(path, device: str):
    """Runs on the runner: ("base", model, its TrainConfig, path) read from a model file."""
    from ..core.training import load_model
    model, config, _steps = load_model(path, device)
    return "base", model, config, path


def _tune_chunk(tune, base, lora, threads: int, max_steps: int, seconds: float, should_stop):
    """Runs on the runner: a FineTune of the base (a model, or a callable giving the Train tab's
    model now: read on this thread, between training chunks) if `tune` is None, then steps."""
    if tune is None:
        from ..core.training.lora_tune import FineTune
        model = base() if callable(base) else base
        if model is None:
            raise ConfigError.of(NO_BASE)
        tune = FineTune(model, lora, threads=threads)
    return _steps(tune, max_steps, seconds, should_stop)


class LoraSession(Observable):
    """A LoRA fine-tune on the runner (Start, Pause, Cancel), like TrainingSession.

    The base is the Train tab's trained model (`use_trained(get_model, config)`: the model is
    read on the runner when the fine-tune starts, and copied; give this session the training
    session's runner) or a model file (`load_base`, read on the runner). Events, on the main
    thread: ``progress(records, full_records, snapshots)`` (new since the last delivery),
    ``status_changed(status)`` (idle, running, paused, done), ``error(message)`` and
    ``base_changed(config, path)`` (path None: the trained model).
    """

    def __init__(self, runner, threads: int = 1):
        super().__init__()
        from ..core.training.lora_config import LoraConfig
        self.config = LoraConfig()
        self.threads = threads
        self.base = None          # a model, or a callable giving one (on the runner)
        self.base_config = None   # its TrainConfig
        self.base_path = None     # the file it came from (None: the trained model)
        self.tune = None
        self.records, self.full_records, self.snapshots = [], [], []
        self.status = "idle"
        self._running = False
        self.progress, self.status_changed, self.error, self.base_changed = Event(), Event(), Event(), Event()
        self._channel = runner.channel(self._on_chunk, priority=-1, describe=_describe)

    def is_idle(self) -> bool:
        return self._channel.is_idle()

    def use_trained(self, get_model, config: TrainConfig) -> None:
        """The base: the model `get_model()` returns on the runner (its TrainConfig `config`)."""
        self.cancel()
        self.base, self.base_config, self.base_path = get_model, config, None
        self.base_changed.emit(config, None)

    def load_base(self, path, device: str = "cpu") -> None:
        """Read a model file on the runner; `base_changed` follows, or `error`."""
        self.cancel()
        self._channel.submit(_load_base_job, path, device)

    def set_config(self, config) -> None:
        """The next fine-tune's settings: ConfigError (nothing changed) if they do not fit the base."""
        from ..core.training.lora_config import validate_lora
        if self.base_config is None:
            raise ConfigError.of(NO_BASE)
        self.config = validate_lora(config, self.base_config)
        self.cancel()

    def start(self) -> None:
        if self.status in ("running", "done"):
            return
        if self.base is None:
            self.error.emit(error_text(ConfigError.of(NO_BASE)))
            return
        self._running = True
        self._set_status("running")
        self._submit()

    def pause(self) -> None:
        self._running = False
        if self.status == "running":
            self._set_status("paused")

    def cancel(self) -> None:
        """Stop and forget the fine-tune (the base stays); a chunk in flight is never delivered."""
        self._running = False
        self._channel.submit(lambda: None)
        self.tune, self.records, self.full_records, self.snapshots = None, [], [], []
        self._set_status("idle")

    def adapter_files(self) -> list:
        """[(name, bytes)] of the adapter in peft's layout (core.training.lora_save), made on the
        main thread while no chunk runs. RuntimeError if nothing is trained or it is running."""
        if self.tune is None:
            raise RuntimeError("nothing fine-tuned yet")
        if self.status == "running" or not self.is_idle():
            raise RuntimeError("pause the fine-tune before saving")
        from ..core.training.lora_save import adapter_files
        name = None if self.base_path is None else Path(self.base_path).name
        return adapter_files(self.tune.model, self.tune.step_count, name)

    def _submit(self) -> None:
        self._channel.submit(_tune_chunk, self.tune, self.base, self.config, self.threads,
                             self.config.steps, CHUNK_SECONDS, cancellable=True)

    def _on_chunk(self, generation: int, result, error: str | None) -> None:
        if error is not None:
            self._running = False
            self._set_status("idle" if self.tune is None else "paused")
            self.error.emit(error)
            return
        if result is None:  # the empty job cancel submits
            return
        if isinstance(result, tuple):  # a base read from a file
            _, model, config, path = result
            self.base, self.base_config, self.base_path = model, config, path
            self.base_changed.emit(config, path)
            return
        self.tune = tune = result
        records, full = tune.records[len(self.records):], tune.full_records[len(self.full_records):]
        snapshots = tune.snapshots[len(self.snapshots):]
        self.records += records
        self.full_records += full
        self.snapshots += snapshots
        self.progress.emit(records, full, snapshots)
        if tune.done:
            self._running = False
            self._set_status("done")
        elif self._running:
            self._submit()

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self._notify("status_changed", status)
