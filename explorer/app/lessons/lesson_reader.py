"""Reads a parsed lesson file into a `Lesson`, collecting every problem with its line (Qt-free).

Each problem is ``file:line: step N: message``; the config goes through the one
`core.validate`. What carries over between steps is `_Base` (see app/lessons.py).

Nothing in the file is trusted: every value is checked for its kind before it is used (a list
where a name belongs is a problem, not a TypeError), values are quoted in messages cut short
(`shown`), texts are capped in length and may hold no control characters (they are drawn in
labels and written into SVG), and at most MAX_PROBLEMS problems are listed, then how many more.
"""

from __future__ import annotations

import re
import reprlib
from pathlib import Path

from ...core.config import AttentionConfig, ConfigError, validate
from ...core.learned.registry import MODELS
from ...core.presets import PRESETS
from .lesson_lines import KeyLines
from .lesson_schema import (_ID, CONFIG_KEYS, CONTROLS, LANGS, LESSON_KEYS, MAX_PROBLEMS,
                            INSIGHT_VIEWS, MAX_TEXT_CHARS, MAX_TITLE_CHARS, RANDOM_MODEL, STEP_KEYS, TABS, TOPICS,
                            Lesson, LessonError, Step, Text)

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 2, 40, 40, 40
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = 4
# characters a text must not hold once its whitespace is tidied (only "\n\n" is left):
# control characters (they break labels and SVG's XML), surrogates and non-characters
_UNSHOWABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def shown(value) -> str:
    """`value` as a message quotes it: repr, cut short (a list nested deep, a 1 MB string)."""
    try:
        return _SHORT.repr(value)
    except (ValueError, RecursionError):  # str() of an int over 4300 digits raises ValueError
        return f"a {type(value).__name__}"


def printable(text: str) -> str:
    """`text` (a path) on one line: control characters and undecodable bytes escaped."""
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1], text)


