"""Lesson files: the built-in lessons load, and broken files name the file, the line and the step."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.app.lessons.lesson_session import LessonSession
from explorer.app.lessons import (CONTROLS, TABS, TOPICS, LessonError, builtin_lessons,
                                  check_lesson, find_lesson, load_lesson)
from explorer.core import PRESETS, forward

GOOD = """\
[lesson]
title.en = "Tiny"
title.ko = "작은"

[[step]]
preset = "course-lab3"
tab = "heads"
text.en = "one"
text.ko = "하나"

[[step]]
config = { d_model = 16, n_heads = 4 }
focus_head = 3
text.en = "two"
text.ko = "둘"
"""


def test_builtin_lessons_load_in_course_order():
    lessons = builtin_lessons()
    assert [lesson.name for lesson in lessons] == ["attention", "transformer-block", "decoding", "peft",
                                                   "inside-attention"]
    for lesson in lessons:
        assert len(lesson) >= 5
        for step in lesson.steps:
            assert step.text.en and step.text.ko
            assert step.view in TABS + TOPICS


def test_builtin_sequence_covers_the_course():
    shown = [(s.view, s.model) for lesson in builtin_lessons() for s in lesson.steps]
    views = [v for v, _ in shown]
    for needed in ("qkv", "scaling", "pruning", "encoder", "pe", "cross", "masks", "kv",
                   "overview"):
        assert needed in views, needed
    assert ("heads", "minilm-l6") in shown  # a learned head


def test_lab3_step_uses_the_course_preset_and_its_numbers():
    step = next(s for s in find_lesson("attention").steps if s.id == "split-merge")
    assert step.config == PRESETS["course-lab3"].config
    weights = forward(step.config).weights  # (h, n, n)
    # the printed (rounded) numbers, exactly: round(2) gives the float nearest to 0.13 etc.
    np.testing.assert_array_equal(weights[0, 0].round(2), [0.13, 0.04, 0.57, 0.26])
    assert "0.57" in step.text.en and "0.89" in step.text.ko  # the text quotes what is shown
    assert weights[1, 0, 1].round(2) == 0.89


def test_steps_carry_config_and_view_forward(lesson_file):
    lesson = load_lesson(lesson_file(GOOD))
    first, second = lesson.steps
    assert first.config == PRESETS["course-lab3"].config and first.tab == "heads"
    assert (second.config.d_model, second.config.n_heads) == (16, 4)
    assert second.tab == "heads" and second.focus_head == 3 and first.focus_head is None
    assert second.config.tokens == first.config.tokens


def test_insight_steps_name_their_page_and_carry_it_over(lesson_file):
    lesson = load_lesson(lesson_file(GOOD.replace('tab = "heads"', 'tab = "insight"\ninsight = "lens"\n'
                                                                 'highlight = "insight_view"')))
    first, second = lesson.steps
    assert (first.tab, first.insight, first.highlight) == ("insight", "lens", "insight_view")
    assert (second.tab, second.insight) == ("insight", "lens")  # carried over with the tab
    plain = load_lesson(lesson_file(GOOD.replace('tab = "heads"', 'tab = "insight"')))
    assert plain.steps[0].insight == "sinks"  # the tab's first page
    assert load_lesson(lesson_file(GOOD)).steps[0].insight is None  # not on the tab: no page


def test_the_lessons_pages_are_the_insight_tabs():
    from explorer.app.insight.state import VIEWS
    from explorer.app.lessons.lesson_schema import INSIGHT_VIEWS
    assert INSIGHT_VIEWS == VIEWS


@pytest.mark.parametrize("change, line, expected", [
    (('preset = "course-lab3"', 'preset = "nope"'), 6, "step 1: unknown preset 'nope'"),
    (('focus_head = 3', 'focus_head = 3\nzoom = 2'), 14, "step 2: unknown key 'zoom'"),
    (('text.ko = "둘"', ''), 14, "step 2: missing text: text.ko is absent or empty"),
    (('config = { d_model = 16, n_heads = 4 }', 'config = { d_model = 16, n_heads = 3 }'), 12,
     "step 2: bad config: d_model 16 is not divisible by 3 heads"),
    (('focus_head = 3', 'focus_head = 4'), 13, "step 2: focus_head must be a head from 0 to 3"),
    (('tab = "heads"', 'tab = "nope"'), 7, "step 1: unknown tab 'nope'"),
    (('tab = "heads"', 'topic = "nope"'), 7, "step 1: unknown topic 'nope'"),
    (('tab = "heads"', 'tab = "heads"\nhighlight = "knob"'), 8, "step 1: unknown control 'knob'"),
    (('tab = "heads"', 'tab = "heads"\nhighlight = "kv_step"'), 8,
     "control 'kv_step' is on the 'kv' view"),
    (('[[step]]\nconfig', '[[stepp]]\nconfig'), 11, "unknown key 'stepp'"),
    (('tab = "heads"', 'tab = "heads"\ninsight = "rollout"'), 8, 'set tab = "insight"'),
    (('tab = "heads"', 'tab = "insight"\ninsight = "saliency"'), 8, "unknown Inside attention page 'saliency'"),
    (('tab = "heads"', 'tab = "insight"\ninsight = ["lens"]'), 8, "unknown Inside attention page ['lens']"),
    (('tab = "heads"', 'tab = "heads"\nhighlight = "insight_view"'), 8,
     "control 'insight_view' is on the 'insight' view"),
])
def test_broken_file_names_file_line_and_step(lesson_file, change, line, expected):
    path = lesson_file(GOOD.replace(*change))
    problems = check_lesson(path)
    assert problems, "the broken file passed"
    hit = [p for p in problems if expected in p]
    assert hit, problems
    assert hit[0].startswith(f"{path}:{line}: "), hit[0]
    with pytest.raises(LessonError):
        load_lesson(path)


def test_every_problem_is_listed_once(lesson_file):
    broken = GOOD.replace('preset = "course-lab3"', 'preset = "nope"').replace(
        'text.ko = "하나"', "")
    problems = check_lesson(lesson_file(broken))
    assert len(problems) == 2
    assert any(":6: step 1: unknown preset" in p for p in problems)
    assert any(":8: step 1: missing text: text.ko" in p for p in problems)


def test_toml_syntax_error_has_its_line(lesson_file):
    problems = check_lesson(lesson_file(GOOD.replace('tab = "heads"', 'tab = heads')))
    assert len(problems) == 1 and ":7: not valid TOML" in problems[0]


def test_multiline_text_does_not_confuse_line_numbers(lesson_file):
    text = GOOD.replace('text.en = "one"', 'text.en = """\nx = 1\n[[step]]\n"""')
    problems = check_lesson(lesson_file(text.replace('focus_head = 3', 'focus_head = 9')))
    assert len(problems) == 1 and problems[0].split(":")[1] == "16", problems


def test_missing_file_and_unknown_lesson():
    assert "cannot read the file" in check_lesson("/nonexistent/x.toml")[0]
    with pytest.raises(LessonError, match="unknown lesson 'nope'"):
        find_lesson("nope")


def test_topics_and_controls_match_the_window():
    pytest.importorskip("PySide6")
    from explorer.gui.topics.menu import TOPICS as WINDOW_TOPICS
    assert tuple(t.key for t in WINDOW_TOPICS) == TOPICS
    assert set(CONTROLS.values()) <= {"controls", *TABS, *TOPICS}


def test_session_navigates_and_keeps_its_place_when_left(lesson_file):
    lesson = load_lesson(lesson_file(GOOD))
    session, seen = LessonSession(), []
    session.step_changed.connect(seen.append)
    session.open(lesson)
    assert session.progress() == (1, 2) and session.active
    assert session.next() and not session.next()  # clamped at the end
    assert session.previous() and session.index == 0
    session.next()
    session.leave()
    assert not session.active and session.index == 1
    session.resume()
    assert session.active and seen == [0, 1, 0, 1, 1]
