"""Command line: `attention-explorer` opens the window; one module per sub-command.

`dump` (dump.py) prints a computation, `export` (export.py) writes figures without a window;
both share options.py; `models` and `dump --model` (learned.py) are the pretrained models;
`train` (train.py) trains a tiny transformer and reports its heads. The window itself (`gui`,
the default) is imported only when asked for, so `dump` loads neither Qt nor torch. Bad
arguments give one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys

from .interrupt import Interrupted, stop_signals
from .output import EXIT_FAILED, OutputError, flush_stdout, note, say, silence_stdout, terminate_as_exit

# Only the standard library above: `main` catches stop signals (interrupt.py) before the
# sub-commands load numpy and the rest (a third of a second), so Ctrl+C while they load
# gives one line, not a traceback from inside an import.
__all__ = ["EXIT_USAGE", "OneLineParser", "add_config_options", "build_parser", "config_from_args",
           "main"]
_FROM_OPTIONS = ("EXIT_USAGE", "OneLineParser", "add_config_options", "config_from_args")


def __getattr__(name: str):
    """The shared option helpers, loaded when first asked for (see the imports above)."""
    if name in _FROM_OPTIONS:
        from . import options
        return getattr(options, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser():
    from .dump import add_dump_parser
    from .export import add_export_parser
    from .learned import add_models_parser
    from .lesson import add_lesson_parser
    from .options import OneLineParser
    from .train import add_train_parser
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
    """Run the command line; `argv` None means the process's own (sys.argv).

    Stop signals are only noted while the options are read and while `export` runs (it undoes
    its files and exits 128 + the signal's number: SystemExit). The other commands get their
    handlers back before they run. Called as the program, `export` ignores them once its
    outcome is decided: one that comes while the process exits changes nothing (interrupt.py).
    """
    own = argv is None
    argv = sys.argv[1:] if own else argv
    with stop_signals(then="ignore" if own else "restore") as stops:
        try:
            args = build_parser().parse_args(argv)
            stops.check()
            if args.command != "export":
                stops.restore()
            return _run(args)
        except Interrupted as stop:
            note(f"interrupted by {stop.name}: {stop.outcome}")
            raise SystemExit(stop.exit_code) from None


def _run(args) -> int:
    from ..core import ConfigError, DeviceUnavailableError
    from .options import EXIT_USAGE
    try:
        if args.command in ("dump", "models", "train", "lesson") and sys.stdout is None:
            raise OutputError("standard output is closed")  # started with `>&-`
        if args.command == "export":  # stop signals: interrupt.py
            return args.run(args)  # (export reports its own stdout trouble: files stay)
        if args.command in ("dump", "models", "train", "lesson"):
            with terminate_as_exit():
                code = args.run(args)
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
    return _open_window(args)


def _open_window(args) -> int:
    from .lesson import lesson_for_window
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