class _Reader:
    """Reads one parsed file into a Lesson, collecting every problem with its line."""

    def __init__(self, path: Path, lines: KeyLines):
        self.path, self.lines = path, lines
        self.where = printable(str(path))
        self.problems: list[str] = []
        self.unlisted = 0  # problems beyond MAX_PROBLEMS

    def problem(self, step: int | None, key: str, message: str) -> None:
        if len(self.problems) >= MAX_PROBLEMS:
            self.unlisted += 1
            return
        where = f"step {step + 1}: " if step is not None else ""
        self.problems.append(f"{self.where}:{self.lines.line(step, key)}: {where}{message}")

    def lesson(self, data: dict) -> Lesson:
        for key in data:
            if key not in ("lesson", "step"):
                self.problem(None, key, f"unknown key {shown(key)} (a file has [lesson] and [[step]])")
        head = self.table(None, "lesson", data.get("lesson"))
        if "lesson" not in data:
            self.problem(None, "", "missing [lesson] table (its title in en and ko)")
        self.unknown(None, "lesson", head, LESSON_KEYS)
        title = self.text(None, "lesson.title", head.get("title"), required=True,
                          limit=MAX_TITLE_CHARS)
        summary = self.text(None, "lesson.summary", head.get("summary"))
        order = head.get("order", 100)
        if isinstance(order, bool) or not isinstance(order, int):
            self.problem(None, "lesson.order", f"order must be a whole number, got {shown(order)}")
            order = 100
        steps = self.steps(data.get("step"))
        if self.unlisted:
            self.problems.append(f"{self.where}:1: … and {self.unlisted:,} more problems")
        if self.problems:
            raise LessonError(self.problems)
        return Lesson(self.path.stem, title, summary, order, self.path, tuple(steps))

    def steps(self, raw) -> list[Step]:
        if not isinstance(raw, list) or not raw:
            self.problem(None, "step", "no steps: add [[step]] tables")
            return []
        base = _Base()
        steps, ids = [], set()
        for index, table in enumerate(raw):
            if not isinstance(table, dict):
                self.problem(index, "", "a step must be a table ([[step]])")
                continue
            step = self.step(index, table, base)
            if step is not None:
                if step.id in ids:
                    self.problem(index, "id", f"id {shown(step.id)} is used by an earlier step")
                ids.add(step.id)
                steps.append(step)
        return steps

    def step(self, i: int, table: dict, base: "_Base") -> Step | None:
        self.unknown(i, "", table, STEP_KEYS)
        step_id = table.get("id", f"step{i + 1}")
        if not isinstance(step_id, str) or not _ID.fullmatch(step_id):
            self.problem(i, "id", f"id must be lowercase letters, digits and '-', "
                                  f"got {shown(step_id)}")
            step_id = f"step{i + 1}"
        base.config = self.config(i, table, base.config)
        self.view(i, table, base)
        model = self.model(i, table.get("model", base.model))
        if model != base.model:
            base.model, base.layer = model, 0
        if "layer" in table:
            self.layer(i, table["layer"], base)
        heads = base.config.n_heads
        if any(h >= heads for h in base.prune):  # fewer heads now: nothing left to prune
            base.prune = ()
        if "prune_heads" in table:
            base.prune = self.heads_list(i, table["prune_heads"], heads)
        focus = self.index(i, "focus_head", table.get("focus_head"), self.head_count(base),
                           "head")
        kv_step = self.kv_step(i, table.get("kv_step"), base)
        highlight = self.highlight(i, table.get("highlight"), base)
        if "insight" in table:
            self.insight(i, table["insight"], base)
        text = self.text(i, "text", table.get("text"), required=True)
        question = self.text(i, "question", table.get("question"))
        answer = self.text(i, "answer", table.get("answer"))
        if ("question" in table) != ("answer" in table):
            self.problem(i, "question" if "question" in table else "answer",
                         "a question needs its answer (and an answer its question)")
        if text is None:
            return None
        return Step(i + 1, step_id, self.lines.line(i), text, base.config, base.tab, base.topic,
                    base.model, base.layer, base.prune, focus, kv_step, highlight, question, answer,
                    insight=base.insight if base.tab == "insight" else None)

    # ----- parts --------------------------------------------------------------------------
    def config(self, i: int, table: dict, current: AttentionConfig) -> AttentionConfig:
        config = current
        if "preset" in table:
            name = table["preset"]
            if isinstance(name, str) and name in PRESETS:
                config = PRESETS[name].config
            else:
                self.problem(i, "preset", f"unknown preset {shown(name)} "
                                          f"(choose {', '.join(PRESETS)})")
        fields = self.table(i, "config", table.get("config"))
        self.unknown(i, "config", fields, CONFIG_KEYS)
        changes = {k: fields[k] for k in CONFIG_KEYS if k in fields}
        if not changes or not self.config_kinds(i, changes):
            return config
        try:
            return validate(config.replace(**changes))
        except (ConfigError, TypeError, ValueError) as exc:
            key = next(iter(changes)) if len(changes) == 1 else ""
            self.problem(i, f"config.{key}" if key else "config", f"bad config: {exc}")
            return config

    def config_kinds(self, i: int, changes: dict) -> bool:
        """The fields validate() would read wrongly: tokens and padding must be lists (a table
        would be read as its keys); the others it checks itself. False after a problem."""
        tokens, padding = changes.get("tokens", ""), changes.get("padding", [])
        if not isinstance(tokens, (str, list)) or (
                isinstance(tokens, list) and not all(isinstance(t, str) for t in tokens)):
            self.problem(i, "config.tokens", "config.tokens must be a sentence or a list of "
                                             f"words, got {shown(tokens)}")
            return False
        if not isinstance(padding, list):
            self.problem(i, "config.padding", "config.padding must be a list of positions, "
                                              f"got {shown(padding)}")
            return False
        return True

    def view(self, i: int, table: dict, base: "_Base") -> None:
        tab, topic = table.get("tab"), table.get("topic")
        if tab is not None and topic is not None:
            self.problem(i, "topic", "a step shows a tab or a topic, not both")
            return
        if tab is not None:
            if isinstance(tab, str) and tab in TABS:
                base.tab, base.topic = tab, None
            else:
                self.problem(i, "tab", f"unknown tab {shown(tab)} (choose {', '.join(TABS)})")
        if topic is not None:
            if isinstance(topic, str) and topic in TOPICS:
                base.tab, base.topic = None, topic
            else:
                self.problem(i, "topic", f"unknown topic {shown(topic)} "
                                         f"(choose {', '.join(TOPICS)})")

    def model(self, i: int, name) -> str:
        if isinstance(name, str) and (name == RANDOM_MODEL or name in MODELS):
            return name
        self.problem(i, "model", f"unknown model {shown(name)} (choose {RANDOM_MODEL}, "
                                 f"{', '.join(MODELS)})")
        return RANDOM_MODEL

    def layer(self, i: int, value, base: "_Base") -> None:
        if base.model == RANDOM_MODEL:
            self.problem(i, "layer", "layer is for a pretrained model: set model first")
            return
        layer = self.index(i, "layer", value, MODELS[base.model].layers, "layer")
        if layer is not None:
            base.layer = layer

    def head_count(self, base: "_Base") -> int:
        return base.config.n_heads if base.model == RANDOM_MODEL else MODELS[base.model].heads

    def kv_step(self, i: int, value, base: "_Base") -> int | None:
        """The random model's KV step; a pretrained decoder steps its own cache through its
        own sentence (its length is known only once the model has read it)."""
        if value is not None and base.model != RANDOM_MODEL:
            self.problem(i, "kv_step", f"kv_step is for the random model's KV cache, but this "
                                       f"step shows {base.model!r}, which steps its own "
                                       f"sentence: leave kv_step out")
            return None
        return self.index(i, "kv_step", value, base.config.n_tokens, "KV step")

    def insight(self, i: int, page, base: "_Base") -> None:
        """The Inside attention page a step opens (carried over to the next insight steps)."""
        if base.tab != "insight":
            self.problem(i, "insight", f"insight chooses a page of the Inside attention tab: "
                                       f"set tab = \"insight\" (this step shows {base.tab or base.topic!r})")
        elif isinstance(page, str) and page in INSIGHT_VIEWS:
            base.insight = page
        else:
            self.problem(i, "insight", f"unknown Inside attention page {shown(page)} "
                                       f"(choose {', '.join(INSIGHT_VIEWS)})")

    def highlight(self, i: int, name, base: "_Base") -> str | None:
        if name is None:
            return None
        where = CONTROLS.get(name) if isinstance(name, str) else None
        if where is None:
            self.problem(i, "highlight", f"unknown control {shown(name)} to highlight "
                                         f"(choose {', '.join(CONTROLS)})")
            return None
        if where != "controls" and where != (base.tab or base.topic):
            self.problem(i, "highlight", f"control {name!r} is on the {where!r} view, "
                                         f"but this step shows {base.tab or base.topic!r}")
            return None
        return name

    def index(self, i: int, key: str, value, count: int, what: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
            self.problem(i, key, f"{key} must be a {what} from 0 to {count - 1}, "
                                 f"got {shown(value)}")
            return None
        return value

    def heads_list(self, i: int, value, heads: int) -> tuple[int, ...]:
        if not isinstance(value, list) or any(
                isinstance(h, bool) or not isinstance(h, int) or not 0 <= h < heads for h in value):
            self.problem(i, "prune_heads", f"prune_heads must list heads from 0 to {heads - 1}, "
                                           f"got {shown(value)}")
            return ()
        return tuple(sorted(set(value)))

    def text(self, i: int | None, key: str, value, required: bool = False,
             limit: int = MAX_TEXT_CHARS) -> Text | None:
        if value is None:
            if required:
                self.problem(i, key, f"missing {key} (write {key}.en and {key}.ko)")
            return None
        if not isinstance(value, dict):
            self.problem(i, key, f"{key} needs both languages: {key}.en = \"…\" and "
                                 f"{key}.ko = \"…\"")
            return None
        self.unknown(i, key, value, LANGS)
        missing = [lang for lang in LANGS
                   if not isinstance(value.get(lang), str) or not value[lang].strip()]
        for lang in missing:
            self.problem(i, key, f"missing text: {key}.{lang} is absent or empty")
        texts = {lang: self.one_text(i, f"{key}.{lang}", value[lang], limit)
                 for lang in LANGS if lang not in missing}
        if len(texts) < len(LANGS) or None in texts.values():
            return None
        return Text(texts["en"], texts["ko"])

    def one_text(self, i: int | None, key: str, value: str, limit: int) -> str | None:
        """One language's text, tidied; None after a problem (too long, unshowable)."""
        if len(value) > limit:
            self.problem(i, key, f"{key} is {len(value):,} characters long (at most {limit:,})")
            return None
        text = _tidy(value)
        bad = _UNSHOWABLE.search(text)
        if bad:
            self.problem(i, key, f"{key} contains the character U+{ord(bad.group()):04X}, "
                                 "which cannot be shown")
            return None
        return text

    def table(self, i: int | None, key: str, value) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problem(i, key, f"{key} must be a table")
            return {}
        return value

    def unknown(self, i: int | None, prefix: str, table: dict, known: tuple[str, ...]) -> None:
        for key in table:
            if key not in known:
                if len(self.problems) >= MAX_PROBLEMS:  # 10,000 unknown keys: count them only
                    self.unlisted += 1
                    continue
                full = f"{prefix}.{key}" if prefix else key
                self.problem(i, full, f"unknown key {shown(full)} (known: {', '.join(known)})")


class _Base:
    """What carries over from one step to the next while reading."""

    def __init__(self):
        self.config = AttentionConfig()
        self.tab, self.topic = "heads", None
        self.model = RANDOM_MODEL
        self.layer = 0
        self.prune: tuple[int, ...] = ()
        self.insight = INSIGHT_VIEWS[0]


def _tidy(text: str) -> str:
    """A multi-line TOML string as paragraphs: single newlines become spaces, blank lines stay."""
    if "\n" not in text:
        return " ".join(text.split())
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)
