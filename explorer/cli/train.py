"""`attention-explorer train`: train a tiny attention-only transformer, print its curves.

    attention-explorer train --task induction --steps 600 --seed 0 --json
    attention-explorer train --task reverse --base tiny.safetensors --lora-rank 4 \
        [--lora-alpha A] [--lora-targets q,k,v,o] [--adapter-out DIR] [--compare-full] [--json]

With --base and --lora-rank it fine-tunes a LoRA on a saved model instead (core.training.lora):
the base is frozen (its file is only read), only the LoRA matrices train, on --task (default
previous-token) for --steps (default 200) at --lr (default 1e-2; the full fine-tune of
--compare-full runs at the base's own learning rate on the same batches). The base's sizes come
from its file, so --layers, --heads, --d-model, --vocab, --seq-len, --batch and --out do not go
with --base. --adapter-out DIR saves the adapter in peft's layout (core.training.lora_save).
The JSON adds trainable_parameters, total_parameters, base_loss {before, after}, final_loss and
the full fine-tune's curves.

Exit codes: 0 trained (and saved with --out / --adapter-out), 1 the model file or adapter could
not be written or exists without --force (nothing left behind, checked before training too),
2 bad options (one line on stderr, as in explorer.cli.main; a missing or refused --base file
too), 130 interrupted with Ctrl+C (nothing saved).

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
    lora = parser.add_argument_group("LoRA fine-tune of a saved model")
    lora.add_argument("--base", metavar="FILE.safetensors", help="the frozen base (a model saved by train)")
    lora.add_argument("--lora-rank", type=ascii_int, metavar="R", help="rank r of each LoRA (1 … d_model)")
    lora.add_argument("--lora-alpha", type=ascii_float, metavar="A", help="α (default r: scale α/r = 1)")
    lora.add_argument("--lora-targets", metavar="q,k,v,o",
                      help="which of W_Q, W_K, W_V, W_O get a LoRA (default q,v)")
    lora.add_argument("--adapter-out", metavar="DIR", help="save the adapter here (peft's layout)")
    lora.add_argument("--compare-full", action="store_true",
                      help="also fine-tune every weight on the same batches, for comparison")
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


def _check_threads(args: argparse.Namespace) -> None:
    if args.threads is not None and not 1 <= args.threads <= 256:
        raise ConfigError(f"threads must be between 1 and 256, got {args.threads}")


def run_train(args: argparse.Namespace) -> int:
    """Train as the options say; ConfigError / DeviceUnavailableError go up to cli.main (exit 2)."""
    if _lora_asked(args):
        return run_lora(args)
    config = config_from_args(args)
    _check_threads(args)
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



# ----- LoRA fine-tune (--base … --lora-rank R) ---------------------------------------------------
_LORA_ONLY = ("lora_alpha", "lora_targets", "adapter_out")
_NOT_WITH_BASE = {"layers": "--layers", "heads": "--heads", "d_model": "--d-model", "vocab": "--vocab",
                  "seq_len": "--seq-len", "batch": "--batch", "out": "--out"}


def _lora_asked(args: argparse.Namespace) -> bool:
    """Whether the options ask for a LoRA fine-tune; ConfigError when they are half of one."""
    asked = args.base is not None or args.lora_rank is not None
    if not asked:
        extra = [name for name in _LORA_ONLY if getattr(args, name) is not None]
        if extra or args.compare_full:
            raise ConfigError("--lora-alpha, --lora-targets, --adapter-out and --compare-full need "
                              "--base FILE.safetensors and --lora-rank R")
        return False
    if args.base is None or not args.base.strip():
        raise ConfigError("--lora-rank needs --base FILE.safetensors (the model to fine-tune)")
    if args.lora_rank is None:
        raise ConfigError("--base needs --lora-rank R (the rank of each LoRA)")
    given = [flag for name, flag in _NOT_WITH_BASE.items() if getattr(args, name) is not None]
    if given:
        raise ConfigError(f"{given[0]} does not go with --base: the base's file sets the model "
                          "(save the adapter with --adapter-out)")
    return True


def _lora_config(args: argparse.Namespace):
    """The LoraConfig the options describe (checked against the base by validate_lora)."""
    from ..core.training.lora_config import LoraConfig, parse_targets
    defaults = LoraConfig()
    changes = {name: getattr(args, name) for name in ("task", "steps", "seed", "lr", "log_every",
                                                      "snapshot_every") if getattr(args, name) is not None}
    return defaults.replace(rank=args.lora_rank, alpha=args.lora_alpha, compare_full=args.compare_full,
                            targets=parse_targets(args.lora_targets or "q,v"), **changes)


def _load_base(path: Path, device: str):
    """(model, its TrainConfig, steps) of --base; a refused file is a bad option (exit 2)."""
    from ..core.training import load_model
    try:
        return load_model(path, device)
    except CheckpointError as exc:
        raise ConfigError(f"--base: {exc}") from None


def _check_adapter_out(folder: Path, force: bool) -> None:
    from ..core.training.lora_save import check_adapter_folder
    try:
        check_adapter_folder(folder, "overwrite" if force else "error")
    except ExportExistsError:
        raise CheckpointError(f"{folder} holds an adapter already; add --force to replace it") from None
    except ExportError as exc:
        raise CheckpointError(str(exc)) from None


def _save_adapter(tune, folder: Path, base: Path, force: bool) -> None:
    from ..core.training.lora_save import adapter_files, write_adapter
    files = adapter_files(tune.model, tune.step_count, base.name)
    try:
        write_adapter(folder, files, "overwrite" if force else "error")
    except ExportExistsError:
        raise CheckpointError(f"{folder} holds an adapter already; add --force to replace it") from None
    except ExportError as exc:
        raise CheckpointError(str(exc)) from None


def run_lora(args: argparse.Namespace) -> int:
    """A LoRA fine-tune of --base; bad options (the base file too) raise ConfigError (exit 2)."""
    _check_threads(args)
    lora = _lora_config(args)  # the targets and the types, before the file is read
    base_path = Path(args.base).expanduser()
    out = None if args.adapter_out is None else Path(args.adapter_out).expanduser()
    if out is not None and not args.adapter_out.strip():
        raise ConfigError("--adapter-out needs a folder name (it is empty)")
    from ..core.training.lora_config import validate_lora
    base, base_config, base_steps = _load_base(base_path, args.device or "cpu")
    lora = validate_lora(lora, base_config)
    try:
        if out is not None:
            _check_adapter_out(out, args.force)
            require_safetensors()
        from ..core.training.lora_tune import FineTune  # torch: the base is loaded already
        start = time.perf_counter()
        tune = FineTune(base, lora, threads=args.threads)
        for _ in tune.run():
            pass
        wall = time.perf_counter() - start
        if out is not None:
            _save_adapter(tune, out, base_path, args.force)
    except CheckpointError as exc:
        print(f"attention-explorer: error: {exc}", file=sys.stderr)
        return EXIT_FILES
    except KeyboardInterrupt:
        print("attention-explorer: fine-tune interrupted, nothing saved", file=sys.stderr)
        return EXIT_INTERRUPTED
    result = lora_result(tune, wall, out, base_path, base_steps)
    print(json.dumps(result) if args.json else lora_summary(result))
    return 0


def _curve(records, key: str) -> list:
    return [_num(getattr(r, key)) for r in records]


def lora_result(tune, wall_seconds: float, out: Path | None, base: Path, base_steps: int) -> dict:
    """--json's object: the training keys (curves of the adapted model) plus the LoRA's."""
    result = result_to_dict(tune.lora, wall_seconds, out)
    lora, counts = tune.config, tune.parameter_counts()
    full = tune.full_records
    result.update({
        "mode": "lora",
        "base": {"path": str(base), "task": tune.base_config.task, "steps_trained": base_steps},
        "lora": {"rank": lora.rank, "alpha": lora.lora_alpha, "scale": lora.scale,
                 "targets": list(lora.targets), "lr": lora.lr, "seed": lora.seed},
        "trainable_parameters": counts["trainable"],
        "total_parameters": counts["total"],               # base + LoRA, as peft counts
        "full_fine_tune_parameters": counts["full"],
        "trainable_share": round(counts["trainable"] / counts["total"], 6),
        "base_loss": {"before": _num(tune.records[0].heldout_loss),  # = step 0 (B = 0)
                      "after": _num(tune.base_heldout_loss())},      # the frozen base again
        "final_loss": _num(tune.records[-1].heldout_loss),
        "full": None if not full else {
            "lr": tune.full.config.lr, "loss": _curve(full, "heldout_loss"),
            "train_loss": _curve(full, "train_loss"), "accuracy": _curve(full, "accuracy"),
            "final_loss": _num(full[-1].heldout_loss)},
    })
    return result


def lora_summary(result: dict) -> str:
    """A few lines for a person: what was fine-tuned, the parameter share, the losses."""
    lora, c = result["lora"], result["config"]
    targets = ", ".join(lora["targets"])
    lines = [f"LoRA fine-tune of {result['base']['path']} ({result['base']['task']}) on {c['task']} "
             f"for {result['steps'][-1]} steps: r = {lora['rank']}, alpha = {lora['alpha']:g}, "
             f"targets {targets}, in {result['seconds']:.1f} s",
             f"trainable parameters {result['trainable_parameters']:,} of {result['total_parameters']:,} "
             f"({100 * result['trainable_share']:.1f} %); a full fine-tune trains "
             f"{result['full_fine_tune_parameters']:,}",
             f"held-out loss on {c['task']}: base {result['base_loss']['before']:.3f} -> adapted "
             f"{result['final_loss']:.3f}, accuracy {result['accuracy'][-1]:.2f}"]
    if result["full"]:
        lines.append(f"full fine-tune on the same batches: {result['full']['final_loss']:.3f}, "
                     f"accuracy {result['full']['accuracy'][-1]:.2f}")
    lines.append(f"base unchanged: its held-out loss is {result['base_loss']['after']:.3f} after the fine-tune")
    if result["out"]:
        lines.append(f"saved the adapter to {result['out']}")
    return "\n".join(lines)
