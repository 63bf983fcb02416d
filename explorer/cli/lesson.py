"""Lessons on the command line: `lesson --list`, `lesson --check FILE`, `export --lesson NAME`.

`--check` prints one line per problem (``file:line: step N: message``) and exits 2 when a file
has any; `--list` needs neither Qt nor torch. `export --lesson` opens one window offscreen,
walks the lesson's steps as the Lesson panel does, and writes the view each step shows,
named ``<lesson>_<NN>_<step id>.png`` (or .svg), one file per step.
"""

from __future__ import annotations

import argparse
import re
import time

from ..app.lessons import LessonError, builtin_lessons, find_lesson, load_lesson
from ..core import ConfigError
from .interrupt import check as check_interrupted
from .options import EXIT_USAGE
from .output import print_out, say

_RANDOM_ONLY = ("preset", "tokens", "d_model", "heads", "seed", "no_scale", "causal", "pad",
                "positional", "init", "name", "title", "background")
STEP_TIMEOUT_S = 120.0  # a pretrained model's first load takes seconds on a slow laptop
DECK_WINDOW = (1400, 900)  # the window size each step is drawn at (the window's default size)


def add_lesson_parser(sub) -> argparse.ArgumentParser:
    parser = sub.add_parser("lesson", help="list the built-in lessons or check a lesson file")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--list", action="store_true", help="the built-in lessons, in course order")
    what.add_argument("--check", nargs="+", metavar="FILE",
                      help="check lesson files: one line per problem, exit 2 on any")
    parser.set_defaults(run=run_lesson)
    return parser


def run_lesson(args: argparse.Namespace) -> int:
    if args.list:
        for lesson in builtin_lessons():
            print_out(f"{lesson.name}\t{len(lesson)} steps\t{lesson.title.en} / {lesson.title.ko}")
        return 0
    code = 0
    for path in args.check:
        try:
            lesson = load_lesson(path)
        except LessonError as exc:
            for problem in exc.problems:
                say(problem)
            code = EXIT_USAGE
        else:
            print_out(f"{path}: ok ({len(lesson)} steps)")
    return code


def lesson_for_window(name: str):
    """The lesson `attention-explorer --lesson NAME|FILE` opens; its problems printed, exit 2."""
    try:
        return find_lesson(name)
    except LessonError as exc:
        for problem in exc.problems:
            say(problem)
        raise SystemExit(EXIT_USAGE) from None


# ----- export --lesson -------------------------------------------------------------------------
def deck_names(lesson, fmt: str) -> list[str]:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", lesson.name).strip("-") or "lesson"
    return [f"{stem}_{step.number:02d}_{step.id}.{fmt}" for step in lesson.steps]


def check_deck_options(args: argparse.Namespace) -> None:
    """--lesson sets the config and the view itself: the options that would do so are refused."""
    given = [name for name in _RANDOM_ONLY
             if getattr(args, name, None) not in (None, False, [])]
    if args.what is not None:
        given.insert(0, "what")
    if given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ConfigError(f"{options} cannot be used with --lesson (each step sets what it shows)")
    if args.format == "csv":
        raise ConfigError("--lesson exports figures: use --format png or svg")


def lesson_items(args: argparse.Namespace) -> tuple[list[str], callable]:
    """(file names, a function rendering their contents) for `export --lesson`."""
    check_deck_options(args)
    try:
        lesson = find_lesson(args.lesson)
    except LessonError as exc:
        raise ConfigError(exc.problems[0] if len(exc.problems) == 1 else
                          f"{exc.problems[0]} (and {len(exc.problems) - 1} more problems: "
                          "see `attention-explorer lesson --check`)") from None
    check_models(lesson)
    return deck_names(lesson, args.format), lambda: render_deck(lesson, args)


def check_models(lesson) -> None:
    """Every pretrained model the lesson's steps show can be loaded here, before any window
    opens (a step would otherwise wait for a picture that never comes)."""
    from ..app.lessons import RANDOM_MODEL
    from ..core.learned import get_spec, install_problem
    for step in lesson.steps:
        problem = None if step.model == RANDOM_MODEL else install_problem(get_spec(step.model))
        if problem is not None:
            raise ConfigError(f"step {step.number} ({step.id}) shows {step.model}, which cannot "
                              f"be loaded here: {problem}")


def render_deck(lesson, args: argparse.Namespace) -> list[bytes]:
    """Each step's view, rendered from one offscreen window that walks the lesson, with the
    labels and texts in --lang."""
    from ..gui.plotting.i18n import current_language, install_language
    from .qt_app import ensure_qt_app
    app = ensure_qt_app()  # noqa: F841  (kept alive while rendering)
    previous = current_language()
    install_language(args.lang)
    try:
        return _walk(lesson, args)
    except ValueError as exc:  # e.g. the size is too big for an image
        raise ConfigError(str(exc)) from None
    finally:
        install_language(previous)


def _walk(lesson, args: argparse.Namespace) -> list[bytes]:
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QApplication

    from ..app.course.state import AppState
    from ..core.files.output_files import ExportError
    from ..gui.export.render import render_png, render_svg, settle
    from ..gui.window.exports.figures import discard
    from ..gui.window.main_window import MainWindow
    deck_size = QSize(*DECK_WINDOW)
    state = AppState(backend_config(args))
    window = MainWindow(state)
    # the lesson panel keeps the window on its screen, and the offscreen screen is 800 x 800:
    # every page came out ~460 px wide before the window was told of a DECK_WINDOW screen
    window.assume_screen(deck_size)
    try:
        settle(window, deck_size)
        window.lessons.open_lesson(lesson)
        out = []
        for index, step in enumerate(lesson.steps):
            check_interrupted()  # a stop signal: stop between steps, no Qt code on the stack
            window.lessons.session.go(index)
            deadline = time.monotonic() + STEP_TIMEOUT_S
            while not window.lessons.is_settled():
                check_interrupted()
                if time.monotonic() > deadline:
                    raise ExportError(f"step {step.number} ({step.id}) was not ready within "
                                      f"{STEP_TIMEOUT_S:g} s")
                QApplication.processEvents()
                time.sleep(0.005)
            if window.lessons.step_problem is not None:  # its model failed: nothing to wait for
                raise ExportError(f"step {step.number} ({step.id}): "
                                  f"{window.lessons.step_problem}")
            page = window.tabs.currentWidget()
            if args.format == "svg":
                out.append(render_svg(page, f"{lesson.title.en} — {step.number}", step.text.en))
            else:
                out.append(render_png(page, args.scale or 1.0, args.width,
                                      description=f"{lesson.name} step {step.number}: {step.id}"))
        return out
    finally:
        state.shutdown()
        if window.learned is not None:
            window.learned.shutdown(0)
        discard(window)


def backend_config(args: argparse.Namespace):
    """The starting config: only the backend, device and precision come from the options."""
    from ..core import AttentionConfig, validate
    changes = {k: getattr(args, k) for k in ("backend", "device", "dtype")
               if getattr(args, k, None) is not None}
    if changes.get("device", "cpu") != "cpu" and "backend" not in changes:
        changes["backend"] = "torch"
    return validate(AttentionConfig().replace(**changes))
