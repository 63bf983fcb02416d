"""`attention-explorer train`: train a tiny attention-only transformer, print its curves.

    attention-explorer train --task induction --steps 600 --seed 0 --json

Exit codes: 0 trained (and saved with --out), 1 the model file could not be written or exists
without --force (nothing left behind, checked before training too), 2 bad options (one line on
stderr, as in explorer.cli.main), 130 interrupted with Ctrl+C (nothing saved).

--out is written by the one output writer (explorer.core.files.output_files): never over anything but a
regular file (a FIFO, a device, a symlink: refused even with --force; as root, --out /dev/null
--force once replaced the machine's /dev/null), mode from the umask, and the folder, the name
and an existing file are checked before training starts, not after.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from ..core import ConfigError
from ..core.training import (ROLES, TASKS, CheckpointError, TrainConfig, phase_change_step,
                             require_safetensors, validate_train)
from ..core.files.output_files import ExportError, ExportExistsError, check_targets, write_file
from .options import ascii_float, ascii_int

EXIT_FILES = 1
EXIT_INTERRUPTED = 130  # the shell's code for Ctrl+C
_DEFAULTS = TrainConfig()
# option -> TrainConfig field (options left out keep the recipe's value)
_FIELDS = {"task": "task", "steps": "steps", "seed": "seed", "layers": "n_layers",
           "heads": "n_heads", "d_model": "d_model", "vocab": "vocab", "seq_len": "seq_len",
           "lr": "lr", "batch": "batch", "log_every": "log_every",
           "snapshot_every": "snapshot_every", "device": "device"}


def add_train_parser(sub) -> argparse.ArgumentParser:
    """Register the `train` sub-command on the CLI's sub-parsers."""
    d = _DEFAULTS
    parser = sub.add_parser("train", help="train a tiny attention-only transformer and report its heads")
    parser.add_argument("--task", choices=list(TASKS), help=f"what to learn (default {d.task})")
    parser.add_argument("--steps", type=ascii_int, help=f"optimiser steps (default {d.steps})")
    parser.add_argument("--seed", type=ascii_int, help=f"seed for weights and data (default {d.seed})")
    parser.add_argument("--layers", type=ascii_int, help=f"1 or 2 (default {d.n_layers})")
    parser.add_argument("--heads", type=ascii_int, help=f"heads per layer (default {d.n_heads})")
    parser.add_argument("--d-model", type=ascii_int, help=f"model width (default {d.d_model})")
    parser.add_argument("--vocab", type=ascii_int, help=f"vocabulary size (default {d.vocab})")
    parser.add_argument("--seq-len", type=ascii_int, help=f"sequence length (default {d.seq_len})")
    parser.add_argument("--lr", type=ascii_float, help=f"AdamW learning rate (default {d.lr:g})")
    parser.add_argument("--batch", type=ascii_int, help=f"sequences per step (default {d.batch})")
    parser.add_argument("--log-every", type=ascii_int, help=f"steps between logged points (default {d.log_every})")
    parser.add_argument("--snapshot-every", type=ascii_int,
                        help=f"steps between saved attention snapshots (default {d.snapshot_every})")
    parser.add_argument("--device", help="cpu (default), cuda or cuda:N")
    parser.add_argument("--threads", type=ascii_int, default=1,
                        help="torch intra-op threads (default 1; the same count gives the same curves)")
    parser.add_argument("--out", metavar="FILE.safetensors", help="save the trained model here")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run_train)
    return parser


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The validated TrainConfig the options describe (ConfigError otherwise)."""
    changes = {field: getattr(args, option) for option, field in _FIELDS.items()
               if getattr(args, option) is not None}
    return validate_train(_DEFAULTS.replace(**changes))


def _num(x: float):
    return None if math.isnan(x) else round(float(x), 6)


def result_to_dict(trainer, wall_seconds: float, out: Path | None) -> dict:
    """Everything `--json` prints: curves per logged step, switch steps per head, timings."""
    curves = trainer.curves()
    switches = trainer.switch_steps()
    return {
        "config": json.loads(trainer.config.to_json()),
        "steps": curves["steps"].tolist(),
        "loss": [_num(x) for x in curves["heldout_loss"]],        # held-out batch
        "train_loss": [_num(x) for x in curves["train_loss"]],    # null at step 0
        "accuracy": [_num(x) for x in curves["accuracy"]],
        "scores": [[[{role: _num(head[i]) for i, role in enumerate(ROLES)} for head in layer]
                    for layer in step] for step in curves["scores"]],  # [step][layer][head]{role}
        "switch_step": switches,                                  # [layer][head]{role: step|null}
        "phase_change_step": phase_change_step(switches),
        "seconds": round(trainer.seconds, 4),                     # training steps only
        "wall_seconds": round(wall_seconds, 4),                   # with logging and probes
        "out": str(out) if out else None,
    }


def summary(result: dict) -> str:
    """A few lines for a person: final loss, best heads, switch steps."""
    c = result["config"]
    lines = [f"trained {c['task']} for {result['steps'][-1]} steps "
             f"({c['n_layers']} layers × {c['n_heads']} heads, d_model {c['d_model']}, seed {c['seed']}) "
             f"in {result['seconds']:.1f} s",
             f"held-out loss {result['loss'][0]:.3f} → {result['loss'][-1]:.3f}, "
             f"accuracy {result['accuracy'][-1]:.2f}"]
    final = result["scores"][-1]
    for layer, heads in enumerate(final):
        for role in ROLES:
            best = max(range(len(heads)), key=lambda h: heads[h][role])
            step = result["switch_step"][layer][best][role]
            when = f"switched on at step {step}" if step is not None else "not switched on"
            lines.append(f"layer {layer} best {role.replace('_', '-')} head: {best} "
                         f"(score {heads[best][role]:.2f}, {when})")
    phase = result["phase_change_step"]
    lines.append(f"phase change at step {phase}" if phase is not None else "no phase change")
    if result["out"]:
        lines.append(f"saved {result['out']}")
    return "\n".join(lines)


def _out_path(text: str | None) -> Path | None:
    """--out as a path (None when not given); ConfigError (exit 2) for an empty one."""
    if text is None:
        return None
    if not text.strip():
        raise ConfigError("--out needs a file name (it is empty)")
    return Path(text).expanduser()


def _check_out(out: Path, force: bool) -> None:
    """Fail before training, not after, if the file cannot or should not be written there:
    the writer's own checks (folder writable, name, existing or non-regular target)."""
    try:
        check_targets(out.parent, [out.name], "overwrite" if force else "error")
    except ExportExistsError:
        raise CheckpointError(f"{out} exists; add --force to overwrite it") from None
    except ExportError as exc:
        raise CheckpointError(str(exc)) from None
    require_safetensors()


