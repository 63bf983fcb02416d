"""The one description of a training run, validated in one place (no torch import).

`TrainConfig` is frozen: hand it to a background job, compare it, store it in a saved model's
metadata (`to_json` / `from_json`). `validate_train` is the only place its fields are checked;
the rest of the training code may assume a valid config. Whether a CUDA device really exists is
checked when the trainer starts (backends.resolve_torch_device), as for the attention backends.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
from dataclasses import dataclass

from ..config import _DEVICE_RE, SEED_MAX, QT_TRANSLATE_NOOP, ConfigError, _short
from .tasks import TASKS

MAX_LAYERS = 2          # the issue: layers 1–2 (a previous-token + induction circuit needs 2)
MAX_D_MODEL = 512
MAX_HEADS = 16
MAX_VOCAB = 1024
MIN_SEQ_LEN, MAX_SEQ_LEN = 8, 256
MAX_STEPS = 100_000
MAX_BATCH = 4096
# Snapshots (probe attention for every head) are kept in memory for the timeline: 500 steps every
# 25 at the recipe's size is 21 frames of 18 KiB; 100 000 steps, every step, 2 × 16 heads at seq 256
# would be 470 GB.
MAX_SNAPSHOT_BYTES = 256 * 1024**2
# One training step's activations (rough: one-hot inputs, residual stream, logits, and per layer the
# scores, weights and their gradients). The recipe: ~12 MB; batch 4096 × seq 256 × 2 × 16 heads: ~140 GB.
MAX_STEP_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class TrainConfig:
    """A run of the measured recipe by default.

    ../shared/learned-models.md, "A model trained in the window"; re-measured here: see
    tests/training/test_phase_change.py and benchmarks/training.py.
    """

    task: str = "induction"
    n_layers: int = 2
    n_heads: int = 4
    d_model: int = 64
    vocab: int = 64
    seq_len: int = 32
    seed: int = 0
    lr: float = 3e-3
    steps: int = 500
    batch: int = 64
    log_every: int = 10        # steps between logged records (losses, accuracy, probe scores)
    snapshot_every: int = 25   # steps between snapshots (probe attention) for the timeline
    device: str = "cpu"        # "cpu", "cuda" or "cuda:N"

    def replace(self, **changes) -> "TrainConfig":
        return dataclasses.replace(self, **changes)

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "TrainConfig":
        """The validated config `text` describes (ConfigError if it does not describe one)."""
        try:
            fields = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"training config is not valid JSON ({exc})") from exc
        except RecursionError:  # "[[[[…" 100 000 deep in a saved model's metadata
            raise ConfigError.of(QT_TRANSLATE_NOOP("core", "training config is nested too deeply")) from None
        if not isinstance(fields, dict):
            raise ConfigError("training config must be a JSON object")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(fields) - known)
        if unknown:
            raise ConfigError(f"unknown training config field(s): {', '.join(unknown)}")
        return validate_train(cls(**fields))


# the field names _int_in puts in its messages, marked for the catalogue (app.i18n.error_text)
FIELD_WORDS = (QT_TRANSLATE_NOOP("core", "layers"), QT_TRANSLATE_NOOP("core", "sequence length"),
               QT_TRANSLATE_NOOP("core", "vocabulary size"), QT_TRANSLATE_NOOP("core", "steps"),
               QT_TRANSLATE_NOOP("core", "batch"), QT_TRANSLATE_NOOP("core", "log interval"),
               QT_TRANSLATE_NOOP("core", "snapshot interval"))


def _int_in(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be a whole number, got {value}"),
                             ("name",), name=name, value=_short(value))
    if not low <= value <= high:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{name} must be between {low} and {high}, got {value}"),
                             ("name",), name=name, low=low, high=high, value=value)


def _check_snapshot_memory(config: TrainConfig) -> None:
    from .tasks import probe_half
    frames = config.steps // config.snapshot_every + 2  # step 0 and the last step too
    probe = 2 * probe_half(config.seq_len)
    size = frames * config.n_layers * config.n_heads * probe * probe * 4  # float32
    if size > MAX_SNAPSHOT_BYTES:
        least = -(-config.steps * config.n_layers * config.n_heads * probe * probe * 4 // MAX_SNAPSHOT_BYTES)
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{frames} snapshots would take {mib} MiB; use a "
                                               "snapshot interval of at least {least} steps"),
                             frames=frames, mib=f"{size / 1024**2:.0f}", least=least)


def step_bytes(config: TrainConfig) -> int:
    """Rough float32 activation memory of one training step (see MAX_STEP_BYTES)."""
    per_token = 2 * config.vocab + 4 * config.d_model + 4 * config.n_layers * config.n_heads * config.seq_len
    return 4 * config.batch * config.seq_len * per_token


def _check_step_memory(config: TrainConfig) -> None:
    need = step_bytes(config)
    if need > MAX_STEP_BYTES:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "a step at batch {batch} would need about {gib} GiB "
                                               "(limit {limit} GiB); use a smaller batch or sequence"),
                             batch=config.batch, gib=f"{need / 1024**3:.1f}", limit=MAX_STEP_BYTES // 1024**3)


def validate_train(config: TrainConfig) -> TrainConfig:
    """Return `config` if every field is usable, else raise ConfigError saying which and why."""
    if not isinstance(config.task, str) or config.task not in TASKS:  # (a list from JSON is unhashable)
        raise ConfigError(f"unknown task {_short(config.task)}; choose one of: {', '.join(TASKS)}")
    _int_in("layers", config.n_layers, 1, MAX_LAYERS)
    _int_in("heads", config.n_heads, 1, MAX_HEADS)
    _int_in("d_model", config.d_model, 1, MAX_D_MODEL)
    if config.d_model % config.n_heads:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "d_model ({d_model}) must be divisible by heads ({heads})"),
                             d_model=config.d_model, heads=config.n_heads)
    _int_in("sequence length", config.seq_len, MIN_SEQ_LEN, MAX_SEQ_LEN)
    _int_in("vocabulary size", config.vocab, 2, MAX_VOCAB)
    TASKS[config.task].check(config.vocab, config.seq_len)
    _int_in("seed", config.seed, 0, SEED_MAX)
    if isinstance(config.lr, bool) or not isinstance(config.lr, numbers.Real) or not 0 < config.lr <= 1:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "learning rate must be a number in (0, 1], got {value}"),
                             value=_short(config.lr))
    _int_in("steps", config.steps, 1, MAX_STEPS)
    _int_in("batch", config.batch, 1, MAX_BATCH)
    _int_in("log interval", config.log_every, 1, MAX_STEPS)
    _int_in("snapshot interval", config.snapshot_every, 1, MAX_STEPS)
    _check_snapshot_memory(config)
    _check_step_memory(config)
    if not isinstance(config.device, str) or not _DEVICE_RE.match(config.device):
        raise ConfigError(f"device must be cpu, cuda or cuda:N, got {_short(config.device)}")
    return config
