"""Lessons: the course as a sequence of steps, read from TOML files and checked on load (Qt-free).

A lesson file (schema: docs/lessons.md) has a ``[lesson]`` table (title in Korean and English)
and ``[[step]]`` tables. A step says what the window should show — a preset and/or config
fields, a tab or a topic, the model source, the focused head, the KV step, the heads pruned in
the pruning topic, a control to highlight — and its text, with an optional question and answer,
in both languages.

What a step shows is cumulative: the config, the view (tab or topic), the model and the pruned
heads carry over from the step before until a step changes them, so step k always shows the
same thing however the learner arrived there (next, previous, a jump, or after exploring
off-script). The focused head, the KV step and the highlight belong to their step alone.

`load_lesson(path)` returns a frozen `Lesson` whose steps hold those effective values, or raises
`LessonError` listing every problem as ``file:line: step N: message`` (the config through the one
`core.validate`; at most MAX_PROBLEMS, then one line saying how many more). `check_lesson(path)`
returns the problems instead of raising. A file is untrusted (shared by someone else): see
`load_lesson` for how it is read, and lesson_schema.py for the limits on what it may hold.

The vocabulary and the dataclasses are in lesson_schema.py, the reading in lesson_reader.py,
the line numbers in lesson_lines.py; this module is what the rest of the app imports.
"""

from __future__ import annotations

import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (pyproject installs tomli there)
    import tomli as tomllib

from ...core.files.user_files import UserFileError, read_user_file
from .lesson_lines import KeyLines
from .lesson_reader import _Reader, printable
from .lesson_schema import (CONFIG_KEYS, CONTROLS, LANGS, LESSON_KEYS, MAX_FILE_BYTES,
                            RANDOM_MODEL, STEP_KEYS, TABS, TOPICS, Lesson, LessonError, Step, Text)
from ..resources import resource_path

__all__ = ["CONFIG_KEYS", "CONTROLS", "LANGS", "LESSON_KEYS", "RANDOM_MODEL", "STEP_KEYS", "TABS",
           "TOPICS", "Lesson", "LessonError", "Step", "Text", "builtin_lessons", "check_lesson",
           "find_lesson", "lessons_folder", "load_lesson"]

def lessons_folder() -> Path | None:
    return resource_path("lessons")


def builtin_lessons() -> list[Lesson]:
    """The lessons shipped in resources/lessons, in course order."""
    folder = lessons_folder()
    paths = sorted(folder.glob("*.toml")) if folder is not None else []
    return sorted((load_lesson(p) for p in paths), key=lambda lesson: (lesson.order, lesson.name))


def find_lesson(name: str) -> Lesson:
    """A built-in lesson by name, else a lesson file by path; LessonError otherwise."""
    lessons = builtin_lessons()
    for lesson in lessons:
        if lesson.name == name:
            return lesson
    if name.endswith(".toml") or Path(name).exists():
        return load_lesson(name)
    raise LessonError([f"unknown lesson {name!r} (choose {', '.join(x.name for x in lessons)} "
                       "or give a .toml file)"])


def check_lesson(path) -> list[str]:
    """Every problem of the lesson file at `path`, one line each (empty: the file is good)."""
    try:
        load_lesson(path)
    except LessonError as exc:
        return exc.problems
    return []


def load_lesson(path) -> Lesson:
    """The lesson file at `path`, or LessonError with every problem (see the module doc).

    A file is untrusted: it is read through core.user_files (a FIFO, a device or a file over
    MAX_FILE_BYTES is refused before a byte is read), and what would make parsing slow or deep
    (KeyLines.too_much) is refused before tomllib sees it; reading takes time linear in the
    file's size (about a second for the largest file allowed). Never raises anything else."""
    path = Path(path)
    where = printable(str(path))
    text = _read(path, where)
    lines = KeyLines(text)
    if lines.too_much is not None:
        line, message = lines.too_much
        raise LessonError([f"{where}:{line}: {message}"])
    return _Reader(path, lines).lesson(_parse(text, where))


def _read(path: Path, where: str) -> str:
    try:
        data = read_user_file(path, MAX_FILE_BYTES)
    except UserFileError as exc:
        raise LessonError([f"{where}:1: cannot read the file: {printable(str(exc))}"]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LessonError([f"{where}:{line}: not UTF-8 text ({exc.reason})"]) from None


def _parse(text: str, where: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        line = found.group(1) if found else text.count("\n") + 1  # "at end of document"
        raise LessonError([f"{where}:{line}: not valid TOML: {str(exc).split(' (at line')[0]}"]) \
            from None
    except (ValueError, RecursionError) as exc:  # beyond what KeyLines refuses: never expected
        raise LessonError([f"{where}:1: not valid TOML: {exc.__class__.__name__}"]) from None
