"""`attention-explorer export`: the window's figures as PNG / SVG / CSV files, no window.

Exit codes: 0 written (paths printed one per line), 1 nothing written because of the
files (an existing file without --force, a missing or unwritable folder, a full disk),
2 bad options (one line on stderr, as argparse and `cli.main` do), 128 + the signal's number
when Ctrl+C, `kill` or a closed terminal stops it (130, 143, 129: one line, nothing of the run
left, the folders it created included; see interrupt.py).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..core import ConfigError
from ..core.config import parse_whole
from . import interrupt
from .interrupt import Interrupted
from .options import add_config_options, add_language_option, config_from_args
from .output import OutputError, print_out, say
from .qt_app import ensure_qt_app  # Qt only when called

EXIT_FILES = 1
MIN_SCALE = 0.25  # below a quarter of the on-screen size the labels are unreadable specks
MAX_SCALE = 8.0
MIN_WIDTH = 16
MAX_WIDTH = 16384


def add_export_parser(sub) -> argparse.ArgumentParser:
    """Register the `export` sub-command on the main parser's sub-parsers."""
    from ..export.naming import BACKGROUNDS, FORMATS, WHAT_HELP  # Qt-free: dump must not load Qt
    parser = sub.add_parser("export", help="write figures (PNG, SVG) or weights (CSV) without a window")
    add_config_options(parser)
    add_language_option(parser, "the figures' labels (axis titles, legends, title line)")
    parser.add_argument("--out", required=True, metavar="DIR", help="existing folder to write into")
    parser.add_argument("--what", default=None, help=f"{WHAT_HELP} (default heads)")
    parser.add_argument("--lesson", metavar="NAME", help="one figure per step of a lesson "
                        "(a built-in name or a .toml file), named <lesson>_<NN>_<step>")
    parser.add_argument("--format", choices=FORMATS, default="png")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--scale", type=_scale, default=None,
                      help="PNG: pixels per on-screen pixel, e.g. 2 (default 1)")
    size.add_argument("--width", type=_width, default=None, metavar="PX",
                      help="PNG: exact image width in pixels, height in proportion")
    parser.add_argument("--background", choices=BACKGROUNDS, default=None,
                        help="white (slides, the default) or dark; not for --what window")
    parser.add_argument("--title", action="store_true", help="add a line with the settings on top")
    parser.add_argument("--name", help="file name for a single figure (default: from the settings, "
                        "e.g. heads_d8_h2_seed1.png)")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    parser.set_defaults(run=run_export)
    return parser


def _scale(text: str) -> float:
    number = text.strip().rstrip("x×")
    try:  # ASCII only: float() would take "１.５" and "1_0"
        value = float(number) if number.isascii() and "_" not in number else float("nan")
    except ValueError:
        value = float("nan")
    if value != value:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}")
    if not MIN_SCALE <= value <= MAX_SCALE:
        raise argparse.ArgumentTypeError(f"must be from {MIN_SCALE:g} to {MAX_SCALE:g}, "
                                         f"got {text[:40]}")
    return value


def _width(text: str) -> int:
    try:
        value = parse_whole(text, "--width")
    except ConfigError:
        value = None
    if value is None or not MIN_WIDTH <= value <= MAX_WIDTH:
        raise argparse.ArgumentTypeError(f"must be a whole number of pixels from {MIN_WIDTH} "
                                         f"to {MAX_WIDTH}")
    return value


def run_export(args: argparse.Namespace) -> int:
    """Render the figures and write them into --out (created with its parents when missing).

    Nothing of the run stays when it fails or is stopped: the folders it created are removed
    again, and on a stop signal (interrupt.py) the files it wrote too, before Interrupted goes
    on to cli.main (one line, exit 128 + the signal's number).
    """
    from ..core.files.output_files import ExportError, make_folders, remove_empty
    try:
        created = make_folders(args.out)
    except ExportError as exc:
        return _fail(exc)
    written = _Written()
    code = EXIT_FILES
    try:
        code = _export_into(args, written)
    except Interrupted as stop:
        stop.outcome = written.undo()
        raise
    finally:
        if code != 0:  # a failure, a refused option (raised) or a stop signal
            remove_empty(created)
    return code


def _export_into(args: argparse.Namespace, written: "_Written") -> int:
    from ..core.files.output_files import ExportError, check_folder, write_files
    if args.lesson is not None:
        from .lesson import lesson_items
        names, render = lesson_items(args)
    else:
        names, render = _figure_items(args)
    try:  # fail fast, before rendering anything; write_files checks again when writing
        folder = check_folder(args.out)
        if not args.force:
            _refuse_existing(folder, names)
    except ExportError as exc:
        return _fail(exc)
    interrupt.check()
    try:
        contents = render()  # (checks between figures)
        interrupt.check()
        replaced = {folder / n for n in names if (folder / n).exists()} if args.force else set()
        paths = write_files(args.out, [(n, _checked(c)) for n, c in zip(names, contents)],
                            "overwrite" if args.force else "error")
    except ExportError as exc:
        return _fail(exc)
    written.add(paths, replaced)
    interrupt.check()  # a signal while the files were moved into place: undo them
    _list(paths)
    return 0


def _list(paths) -> None:
    """Print the paths written; a stop signal raises at once here (a pipe nobody reads blocks)."""
    stops = interrupt.current()
    try:
        with stops.raising() if stops is not None else contextlib.nullcontext():
            for path in paths:
                print_out(str(path))
            sys.stdout.flush()
    except (OutputError, OSError, ValueError, AttributeError) as exc:
        # The files are written and stay: exit 1 would say nothing was left behind.
        say(f"wrote {len(paths)} file(s) but could not list them: {exc}")


