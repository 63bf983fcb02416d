"""What a lesson file may say (the vocabulary) and what reading it gives (frozen dataclasses).

Qt-free. The names of tabs, topics and controls are the window's (gui/window/lesson_wiring.py
maps them to widgets; tests check that the two agree); the reader is lesson_reader.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...core.config import AttentionConfig

TABS = ("heads", "pe", "kv", "overview", "generate", "train", "insight")
INSIGHT_VIEWS = ("sinks", "rollout", "values", "lens")  # app/insight/state.VIEWS: the Inside attention pages
TOPICS = ("qkv", "scaling", "cross", "masks", "pruning", "encoder", "peft")  # gui/topics/menu.TOPICS
RANDOM_MODEL = "random"
# control name -> where it lives: "controls" (the controls dock), or the tab / topic showing it
CONTROLS = {
    "sentence": "controls", "padding": "controls", "d_model": "controls", "heads": "controls",
    "seed": "controls", "scaled": "controls", "causal": "controls", "positional": "controls",
    "init": "controls", "show_values": "controls", "colormap": "controls",
    "model_source": "controls",
    "train_task": "train", "train_start": "train",
    "kv_step": "kv", "kv_play": "kv", "kv_head": "kv", "pe_positions": "pe",
    "qkv_head": "qkv", "scaling_init": "scaling", "scaling_measure": "scaling",
    "cross_sentence": "cross", "masks_head": "masks", "pruning_heads": "pruning",
    "encoder_norm": "encoder", "encoder_activation": "encoder",
    "peft_method": "peft", "peft_target": "peft", "peft_rank": "peft", "peft_b_init": "peft",
    "insight_view": "insight", "insight_variant": "insight",
}
LANGS = ("en", "ko")
LESSON_KEYS = ("title", "summary", "order")
STEP_KEYS = ("id", "preset", "config", "tab", "topic", "model", "layer", "focus_head", "kv_step",
             "highlight", "prune_heads", "insight", "text", "question", "answer")
CONFIG_KEYS = ("tokens", "d_model", "n_heads", "seed", "scaled", "causal", "padding",
               "positional", "init")  # never backend, device, dtype: those stay the user's
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")

# Limits on what a file may hold (a shared lesson file is untrusted: docs/lessons.md). Each is far
# above what a lesson needs and low enough that reading any file within them stays quick.
MAX_FILE_BYTES = 1_000_000
MAX_TITLE_CHARS = 100     # the lesson's title (a menu item, the lesson list)
MAX_TEXT_CHARS = 2_000    # a step's text, question, answer or the summary, per language (< 400 now)
MAX_NESTING = 8           # arrays / inline tables inside one another (a lesson needs 2)
MAX_KEY_PARTS = 8         # parts of one dotted key or table name (a lesson needs 3)
MAX_BARE_CHARS = 100      # one number, date or bare key (a 5,000-digit integer stops here)
MAX_PROBLEMS = 200        # listed per file; beyond, one line says how many more there are


class LessonError(ValueError):
    """A lesson file that cannot be used; `problems` are its lines (one per problem)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Text:
    en: str
    ko: str

    def in_language(self, language: str) -> str:
        return self.ko if language == "ko" else self.en


@dataclass(frozen=True)
class Step:
    """One step, with the effective (cumulative) values it shows; `number` counts from 1."""

    number: int
    id: str
    line: int
    text: Text
    config: AttentionConfig
    tab: str | None              # exactly one of tab / topic is set
    topic: str | None
    model: str
    layer: int                   # the pretrained model's layer shown (0 for the random model)
    prune_heads: tuple[int, ...]
    focus_head: int | None = None
    kv_step: int | None = None
    highlight: str | None = None
    question: Text | None = None
    answer: Text | None = None
    insight: str | None = None   # the Inside attention page (INSIGHT_VIEWS) when tab is "insight"

    @property
    def view(self) -> str:
        """The tab or topic name (the two sets do not overlap)."""
        return self.tab or self.topic


@dataclass(frozen=True)
class Lesson:
    name: str
    title: Text
    summary: Text | None
    order: int
    path: Path
    steps: tuple[Step, ...]

    def __len__(self) -> int:
        return len(self.steps)
