"""Where each key of a lesson file is written, and what in its text is too much to parse (Qt-free).

`tomllib` gives values, not positions, so this reads the text once more: table headers
(``[lesson]``, ``[[step]]``, ``[step.config]``) and ``key = value`` lines at the top level
(not inside a string, a comment or a multi-line array). A key it cannot place falls back to
its table's header (or line 1), never to a wrong step.

The same reading finds what would make `tomllib` slow or deep before it sees the text
(`KeyLines.too_much`): values nested more than MAX_NESTING deep, a dotted key or table name of
more than MAX_KEY_PARTS parts (tomllib's time grows with the square of their number) and a
number or bare key longer than MAX_BARE_CHARS.

Linear time whatever the text (a shared lesson file is untrusted): strings and comments are
blanked out first by one regular expression whose alternatives never overlap, so it never
backtracks; then each line is looked at with str methods, and the limits with searches that
start only where a run begins. Line numbers count "\\n" as tomllib does.
"""

from __future__ import annotations

import re
from itertools import accumulate

from .lesson_schema import MAX_BARE_CHARS, MAX_KEY_PARTS, MAX_NESTING

_STRINGS = re.compile(
    r'"""(?:[^"\\]|\\.?|"(?!""))*(?:"""|\Z)'   # multi-line basic string (may span lines)
    r"|'''(?:[^']|'(?!''))*(?:'''|\Z)"          # multi-line literal string
    r'|"(?:[^"\\\n]|\\[^\n])*"?'                # basic string (unterminated: to the line's end)
    r"|'[^'\n]*'?"                              # literal string
    r"|#[^\n]*", re.S)                          # comment
_BLANK = "~"  # stands for each character of a string: not a key, bracket, dot or space
_NOT_NEWLINE = re.compile(r"[^\n]")
_KEY_TEXT = re.compile(r"[A-Za-z0-9_\-. \t~]+")  # a key before "=", strings blanked
_NOT_STRUCTURE = re.compile(r"[^.,{}\[\]=\n]+")
_BARE = re.compile(r"(?<![A-Za-z0-9_+\-:])[A-Za-z0-9_+\-:]{%d}" % (MAX_BARE_CHARS + 1))
_BRACKETS = re.compile(r"[\[\]{}]")
_DEPTH = {"[": 1, "{": 1, "]": -1, "}": -1}
# a line with something outside strings and comments (blanked lines are spaces and "~" only)
# (no two parts overlap: a line without any fails after one pass, never backtracking further)
_CONTENT_LINE = re.compile(r"^[ \t\r~]*[^ \t\r~\n]", re.M)

TOO_DEEP = f"values nested more than {MAX_NESTING} deep (arrays or tables inside one another)"
TOO_MANY_PARTS = f"a dotted key or table name of more than {MAX_KEY_PARTS} parts"
TOO_LONG_BARE = f"a number or bare key longer than {MAX_BARE_CHARS} characters"


def _blank(match: re.Match) -> str:
    """A string or comment as characters of the same length that mean nothing (newlines kept)."""
    text = match.group()
    filler = " " if text[0] == "#" else _BLANK
    return filler * len(text) if "\n" not in text else _NOT_NEWLINE.sub(filler, text)


def _dotted(raw: str, flat: str) -> str:
    """'text . "ko"' -> 'text.ko': split where `flat` (strings blanked) has its dots."""
    parts, start = [], 0
    while (dot := flat.find(".", start)) >= 0:
        parts.append(raw[start:dot])
        start = dot + 1
    parts.append(raw[start:])
    return ".".join(part.strip().strip("\"'") for part in parts)


