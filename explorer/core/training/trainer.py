"""Train a TinyTransformer step by step, built to run inside a background job (torch; imported lazily).

A `Trainer` owns the model, the optimiser and the data stream. `step(n)` trains n steps and returns
the records logged on the way; `run(should_stop)` yields records until the configured number of
steps or until `should_stop()` returns True (checked between steps, so pausing or cancelling
costs at most one step). Nothing here touches Qt: a GUI job calls `step` or iterates `run`.

Reproducible: the weights come from a generator seeded with `config.seed`, the training batches
from numpy generators seeded with (seed, 1), the held-out batch from (seed, 2). The same config
on the same device gives the same curves, bit for bit, when torch uses the same number of
intra-op threads (1 and 2 threads differ in the last bits of a float32 sum). So the trainer pins
the count: `threads` (default 1) is set for its own steps and the old value put back after each
call; None leaves torch's setting alone. (With this torch's OpenMP backend the count belongs to
the calling thread: a trainer in a background job does not change the GUI thread's count.)

Why one thread by default: on this 2-core machine two threads were only ~25 % faster at a quiet
moment (8.5 vs 11.3 ms a step), but when anything else runs (the window's own drawing, another
process) OpenMP's two threads wait on each other: 87 vs 18 ms a step at load average 3.3, 1.04 s
vs 70 ms at 6 (benchmarks/training.py). One thread also leaves a core to the GUI thread.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import torch
from torch.nn import functional as F

from ..backends import resolve_torch_device
from ..config import ConfigError
from .config import TrainConfig, validate_train
from .model import TinyTransformer, build_model
from .scores import role_scores, switch_steps
from .tasks import TASKS, probe_tokens


@dataclass(frozen=True)
class LogRecord:
    """What the curves show at one logged step."""

    step: int
    train_loss: float      # loss of the batch trained on at this step (nan at step 0)
    heldout_loss: float    # loss on a fixed held-out batch
    accuracy: float        # held-out accuracy on the positions the task scores
    scores: np.ndarray     # (layers, heads, 2) role scores on the probe, ROLES order
    seconds: float         # training time so far (logging excluded)


@dataclass(frozen=True)
class Snapshot:
    """One frame of the timeline scrubber."""

    step: int
    attention: np.ndarray  # (layers, heads, T, T) attention on the probe, float32
    scores: np.ndarray     # (layers, heads, 2)
    heldout_loss: float


@contextmanager
def _threads(n: int | None):
    if n is None:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _masked_loss_and_accuracy(logits, targets, mask) -> tuple:
    """Cross-entropy and accuracy over mask. logits (B, T, V), targets (B, T), mask (B, T)."""
    picked, wanted = logits[mask], targets[mask]  # (N, V), (N,)
    loss = F.cross_entropy(picked, wanted)
    accuracy = (picked.argmax(dim=-1) == wanted).float().mean()
    return loss, accuracy


_SHAPE_FIELDS = ("n_layers", "n_heads", "d_model", "vocab", "seq_len")


def _check_same_shape(model_config: TrainConfig, config: TrainConfig) -> None:
    """A given model (e.g. a loaded one, trained further) must have the config's architecture."""
    for name in _SHAPE_FIELDS:
        if getattr(model_config, name) != getattr(config, name):
            raise ConfigError(f"the model has {name} {getattr(model_config, name)}, "
                              f"the config asks for {getattr(config, name)}")


