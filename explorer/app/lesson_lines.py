"""Where each key of a lesson file is written: line numbers for the loader's messages.

`tomllib` gives values, not positions, so this reads the text once more, line by line: table
headers (``[lesson]``, ``[[step]]``, ``[step.config]``) and ``key = value`` lines, skipping the
inside of multi-line strings. Good enough for the files a person writes by hand; a key it cannot
place falls back to its table's header (or line 1), never to a wrong step.
"""

from __future__ import annotations

import re

_ARRAY_TABLE = re.compile(r"\[\[\s*(?P<name>[^\]]+?)\s*\]\]")
_TABLE = re.compile(r"\[\s*(?P<name>[^\]]+?)\s*\]")
_KEY = re.compile(r"(?P<key>[A-Za-z0-9_\-.\"' ]+?)\s*=")
_QUOTES = ('"""', "'''")


def _dotted(name: str) -> str:
    """'text . "ko"' -> 'text.ko'."""
    return ".".join(part.strip().strip("\"'") for part in name.split("."))


class KeyLines:
    """Line numbers by (step index or None, dotted key), e.g. (2, "config.d_model")."""

    def __init__(self, text: str):
        self._lines: dict[tuple[int | None, str], int] = {}
        self._scan(text)

    def line(self, step: int | None, key: str = "") -> int:
        """The line of `key` in step `step` (None: outside the steps), else of the nearest
        enclosing table written in the file, else 1."""
        parts = key.split(".") if key else []
        inside = [n for (s, k), n in self._lines.items() if s == step and key and
                  k.startswith(key + ".")]
        if (step, key) not in self._lines and inside:  # text.en written, text.ko missing
            return min(inside)
        while True:
            found = self._lines.get((step, ".".join(parts)))
            if found is not None:
                return found
            if not parts:
                return 1
            parts.pop()

    def _scan(self, text: str) -> None:
        step, prefix, open_quote = None, "", None
        for number, raw in enumerate(text.splitlines(), 1):
            if open_quote is not None:
                if raw.count(open_quote) % 2:
                    open_quote = None
                continue
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            array, table = _ARRAY_TABLE.match(line), _TABLE.match(line)
            if array or table:
                name = _dotted((array or table)["name"])
                if array and name == "step":  # a new step
                    step, prefix = (0 if step is None else step + 1), ""
                elif table and name.startswith("step.") and step is not None:
                    prefix = name[len("step."):]  # a table inside the current step
                else:
                    step, prefix = None, name
                self._lines.setdefault((step, prefix), number)
                continue
            key = _KEY.match(line)
            if key:
                full = _dotted(key["key"])
                full = f"{prefix}.{full}" if prefix else full
                self._lines.setdefault((step, full), number)
                rest = line[key.end():]
                for quote in _QUOTES:
                    if rest.count(quote) % 2:
                        open_quote = quote
                        break