def _checked(content):
    """`content` (bytes or Streamed) as pieces with a stop check before each: an interrupted
    write stops before the next file or piece, and write_files removes what it had staged."""
    from ..core.files.output_files import Streamed
    pieces = (content,) if isinstance(content, (bytes, bytearray, memoryview)) else content

    def make():
        for piece in pieces:
            interrupt.check()
            yield piece
    return Streamed(make)


class _Written:
    """The files an export put in place, to take back when it is stopped."""

    def __init__(self):
        self.paths: list[Path] = []
        self.replaced: set[Path] = set()  # (--force) files that were there: the old ones are gone

    def add(self, paths, replaced) -> None:
        self.paths += paths
        self.replaced |= set(replaced) & set(paths)

    def undo(self) -> str:
        """Remove the new files; the line that says what is left."""
        for path in self.paths:
            if path not in self.replaced:
                with contextlib.suppress(OSError):
                    path.unlink()
        kept = len(self.replaced)
        return (f"kept the {kept} file(s) already replaced (--force), wrote nothing else" if kept
                else "nothing written")


def _figure_items(args: argparse.Namespace):
    """(file names, a function rendering their contents) for --what."""
    from ..export.naming import default_name, parse_what
    config = config_from_args(args)
    specs = parse_what(args.what or "heads", config)
    _check_window_options(specs, args)
    names = [default_name(s, config, args.format) for s in specs]
    if args.name is not None:
        names = [_custom_name(args.name, args.format, len(specs))]
    return names, lambda: [data for _, data in _render(config, specs, args)]


def _check_window_options(specs, args) -> None:
    """--what window is a grab of the window as it looks: no CSV, no background, no title."""
    if not any(s.kind == "window" for s in specs):
        args.background = args.background or "white"
        return
    if args.format == "csv":
        raise ConfigError("--what window can be exported as png or svg, not csv")
    ignored = [o for o, given in (("--background", args.background is not None),
                                  ("--title", args.title)) if given]
    if ignored:
        raise ConfigError(f"{' and '.join(ignored)} do not apply to --what window "
                          "(it is the window as it looks)")
    args.background = "white"


def _custom_name(name: str, fmt: str, count: int) -> str:
    from ..core.files.output_files import ExportError, check_name
    if count != 1:
        raise ConfigError(f"--name needs a single figure, --what gives {count}")
    try:
        check_name(name)
    except ExportError as exc:
        raise ConfigError(str(exc)) from None
    stem, dot, ext = name.rpartition(".")
    if not dot:
        return f"{name}.{fmt}"
    if ext.lower() != fmt:
        raise ConfigError(f"--name {name} does not end in .{fmt} (the --format)")
    return name


def _refuse_existing(folder, names: list[str]) -> None:
    from ..core.files.output_files import ExportExistsError
    for name in names:
        if (folder / name).exists():
            raise ExportExistsError(folder / name)


def _render(config, specs, args) -> list[tuple[str, bytes]]:
    from ..gui.window.exports.figures import ExportOptions, export_items
    options = ExportOptions(fmt=args.format, scale=args.scale or 1.0, width=args.width,
                            background=args.background, title=args.title)
    previous = None
    if args.format != "csv":
        app = ensure_qt_app()  # noqa: F841  (kept alive while rendering)
        from ..gui.plotting.i18n import current_language, install_language
        previous = current_language()
        install_language(args.lang)  # axis titles, legends and the title line; tokens as typed
    try:
        items = []
        for spec in specs:
            interrupt.check()  # between figures: no Qt code on the stack here
            if spec.kind == "window":
                items.append((None, fresh_window_bytes(config, options)))
            else:
                items += export_items(config, [spec], options)
        return items
    except ValueError as exc:  # e.g. the size is too big for an image
        raise ConfigError(str(exc)) from None
    finally:
        if previous is not None:
            install_language(previous)


def fresh_window_bytes(config, options, size=None, timeout_s: float = 60.0) -> bytes:
    """Open a new main window offscreen on `config`, wait for its picture, render it, close it.

    For the command line (README screenshots): the window's own worker computes, so this
    waits in a local event loop; it never touches the user's settings file.
    """
    import time

    from PySide6.QtCore import QElapsedTimer, QSize
    from PySide6.QtWidgets import QApplication

    from ..app.course.state import AppState
    from ..core.messages import QT_TRANSLATE_NOOP
    from ..core.files.output_files import ExportError
    from ..gui.export.render import settle
    from ..gui.window.exports.figures import discard
    from ..gui.window.exports.from_window import window_bytes
    from ..gui.window.main_window import MainWindow
    state = AppState(config)
    window = MainWindow(state)
    try:
        clock = QElapsedTimer()
        clock.start()
        while state.result is None or state.result.config != config or not state.is_idle():
            if clock.elapsed() > timeout_s * 1000:
                raise ExportError.of(QT_TRANSLATE_NOOP("export", "the window did not compute its picture "
                                                                 "within {seconds} s"), seconds=f"{timeout_s:g}")
            QApplication.processEvents()
            time.sleep(0.005)
        settle(window, size or QSize(1400, 900))
        return window_bytes(window, options)
    finally:
        state.shutdown()
        discard(window)


def _fail(exc: Exception) -> int:
    say(str(exc))
    return EXIT_FILES