def _save(trainer, out: Path, force: bool) -> None:
    """The trained model's bytes through the writer (core.output_files), as _check_out checked."""
    from ..core.training.checkpoint import model_bytes
    try:
        write_file(out, model_bytes(trainer.model, trainer.step_count), "overwrite" if force else "error")
    except ExportExistsError:  # appeared while training
        raise CheckpointError(f"{out} exists; add --force to overwrite it") from None
    except ExportError as exc:
        raise CheckpointError(str(exc)) from None


def run_train(args: argparse.Namespace) -> int:
    """Train as the options say; ConfigError / DeviceUnavailableError go up to cli.main (exit 2)."""
    config = config_from_args(args)
    if args.threads is not None and not 1 <= args.threads <= 256:
        raise ConfigError(f"threads must be between 1 and 256, got {args.threads}")
    out = _out_path(args.out)
    try:
        if out:
            _check_out(out, args.force)
        from ..core.training import Trainer  # imports torch: only once the options are known good
        start = time.perf_counter()
        trainer = Trainer(config, threads=args.threads)
        for _ in trainer.run():
            pass
        wall = time.perf_counter() - start
        if out:
            _save(trainer, out, args.force)
    except CheckpointError as exc:
        print(f"attention-explorer: error: {exc}", file=sys.stderr)
        return EXIT_FILES
    except KeyboardInterrupt:
        print("attention-explorer: training interrupted, nothing saved", file=sys.stderr)
        return EXIT_INTERRUPTED
    result = result_to_dict(trainer, wall, out)
    print(json.dumps(result) if args.json else summary(result))
    return 0

