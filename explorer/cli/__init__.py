"""Command line: `attention-explorer` opens the window; one module per sub-command.

`dump` (dump.py) prints a computation, `export` (export.py) writes figures without a window;
both share options.py; `models` and `dump --model` (learned.py) are the pretrained models;
`train` (train.py) trains a tiny transformer and reports its heads. The window itself (`gui`,
the default) is imported only when asked for, so `dump` loads neither Qt nor torch. Bad
arguments give one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys

from ..core import ConfigError, DeviceUnavailableError
from .dump import add_dump_parser
from .export import add_export_parser
from .learned import add_models_parser
from .lesson import add_lesson_parser, lesson_for_window
from .options import EXIT_USAGE, OneLineParser, add_config_options, config_from_args
from .output import EXIT_FAILED, OutputError, flush_stdout, say, silence_stdout, terminate_as_exit
from .train import add_train_parser

__all__ = ["EXIT_USAGE", "OneLineParser", "add_config_options", "build_parser", "config_from_args",
           "main"]


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="attention-explorer",
                           description="See multi-head attention while you change it.")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)
    gui = sub.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--settings", help="settings file to use instead of the user's")
    for where in (parser, gui):
        where.add_argument("--lesson", metavar="NAME|FILE",
                           help="open the window on a lesson (a built-in name or a .toml file)")
    add_dump_parser(sub)
    add_export_parser(sub)
    add_models_parser(sub)
    add_train_parser(sub)
    add_lesson_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command in ("dump", "models", "train", "lesson") and sys.stdout is None:
            raise OutputError("standard output is closed")  # started with `>&-`
        if args.command in ("dump", "export", "models", "train", "lesson"):
            with terminate_as_exit():  # export: SIGTERM removes its .part files as Ctrl+C does
                code = args.run(args)
            if args.command != "export":  # (export reports its own stdout trouble: files stay)
                flush_stdout()  # a closed pipe or a full disk shows up here, inside the try
            return code
    except (ConfigError, DeviceUnavailableError) as exc:
        say(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:
        # `dump | head`: the reader left. Exit quietly (as the Python docs advise).
        silence_stdout()
        return EXIT_FAILED
    except OutputError as exc:
        say(str(exc))
        return EXIT_FAILED
    lesson = None
    if getattr(args, "lesson", None) is not None:
        try:
            lesson = lesson_for_window(args.lesson)  # its problems on stderr, before any window
        except SystemExit as exc:
            return int(exc.code)
    from ..platform_check import display_problem
    problem = display_problem()  # before Qt, which would abort with a paragraph
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from ..gui.window.app import run_app  # Qt only for the window
    return run_app(settings_path=getattr(args, "settings", None), lesson=lesson)
