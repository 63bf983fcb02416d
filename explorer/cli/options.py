"""Options every sub-command that computes attention shares, and the one-line usage error.

Bad arguments give one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from ..app.i18n import LANGUAGES
from ..core import AttentionConfig, ConfigError, validate
from ..core.config import parse_whole, split_sentence
from ..core.presets import PRESETS, get_preset
from .output import one_line

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as a single line (no usage dump)."""

    def error(self, message: str):
        try:
            self._print_message(f"{self.prog}: error: {one_line(message)}\n", sys.stderr)
        except (OSError, ValueError, AttributeError):  # stderr closed or full: the code says it
            pass
        sys.exit(EXIT_USAGE)


def whole(text: str) -> int:
    """argparse type for whole numbers (see core.config.parse_whole); its message, not a repr."""
    try:
        return parse_whole(text, "the value")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def ascii_int(text: str) -> int:
    """argparse type like int, for ASCII digits only (int() takes "５" and "٣" too; parse_whole
    also caps the digits); a refusal reads as argparse's own: "invalid int value: '５'"."""
    try:
        return parse_whole(text, "the value")
    except ConfigError:
        raise ValueError(text) from None


ascii_int.__name__ = "int"  # the word in argparse's "invalid int value" message


def ascii_float(text: str) -> float:
    """argparse type like float, for ASCII text only (float() takes "１e-3" too)."""
    if not text.isascii():
        raise ValueError(text)
    return float(text)


ascii_float.__name__ = "float"


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that computes attention."""
    parser.add_argument("--preset", choices=sorted(PRESETS), help="start from a named preset")
    parser.add_argument("--tokens", help="the sentence, split on whitespace")
    parser.add_argument("--d-model", type=whole, help="model width")
    parser.add_argument("--heads", type=whole, help="number of heads (must divide d_model)")
    parser.add_argument("--seed", type=whole, help="random seed (0 .. 2**32-1)")
    parser.add_argument("--no-scale", action="store_true", help="do not divide scores by √d_head")
    parser.add_argument("--causal", action="store_true", help="causal (lower-triangular) mask")
    parser.add_argument("--pad", type=whole, action="append", default=[], metavar="I",
                        help="mark token I (0-based) as padding; repeatable")
    parser.add_argument("--positional", action="store_true", help="add sinusoidal PE to X")
    parser.add_argument("--backend", choices=("numpy", "torch"))
    parser.add_argument("--device", help="cpu, cuda or cuda:N (torch backend)")
    parser.add_argument("--dtype", choices=("float64", "float32"))
    parser.add_argument("--init", choices=("course", "unit"),
                        help="weights randn×0.5 (course, default) or randn/√d_model (unit)")


def add_language_option(parser: argparse.ArgumentParser, what: str) -> None:
    """--lang ko|en: the language of `what` (English when not given, so scripts are stable)."""
    parser.add_argument("--lang", choices=LANGUAGES, default="en",
                        help=f"language of {what} (default en)")


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
