"""A LoRA fine-tune of a trained tiny model, step by step, with a full fine-tune beside it (torch).

`FineTune(base, LoraConfig)` trains only the LoRA matrices of a `LoraModel` (a frozen copy of
`base`) on the config's task with the step-wise `Trainer` of trainer.py, so its curves, held-out
batch, probe snapshots and role scores are logged exactly like a training run's. With
`compare_full` a second Trainer fine-tunes a plain copy of the same base, every weight, with the
same task, seed and steps (at its own learning rate, lora_config.full_lr): both draw their
batches from the same seeded stream, so step i of each trains on the same batch. `step(n)`
advances both; Pause / Cancel stop between two steps, as training does.

Step 0 of the LoRA run is the base itself (B = 0): its snapshot is the "before" of every head,
its held-out loss the base's loss on the new task. The model handed in is copied, never trained.
"""

from __future__ import annotations

import copy
from typing import Callable, Iterator

import torch

from .lora import LoraModel
from .lora_config import LoraConfig, fine_tune_config, full_lr, validate_lora
from .model import TinyTransformer
from .trainer import LogRecord, Trainer, _masked_loss_and_accuracy, _threads


class FineTune:
    def __init__(self, base: TinyTransformer, config: LoraConfig, threads: int | None = 1):
        self.config = validate_lora(config, base.config)
        self.base_config = base.config
        self.train_config = fine_tune_config(self.config, base.config)
        self.threads = threads
        with _threads(threads):
            self.model = LoraModel(base, self.config)
        self.lora = Trainer(self.train_config, threads=threads, model=self.model)
        # only the LoRA matrices are optimised (the base's are frozen, and not even handed in)
        self.lora.optimizer = torch.optim.AdamW(self.model.lora_parameters(), lr=self.config.lr)
        self.full = None
        if self.config.compare_full:
            full_config = self.train_config.replace(lr=full_lr(self.config, base.config))
            self.full = Trainer(full_config, threads=threads, model=copy.deepcopy(base))

    # the Trainer-like face the app's session and the CLI use -------------------------------
    @property
    def done(self) -> bool:
        return self.lora.done

    @property
    def step_count(self) -> int:
        return self.lora.step_count

    @property
    def records(self) -> list[LogRecord]:
        return self.lora.records

    @property
    def snapshots(self) -> list:
        return self.lora.snapshots

    @property
    def full_records(self) -> list[LogRecord]:
        return [] if self.full is None else self.full.records

    @property
    def seconds(self) -> float:
        return self.lora.seconds

    @property
    def probe(self):
        return self.lora.probe

    def step(self, n: int = 1) -> list[LogRecord]:
        """Up to n more steps of the LoRA run (and of the full one, batch for batch)."""
        before = len(self.lora.records)
        for _ in range(max(0, min(n, self.train_config.steps - self.step_count))):
            self.lora.step(1)
            if self.full is not None:
                self.full.step(1)
        return self.lora.records[before:]

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> Iterator[LogRecord]:
        while not self.done and not should_stop():
            yield from self.step(1)

    # what is shown and saved ---------------------------------------------------------------
    def parameter_counts(self) -> dict[str, int]:
        """trainable (the LoRA matrices), total (base + LoRA, as peft counts), full (the base)."""
        trainable, base = self.model.trainable_count(), self.model.base_count()
        return {"trainable": trainable, "total": base + trainable, "full": base}

    def before_attention(self):
        """The base's attention on the probe (step 0's snapshot): (layers, heads, T, T)."""
        return self.lora.snapshots[0].attention

    def after_attention(self):
        """The adapted model's attention on the probe now."""
        return self.lora.probe_attention()

    @torch.no_grad()
    def base_heldout_loss(self) -> float:
        """The frozen base's held-out loss on the new task now (adapters skipped): equal to
        step 0's, bit for bit, since the base never changes."""
        with _threads(self.threads), self.model.adapters_off():
            self.model.eval()
            logits, _ = self.model(self.lora._heldout[0])
            loss, _ = _masked_loss_and_accuracy(logits, *self.lora._heldout[1:])
        return float(loss)
