"""Command line: `attention-explorer` opens the window; `dump` prints a computation.

The `export` sub-command (figures without a window) lives in explorer.export_cli.
Bad arguments give one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .core import AttentionConfig, ConfigError, DeviceUnavailableError, validate
from .core.config import split_sentence
from .core.presets import PRESETS, get_preset

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as a single line (no usage dump)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that computes attention."""
    parser.add_argument("--preset", choices=sorted(PRESETS), help="start from a named preset")
    parser.add_argument("--tokens", help="the sentence, split on whitespace")
    parser.add_argument("--d-model", type=int, help="model width")
    parser.add_argument("--heads", type=int, help="number of heads (must divide d_model)")
    parser.add_argument("--seed", type=int, help="random seed (0 .. 2**32-1)")
    parser.add_argument("--no-scale", action="store_true", help="do not divide scores by √d_head")
    parser.add_argument("--causal", action="store_true", help="causal (lower-triangular) mask")
    parser.add_argument("--pad", type=int, action="append", default=[], metavar="I",
                        help="mark token I (0-based) as padding; repeatable")
    parser.add_argument("--positional", action="store_true", help="add sinusoidal PE to X")
    parser.add_argument("--backend", choices=("numpy", "torch"))
    parser.add_argument("--device", help="cpu, cuda or cuda:N (torch backend)")
    parser.add_argument("--dtype", choices=("float64", "float32"))
    parser.add_argument("--init", choices=("course", "unit"),
                        help="weights randn×0.5 (course, default) or randn/√d_model (unit)")


def config_from_args(args: argparse.Namespace) -> AttentionConfig:
    """The validated config the options describe (ConfigError otherwise)."""
    base = get_preset(args.preset).config if args.preset else AttentionConfig()
    changes = {}
    if args.tokens is not None:
        changes["tokens"] = split_sentence(args.tokens)
    for option, name in (("d_model", "d_model"), ("heads", "n_heads"), ("seed", "seed"),
                         ("backend", "backend"), ("device", "device"), ("dtype", "dtype"),
                         ("init", "init")):
        if getattr(args, option) is not None:
            changes[name] = getattr(args, option)
    if args.device and args.device != "cpu" and args.backend is None:
        changes["backend"] = "torch"  # a CUDA device implies torch
    if args.no_scale:
        changes["scaled"] = False
    if args.causal:
        changes["causal"] = True
    if args.pad:
        changes["padding"] = frozenset(args.pad)
    if args.positional:
        changes["positional"] = True
    return validate(base.replace(**changes))


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="attention-explorer",
                           description="See multi-head attention while you change it.")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)
    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--settings", help="settings file to use instead of the user's")
    dump = sub.add_parser("dump", help="print one computation as JSON or text")
    add_config_options(dump)
    dump.add_argument("--format", choices=("json", "text"), default="json")
    dump.add_argument("--kv", action="store_true", help="add the KV-cache step-through")
    from .export_cli import add_export_parser  # here: export_cli imports this module
    add_export_parser(sub)
    from .train_cli import add_train_parser
    add_train_parser(sub)
    return parser


def run_dump(args: argparse.Namespace) -> int:
    from .core import forward, run_kv_cache
    from .report import result_to_dict, result_to_text
    config = config_from_args(args)
    result = forward(config)
    trace = run_kv_cache(config) if args.kv else None
    if args.format == "text":
        print(result_to_text(result, trace))
    else:
        print(json.dumps(result_to_dict(result, trace), ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "dump":
            code = run_dump(args)
            sys.stdout.flush()  # a closed pipe shows up here, inside the try
            return code
        if args.command in ("export", "train"):
            return args.run(args)
    except (ConfigError, DeviceUnavailableError) as exc:
        print(f"attention-explorer: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `dump | head`: the reader left. Point stdout at devnull so the interpreter's
        # final flush cannot fail again, and exit quietly (as the Python docs advise).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    from .platform_check import display_problem
    problem = display_problem()  # before Qt, which would abort with a paragraph
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from .gui.app import run_app  # Qt only for the window
    return run_app(settings_path=getattr(args, "settings", None))
