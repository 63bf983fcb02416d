"""The training explanations exist in both languages (English here, Korean in the catalogue)
and say what the code does."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from explorer.core.training import SWITCH_THRESHOLD, TASKS
from explorer.core.training.tasks import MAX_LIST, probe_half
from explorer.core.training.texts import CONTEXT, TASK_TITLES, TEXTS

HANGUL = re.compile(r"[\uac00-\ud7a3]")
TS = Path(__file__).resolve().parents[2] / "resources" / "i18n" / "attention_explorer_ko.ts"


def korean() -> dict[str, str]:
    """source -> translation of the catalogue's training texts (read as the CLI reads it)."""
    return {m.findtext("source"): m.findtext("translation") for c in ET.parse(TS).getroot().iter("context")
            if c.findtext("name") == CONTEXT for m in c.iter("message")}


def test_every_text_has_an_english_and_a_korean_body_with_the_same_numbers():
    assert {"curves", "heads", "scores", "phase_change", "fixed_offset"} <= set(TEXTS)
    ko = korean()
    for text in TEXTS.values():
        assert text.body_en and not HANGUL.search(text.body_en + text.title_en)
        assert HANGUL.search(ko[text.body_en]) and HANGUL.search(ko[text.title_en])
        numbers = re.compile(r"\d+(?:\.\d+)?")
        assert sorted(numbers.findall(text.body())) == sorted(numbers.findall(
            text.body(lambda _c, source: ko[source]))), text.key


def test_the_texts_quote_the_rules_the_code_uses():
    assert f"≥ {SWITCH_THRESHOLD:g}" in TEXTS["scores"].body()
    assert f"({probe_half(32)} for 32)" in TEXTS["heads"].body()
    assert f"{SWITCH_THRESHOLD:g} 이상" in TEXTS["scores"].body(lambda _c, source: korean()[source])


def test_every_task_has_a_title_in_both_languages():
    assert set(TASK_TITLES) == set(TASKS)
    ko = korean()
    for en in TASK_TITLES.values():
        assert en and HANGUL.search(ko[en])
    assert str(MAX_LIST) in TASK_TITLES["sort"]
