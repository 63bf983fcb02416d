"""The training explanations exist in both languages and say what the code does."""

import re

from explorer.core.training import SWITCH_THRESHOLD, TASKS
from explorer.core.training.tasks import MAX_LIST, probe_half
from explorer.core.training.texts import TASK_TITLES, TEXTS

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def test_every_text_has_an_english_and_a_korean_body_with_the_same_numbers():
    assert {"curves", "heads", "scores", "phase_change", "fixed_offset"} <= set(TEXTS)
    for text in TEXTS.values():
        assert text.body_en and not HANGUL.search(text.body_en + text.title_en)
        assert HANGUL.search(text.body_ko) and HANGUL.search(text.title_ko)
        numbers = re.compile(r"\d+(?:\.\d+)?")
        assert sorted(numbers.findall(text.body_en)) == sorted(numbers.findall(text.body_ko)), text.key


def test_the_texts_quote_the_rules_the_code_uses():
    assert f"≥ {SWITCH_THRESHOLD:g}" in TEXTS["scores"].body_en
    assert f"({probe_half(32)} for 32)" in TEXTS["heads"].body_en


def test_every_task_has_a_title_in_both_languages():
    assert set(TASK_TITLES) == set(TASKS)
    for en, ko in TASK_TITLES.values():
        assert en and HANGUL.search(ko)
    assert str(MAX_LIST) in TASK_TITLES["sort"][0]
