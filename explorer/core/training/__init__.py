"""Train a tiny attention-only transformer and watch its heads learn (issue 13), Qt-free.

Importing this package loads numpy only. `Trainer`, `build_model`, `save_model` and `load_model`
need torch: the first two are imported on first access (module __getattr__), the last two import
it when called, like the torch backend.

    from explorer.core.training import TrainConfig, Trainer
    trainer = Trainer(TrainConfig(task="induction", seed=0))   # validated; torch device resolved
    stop = threading.Event()                                   # set by Pause / Reset / a newer request
    for record in trainer.run(should_stop=stop.is_set):        # in the job's thread
        publish(record, trainer.snapshots[-1])                 # one LogRecord per logged step
    trainer.curves(), trainer.switch_steps()                   # arrays to plot, switch steps per head

`run` checks `should_stop` between optimiser steps, so a pause or cancel waits for at most one step
(~12 ms on one CPU thread at the recipe's size); calling `run` again resumes where it stopped.
"""

from .checkpoint import CheckpointError, load_model, require_safetensors, save_model
from .config import TrainConfig, validate_train
from .scores import (ROLES, SWITCH_THRESHOLD, induction_score, phase_change_step,
                     previous_token_score, role_scores, switch_step, switch_steps)
from .tasks import TASKS, Task, probe_tokens

_LAZY = {  # name -> module that imports torch
    "Trainer": "trainer", "LogRecord": "trainer", "Snapshot": "trainer",
    "TinyTransformer": "model", "build_model": "model",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CheckpointError", "ROLES", "SWITCH_THRESHOLD", "TASKS", "Task", "TrainConfig",
    "induction_score", "load_model", "phase_change_step", "previous_token_score", "probe_tokens",
    "require_safetensors", "role_scores", "save_model", "switch_step", "switch_steps",
    "validate_train", *_LAZY,
]
