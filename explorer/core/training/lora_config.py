"""The settings of a LoRA fine-tune of a trained tiny model, validated in one place (no torch).

A `LoraConfig` says what to fine-tune a frozen base on (a task of tasks.TASKS, steps, learning
rate, seed) and how (rank r, α, the target matrices among W_Q, W_K, W_V, W_O). `validate_lora`
checks it against the base model's TrainConfig (r ≤ d_model, the task fits the base's vocabulary
and sequence length) and `fine_tune_config` turns it into the TrainConfig the step-wise Trainer
runs (the base's shapes and batch, the fine-tune's task, steps, learning rate and seed).

α defaults to r (`alpha=None`), so the scale α / r is 1 and B·A is exactly the weight change
ΔW: the simplest picture to read, and what Hu et al. (2021, §4.1) do — set α to the first r
tried and do not tune it; peft's own defaults (r = 8, lora_alpha = 8) are the same choice. The
scale α / r is there so that a *fixed* α keeps the update's size when r changes: set α to keep
it while trying other ranks.

The learning rates (measured on the recipe's base, 500 steps of induction, then 200 steps):
LoRA r = 4 on q, v at 1e-2 reached held-out loss 0.53 on previous-token and 0.07 on reverse,
at 3e-3 only 2.4 and 3.7 (its few parameters need the larger step). A full fine-tune at 1e-2
diverged on reverse (3.3, accuracy 0.58) and at 3e-2 on every task, while at the base's own
3e-3 it reached ~0.001: so the full fine-tune runs at the base's learning rate unless `full_lr`
says otherwise, each method at a step size that works for it.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

from ..config import SEED_MAX, QT_TRANSLATE_NOOP, ConfigError, _short
from .config import MAX_STEPS, TrainConfig, validate_train
from .tasks import TASKS

TARGETS = ("q", "k", "v", "o")   # W_Q, W_K, W_V (rows of the fused qkv Linear) and W_O (out)
MAX_ALPHA = 65536.0              # far above any useful α; a hostile one must not reach a float32


@dataclass(frozen=True)
class LoraConfig:
    task: str = "previous-token"
    rank: int = 4
    alpha: float | None = None        # None: α = r (scale 1), see the module docstring
    targets: tuple = ("q", "v")       # peft's usual pair for attention (W_Q, W_V)
    steps: int = 200
    lr: float = 1e-2                  # LoRA's few parameters take a larger step than full training
    seed: int = 0                     # A's draw and the fine-tune's batches
    compare_full: bool = False        # also run a full fine-tune on the same batches
    full_lr: float | None = None      # its learning rate; None: the base's own (see below)
    log_every: int = 10
    snapshot_every: int = 10

    def replace(self, **changes) -> "LoraConfig":
        return dataclasses.replace(self, **changes)

    @property
    def lora_alpha(self) -> float:
        """α as used: the given one, or r."""
        return float(self.rank if self.alpha is None else self.alpha)

    @property
    def scale(self) -> float:
        """The factor of B·A in W + (α / r)·B·A."""
        return self.lora_alpha / self.rank


def parse_targets(text: str) -> tuple:
    """'q,v' (any order, spaces allowed) → ('q', 'v') in TARGETS order; ConfigError otherwise."""
    names = [part.strip().lower() for part in str(text).split(",")]
    return check_targets(tuple(name for name in names if name))


def check_targets(targets) -> tuple:
    """The targets in TARGETS order, or ConfigError (empty, unknown, repeated, not strings)."""
    if not isinstance(targets, (tuple, list)) or not targets:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "LoRA needs at least one target among q, k, v, o"))
    for name in targets:
        if not isinstance(name, str) or name not in TARGETS:
            raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown LoRA target {value}; choose among "
                                                           "q, k, v, o"), value=_short(name))
    if len(set(targets)) != len(targets):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "a LoRA target is named twice: {value}"),
                             value=_short(",".join(targets)))
    return tuple(t for t in TARGETS if t in targets)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_rank(rank, d_model: int) -> None:
    if not _is_int(rank) or not 1 <= rank <= d_model:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "LoRA rank must be a whole number from 1 to "
                                                       "d_model ({d_model}), got {value}"),
                             d_model=d_model, value=_short(rank))


def _check_alpha(alpha) -> None:
    if alpha is None:
        return
    if (isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not math.isfinite(alpha)
            or not 0 < alpha <= MAX_ALPHA):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "LoRA alpha must be a number above 0 and at most "
                                                       "{limit}, got {value}"),
                             limit=f"{MAX_ALPHA:g}", value=_short(alpha))


def validate_lora(config: LoraConfig, base: TrainConfig) -> LoraConfig:
    """`config` with its targets in order if it fits the base model `base`, else ConfigError."""
    if not isinstance(config.task, str) or config.task not in TASKS:
        raise ConfigError(f"unknown task {_short(config.task)}; choose one of: {', '.join(TASKS)}")
    _check_rank(config.rank, base.d_model)
    _check_alpha(config.alpha)
    targets = check_targets(config.targets)
    if not isinstance(config.compare_full, bool):
        raise ConfigError(f"compare_full must be true or false, got {_short(config.compare_full)}")
    if not _is_int(config.seed) or not 0 <= config.seed <= SEED_MAX:
        raise ConfigError(f"seed must be between 0 and {SEED_MAX}, got {_short(config.seed)}")
    if not _is_int(config.steps) or not 1 <= config.steps <= MAX_STEPS:
        raise ConfigError(f"steps must be between 1 and {MAX_STEPS}, got {_short(config.steps)}")
    config = config.replace(targets=targets)
    fine_tune_config(config, base)  # the task at the base's sizes, lr, intervals, memory
    if config.full_lr is not None:
        validate_train(base.replace(lr=config.full_lr))
    return config


def fine_tune_config(config: LoraConfig, base: TrainConfig) -> TrainConfig:
    """The validated TrainConfig of the fine-tune: the base's shapes, batch and device, the
    fine-tune's task, steps, learning rate, seed and intervals."""
    return validate_train(base.replace(task=config.task, steps=config.steps, lr=config.lr,
                                       seed=config.seed, log_every=config.log_every,
                                       snapshot_every=config.snapshot_every))


def full_lr(config: LoraConfig, base: TrainConfig) -> float:
    """The full fine-tune's learning rate: `full_lr`, or the base's own."""
    return base.lr if config.full_lr is None else config.full_lr


def lora_parameter_count(config: LoraConfig, base: TrainConfig) -> int:
    """Trainable LoRA parameters: per layer and target, r·(d_in + d_out) = 2·r·d_model."""
    return base.n_layers * len(config.targets) * config.rank * 2 * base.d_model


def base_parameter_count(base: TrainConfig) -> int:
    """Every parameter of the base (what a full fine-tune trains): embeddings, 4·d² per layer,
    the unembedding."""
    d = base.d_model
    return base.vocab * d + base.seq_len * d + base.n_layers * 4 * d * d + d * base.vocab
