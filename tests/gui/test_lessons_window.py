"""The Lesson panel on the real window: every built-in step shows what it names, bad files change
nothing, the clicker keys move the lesson (and leave text fields and sliders alone)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QRect, QSize, Qt

from explorer.app.lessons import RANDOM_MODEL, builtin_lessons, find_lesson
from explorer.core import PRESETS
from explorer.core.learned import get_spec, is_installed
from explorer.gui.window.language import set_window_language
from qt_settle import problems_left, run_posted_events

SETTLE_MS = 60_000
TINY = """\
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
highlight = "heads"
text.en = "two"
text.ko = "둘"
question.en = "Why?"
question.ko = "왜?"
answer.en = "Because."
answer.ko = "왜냐하면."

[[step]]
tab = "kv"
kv_step = 2
text.en = "three"
text.ko = "셋"
"""


def settle(qtbot, window) -> None:
    qtbot.waitUntil(window.lessons.is_settled, timeout=SETTLE_MS)


def skip_unless_models_installed(*lessons) -> None:
    """A step on a pretrained model waits for its picture, which never comes when the model's
    package is absent: skip with the reason then (as tests/learned does; CI installs them)."""
    for lesson in lessons:
        for name in sorted({step.model for step in lesson.steps} - {RANDOM_MODEL}):
            spec = get_spec(name)
            if not is_installed(spec):
                pytest.skip(f"lesson {lesson.name!r} uses {name}, which is not installed "
                            f"({spec.install_command})")


def expected_page(window, step):
    if step.topic is not None:
        return window.topics_controller.views[step.topic]
    return {"heads": window.heads_grid, "pe": window.pe_panel, "kv": window.kv_panel,
            "overview": window.model_overview, "generate": window.generation_view,
            "train": window.train_view, "insight": window.inside_view}[step.tab]


def assert_shows(window, step) -> None:
    state, ctl = window.state, window.lessons
    assert window.tabs.currentWidget() is expected_page(window, step)
    config = step.config.replace(backend=state.config.backend, device=state.config.device,
                                 dtype=state.config.dtype)
    assert state.config == config and state.result.config == config
    assert window.learned.source == step.model
    if step.model != RANDOM_MODEL:
        assert window.learned.layer == step.layer
    if step.tab == "heads":
        assert window.focus_head() == step.focus_head == window.heads_grid.focus_head()
    if step.tab == "insight":  # the page the step names, shown and computed
        assert window.insight.view == step.insight and window.insight.active
        assert window.inside_view.stack.currentWidget() is window.inside_view.page(step.insight)
    if step.kv_step is not None:
        assert window.kv_panel.step == step.kv_step == state.view.kv_step
    if step.topic == "pruning":
        mask = window.topics_controller.views["pruning"].data.pruned
        assert mask is not None
        expected = state.topics.pruning_mask or (True,) * config.n_heads
        assert tuple(h not in step.prune_heads for h in range(config.n_heads)) == expected
    frame = ctl.highlight
    if step.highlight is None:
        assert not frame.isVisible()
    else:
        target = ctl.control_widget(step.highlight)
        assert frame.target is target and target.isVisible() and frame.isVisible()
        where = QRect(target.mapTo(window, target.rect().topLeft()), target.size())
        assert frame.geometry().contains(where.intersected(window.rect()))
    number, count = ctl.session.progress()
    assert ctl.panel.progress.text() == f"{number} / {count}" and number == step.number
    assert ctl.panel.text.text() == step.text.en


@pytest.mark.parametrize("name", [lesson.name for lesson in builtin_lessons()])
def test_every_builtin_step_shows_what_it_names(make_window, qtbot, name):
    lesson = find_lesson(name)
    skip_unless_models_installed(lesson)
    window = make_window()
    window.lessons.open_lesson(lesson)
    assert window.lessons.dock.isVisible()
    for index, step in enumerate(lesson.steps):
        window.lessons.session.go(index)
        settle(qtbot, window)
        window.lessons.highlight.follow()
        assert_shows(window, step)


def test_lab3_step_shows_the_course_numbers(make_window, qtbot):
    window = make_window(config=PRESETS["many-heads"].config)
    lesson = find_lesson("attention")
    window.lessons.open_lesson(lesson, [s.id for s in lesson.steps].index("split-merge"))
    settle(qtbot, window)
    weights = window.heads_grid.shown_result().weights  # (h, n, n) what the panels draw
    # the course's printed two-decimal table, compared exactly as test_window_menus does: a
    # rounded weight is the very float of its printed literal (round(k / 100) is k / 100)
    np.testing.assert_array_equal(weights[0].round(2), [[0.13, 0.04, 0.57, 0.26],
                                                        [0.12, 0.69, 0.01, 0.18],
                                                        [0.16, 0.71, 0.02, 0.11],
                                                        [0.08, 0.80, 0.01, 0.11]])
    np.testing.assert_array_equal(weights[1, 0].round(2), [0.05, 0.89, 0.03, 0.03])


def open_tiny(window, lesson_file, qtbot, text: str = TINY):
    path = lesson_file(text)
    assert window.lessons.open_file(path)
    settle(qtbot, window)
    return path


def test_language_switch_rerenders_the_step(make_window, qtbot, lesson_file):
    window = make_window()
    open_tiny(window, lesson_file, qtbot)
    window.lessons.session.next()
    settle(qtbot, window)
    panel = window.lessons.panel
    panel.toggle_answer()
    set_window_language(window, "ko")
    run_posted_events()  # the panel draws again after the live retranslation (posted events)
    assert panel.text.text() == "둘" and panel.answer.text() == "왜냐하면."
    assert "왜?" in panel.question.text() and panel.combo.currentText() == "작은"
    set_window_language(window, "en")
    run_posted_events()
    assert panel.text.text() == "two" and panel.combo.currentText() == "Tiny"


def test_question_answer_is_hidden_until_asked(make_window, qtbot, lesson_file):
    window = make_window()
    open_tiny(window, lesson_file, qtbot)
    panel = window.lessons.panel
    assert not panel.question.isVisible()  # step 1 has no question
    window.lessons.session.next()
    assert panel.question.isVisible() and not panel.answer.isVisible()
    qtbot.mouseClick(panel.answer_button, Qt.MouseButton.LeftButton)
    assert panel.answer.isVisible() and panel.answer.text() == "Because."
    window.lessons.session.next()
    window.lessons.session.previous()
    assert not panel.answer.isVisible()  # each step asks afresh


def window_snapshot(window) -> tuple:
    ctl = window.lessons
    return (window.state.config, window.tabs.currentIndex(), window.focus_head(),
            ctl.session.lesson, ctl.session.index, ctl.session.active, ctl.dock.isVisible(),
            [ctl.panel.combo.itemText(i) for i in range(ctl.panel.combo.count())])


@pytest.mark.parametrize("change, line, message", [
    (('preset = "course-lab3"', 'preset = "lab4"'), 6, "step 1: unknown preset 'lab4'"),
    (('focus_head = 3', 'focus_head = -1'), 13, "step 2: focus_head must be a head"),
    (('text.ko = "셋"', ''), 25, "step 3: missing text: text.ko"),
    (('kv_step = 2', 'kv_step = 2\nspeed = 3'), 25, "step 3: unknown key 'speed'"),
])
def test_bad_file_says_where_and_changes_nothing(make_window, qtbot, lesson_file, change, line,
                                                 message):
    window = make_window()
    open_tiny(window, lesson_file, qtbot)
    window.lessons.session.next()
    settle(qtbot, window)
    window.state.update(seed=7)  # exploring off-script
    settle(qtbot, window)
    before = window_snapshot(window)
    bad = lesson_file(TINY.replace(*change), name="bad.toml")
    assert not window.lessons.open_file(bad)
    box = window.lessons.error_box
    assert box.isVisible() and "bad.toml" in box.text()
    assert f"{bad}:{line}: {message}" in box.informativeText()
    assert window_snapshot(window) == before
    box.close()


def test_clicker_keys_move_the_lesson_but_not_inside_a_field(make_window, qtbot, lesson_file):
    window = make_window()
    open_tiny(window, lesson_file, qtbot)
    session, grid = window.lessons.session, window.heads_grid
    grid.setFocus()
    for key, index in ((Qt.Key.Key_PageDown, 1), (Qt.Key.Key_PageUp, 0), (Qt.Key.Key_Right, 1),
                       (Qt.Key.Key_Left, 0), (Qt.Key.Key_Space, 1)):
        qtbot.keyClick(window.focusWidget() or grid, key)
        assert session.index == index, key
    settle(qtbot, window)
    edit = window.controls.sentence.edit
    edit.setFocus()
    edit.setCursorPosition(0)
    qtbot.keyClick(edit, Qt.Key.Key_Right)
    assert session.index == 1 and edit.cursorPosition() == 1  # the cursor moved, not the lesson
    slider = window.controls.model_size.heads_slider
    slider.setFocus()
    value = slider.value()
    qtbot.keyClick(slider, Qt.Key.Key_Left)
    assert session.index == 1 and slider.value() == value - 1
    qtbot.keyClick(slider, Qt.Key.Key_PageDown)  # a clicker's key always moves the lesson
    assert session.index == 2


def test_leaving_keeps_the_window_and_frees_the_keys(make_window, qtbot, lesson_file):
    window = make_window()
    open_tiny(window, lesson_file, qtbot)
    ctl = window.lessons
    ctl.session.next()
    settle(qtbot, window)
    assert ctl.highlight.isVisible()
    window.state.update(seed=5)
    qtbot.mouseClick(ctl.panel.leave_button, Qt.MouseButton.LeftButton)
    assert not ctl.session.active and not ctl.highlight.isVisible()
    assert window.state.config.seed == 5 and window.tabs.currentWidget() is window.heads_grid
    window.heads_grid.setFocus()
    qtbot.keyClick(window.heads_grid, Qt.Key.Key_PageDown)
    assert ctl.session.index == 1  # the keys are the window's again
    assert ctl.panel.leave_button.text() == "Back to the lesson"
    qtbot.mouseClick(ctl.panel.leave_button, Qt.MouseButton.LeftButton)
    settle(qtbot, window)
    assert ctl.session.active and window.state.config.seed == 1 and window.focus_head() == 3


def test_lessons_menu_opens_lessons_and_has_open_file(make_window, qtbot):
    window = make_window()
    menu = window.lessons_menu
    names = [a.objectName() for a in menu.actions()]
    assert "lesson_open_file" in names and "lesson_attention" in names
    next(a for a in menu.actions() if a.objectName() == "lesson_decoding").trigger()
    settle(qtbot, window)
    assert window.lessons.session.lesson.name == "decoding"
    assert window.lessons.session.active and window.lessons.dock.isVisible()


@pytest.mark.parametrize("width, height, names", [
    (1024, 768, ("attention", "transformer-block", "decoding")), (1920, 1080, ("attention",))])
def test_lesson_on_a_projector_fits_and_reads(make_window, qtbot, ui_language, width, height,
                                              names):
    """Presentation mode at projector sizes, English and Korean: the window stays on the
    screen, the panel's buttons show their whole text and the step text gets at least a line
    (more when the page leaves room). The controls panel that a highlight opens is as wide as
    with F9, which at 1024 px is wider than the screen; the width is checked without it."""
    skip_unless_models_installed(*map(find_lesson, names))
    window = make_window()
    window.screen_size = lambda: QSize(width, height)
    window.resize(width, height)
    window.state.view.presentation = True
    qtbot.waitUntil(lambda: window.width() <= width and window.height() <= height, timeout=5000)
    panel = window.lessons.panel

    def unfitted() -> list[str]:
        found = [] if window.height() <= height else [f"window {window.height()} px high"]
        if window.controls_dock.isHidden() and window.width() > width:
            found.append(f"window {window.width()} px wide")
        found += [f"{button.text()!r} cut" for button in
                  (panel.prev_button, panel.next_button, panel.leave_button)
                  if button.width() + 1 < button.minimumSizeHint().width()]
        if panel.scroll.viewport().height() < panel.text.fontMetrics().lineSpacing():
            found.append(f"step text {panel.scroll.viewport().height()} px high")
        return found
    for name in names:
        lesson = find_lesson(name)
        window.lessons.open_lesson(lesson)
        for index, step in enumerate(lesson.steps):
            window.lessons.session.go(index)
            settle(qtbot, window)
            # the dock's height is set once the page is laid out (the lesson fits twice: at
            # once and FIT_AGAIN_MS later): wait until it fits, or say what does not
            assert problems_left(qtbot, unfitted) == [], f"{name} step {step.number}"
            assert panel.text.text() == step.text.in_language(ui_language)