class Trainer:
    def __init__(self, config: TrainConfig, threads: int | None = 1,
                 model: TinyTransformer | None = None):
        """A fresh model from config.seed, or `model` (e.g. from load_model) trained further.

        The optimiser always starts fresh (its moments are not saved with a model).
        """
        self.config = validate_train(config)
        self.threads = threads
        self.device = resolve_torch_device(config.device)  # DeviceUnavailableError if absent
        if model is not None:
            _check_same_shape(model.config, config)
        with _threads(threads):
            self.model = (model or build_model(config)).to(self.device)
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr)
        self.task = TASKS[config.task]
        self._rng = np.random.default_rng([config.seed, 1])
        self._heldout = self._tensors(self.task.batch(np.random.default_rng([config.seed, 2]),
                                                      config.batch, config.vocab, config.seq_len))
        self.probe = probe_tokens(config.vocab, config.seq_len)  # (T_probe,)
        self.step_count = 0
        self.seconds = 0.0
        self.records: list[LogRecord] = []
        self.snapshots: list[Snapshot] = []
        with _threads(threads):
            self._log(train_loss=float("nan"))

    @property
    def done(self) -> bool:
        return self.step_count >= self.config.steps

    def _tensors(self, arrays) -> tuple:
        inputs, targets, mask = (torch.from_numpy(np.ascontiguousarray(a)).to(self.device)
                                 for a in arrays)
        return inputs.long(), targets.long(), mask.bool()  # (B, T) each

    def _train_one(self) -> float:
        batch = self._tensors(self.task.batch(self._rng, self.config.batch,
                                              self.config.vocab, self.config.seq_len))
        start = time.perf_counter()
        self.model.train()
        logits, _ = self.model(batch[0])  # (B, T, V)
        loss, _ = _masked_loss_and_accuracy(logits, batch[1], batch[2])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        value = float(loss.detach())  # synchronises a CUDA device, so the timing is honest
        self.seconds += time.perf_counter() - start
        self.step_count += 1
        return value

    @torch.no_grad()
    def probe_attention(self) -> np.ndarray:
        """The current model's attention on the fixed probe. (layers, heads, T, T) float32."""
        self.model.eval()
        tokens = torch.from_numpy(self.probe).long().unsqueeze(0).to(self.device)  # (1, T)
        _, attentions = self.model(tokens)
        return torch.stack([a[0] for a in attentions]).float().cpu().numpy()  # (L, h, T, T)

    @torch.no_grad()
    def _log(self, train_loss: float) -> None:
        """Record the curves at a log step and/or keep a snapshot at a snapshot step (one evaluation)."""
        step = self.step_count
        at_log = step % self.config.log_every == 0 or self.done
        at_snapshot = step % self.config.snapshot_every == 0 or self.done
        if not (at_log or at_snapshot):
            return
        self.model.eval()
        logits, _ = self.model(self._heldout[0])
        loss, accuracy = _masked_loss_and_accuracy(logits, *self._heldout[1:])
        attention = self.probe_attention()
        scores = role_scores(attention)  # (L, h, 2)
        if at_log:
            self.records.append(LogRecord(step, train_loss, float(loss), float(accuracy), scores,
                                          self.seconds))
        if at_snapshot:
            self.snapshots.append(Snapshot(step, attention, scores, float(loss)))

    def step(self, n: int = 1) -> list[LogRecord]:
        """Train up to n more steps (never past config.steps); return the records logged meanwhile."""
        before = len(self.records)
        with _threads(self.threads):
            for _ in range(max(0, min(n, self.config.steps - self.step_count))):
                self._log(self._train_one())
        return self.records[before:]

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> Iterator[LogRecord]:
        """Yield each logged record until done, or until should_stop() is True between two steps."""
        while not self.done and not should_stop():
            yield from self.step(1)

    def save(self, path):
        """Write the model and its config to a safetensors file (checkpoint.save_model)."""
        from .checkpoint import save_model
        return save_model(self.model, path, self.step_count)

    def curves(self) -> dict[str, np.ndarray]:
        """The records so far as arrays, ready to plot. n = number of logged steps."""
        r = self.records
        return {
            "steps": np.array([x.step for x in r]),                  # (n,)
            "train_loss": np.array([x.train_loss for x in r]),       # (n,) nan at step 0
            "heldout_loss": np.array([x.heldout_loss for x in r]),   # (n,)
            "accuracy": np.array([x.accuracy for x in r]),           # (n,)
            "scores": np.stack([x.scores for x in r]),               # (n, layers, heads, 2)
        }

    def switch_steps(self) -> list:
        """[layer][head] {role: step or None} from the records so far (scores.switch_step rule)."""
        c = self.curves()
        return switch_steps(c["steps"], c["scores"])