class KeyLines:
    """Line numbers by (step index or None, dotted key), e.g. (2, "config.d_model"), and
    `too_much`: (line, message) for the first thing that is too deep or too long, else None."""

    def __init__(self, text: str):
        self._lines: dict[tuple[int | None, str], int] = {}
        self._inside: dict[tuple[int | None, str], int] = {}  # first line of a key under it
        flat = _STRINGS.sub(_blank, text)  # the same length as text, line for line
        deep = self._scan(text, flat)
        self.too_much = self._limits(flat, deep)

    def line(self, step: int | None, key: str = "") -> int:
        """The line of `key` in step `step` (None: outside the steps), else of the nearest
        enclosing table written in the file, else 1."""
        key = ".".join(key.split(".", MAX_KEY_PARTS)[:MAX_KEY_PARTS]) if key else ""
        if key and (step, key) not in self._lines and (step, key) in self._inside:
            return self._inside[(step, key)]  # text.en written, text.ko missing
        parts = key.split(".") if key else []
        while True:
            found = self._lines.get((step, ".".join(parts)))
            if found is not None:
                return found
            if not parts:
                return 1
            parts.pop()

    # ----- limits --------------------------------------------------------------------------
    @staticmethod
    def _limits(flat: str, deep: int | None) -> tuple[int, str] | None:
        """The first too long bare word, too long dotted name or too deep nesting (`deep`:
        the first line nested too deep, found by _scan)."""
        found = []
        bare = _BARE.search(flat)
        if bare:
            found.append((flat.count("\n", 0, bare.start()) + 1, TOO_LONG_BARE))
        structure = _NOT_STRUCTURE.sub("", flat)  # dots, separators, brackets, newlines
        chain = structure.find("." * MAX_KEY_PARTS)  # only a key's parts follow one another
        if chain >= 0:
            found.append((structure.count("\n", 0, chain) + 1, TOO_MANY_PARTS))
        if deep is not None:
            found.append((deep, TOO_DEEP))
        return min(found) if found else None

    # ----- line numbers --------------------------------------------------------------------
    def _record(self, step: int | None, key: str, number: int) -> None:
        parts = key.split(".")[:MAX_KEY_PARTS]  # as `line` looks keys up
        self._lines.setdefault((step, ".".join(parts)), number)
        for end in range(1, len(parts)):
            self._inside.setdefault((step, ".".join(parts[:end])), number)

    def _scan(self, text: str, flat: str) -> int | None:
        """Record headers and keys; the first line nested more than MAX_NESTING deep, or None.
        Only lines with something outside strings and comments are visited."""
        step, prefix, depth, deep = None, "", 0, None
        number, position = 1, 0
        for found in _CONTENT_LINE.finditer(flat):
            number += flat.count("\n", position, found.start())
            position = found.start()
            end = flat.find("\n", position)
            end = len(flat) if end < 0 else end
            line = flat[position:end].lstrip(" \t\r")
            start = end - len(line)
            line, raw = line.rstrip(), text[start:end]
            value = line
            close = line.find("]") if depth == 0 and line[0] == "[" else -1
            if close > 0 and line.count(".", 0, close) < MAX_KEY_PARTS:
                array = line.startswith("[[") and line[close:close + 2] == "]]"
                offset = 2 if array else 1
                step, prefix = self._header(step, _dotted(raw[offset:close], line[offset:close]),
                                            array)
                self._record(step, prefix, number)
                continue
            equals = line.find("=") if depth == 0 else -1
            if equals > 0 and _KEY_TEXT.fullmatch(line, 0, equals) \
                    and line.count(".", 0, equals) < MAX_KEY_PARTS:
                key = _dotted(raw[:equals], line[:equals])
                self._record(step, f"{prefix}.{key}" if prefix else key, number)
                value = line[equals + 1:]
            if deep is None and _deepest(value, depth) > MAX_NESTING:
                deep = number
            depth = max(0, depth + _depth_change(value))
        return deep

    @staticmethod
    def _header(step: int | None, name: str, array: bool) -> tuple[int | None, str]:
        """(step, prefix) after a table header: [[step]] starts a step, [step.x] is inside it."""
        if array and name == "step":
            return (0 if step is None else step + 1), ""
        if not array and name.startswith("step.") and step is not None:
            return step, name[len("step."):]
        return None, name


def _depth_change(flat: str) -> int:
    return flat.count("[") + flat.count("{") - flat.count("]") - flat.count("}")


def _deepest(flat: str, depth: int) -> int:
    """How deep arrays and inline tables get on this line, from `depth` at its start (walked
    bracket by bracket only when its count of openings could go past the limit)."""
    opens = flat.count("[") + flat.count("{")
    if depth + opens <= MAX_NESTING:
        return depth + opens
    return max(accumulate(map(_DEPTH.__getitem__, _BRACKETS.findall(flat)), initial=depth))
