"""The lessons "PEFT through attention" and "What raw attention hides" walked in a real window.

Every step applies without a problem and shows what it names (test_lessons_window.assert_shows);
on the PEFT topic the settings each step asks for are chosen in the topic's own boxes (the one the
step frames among them) and the window then says the numbers the step quotes; the buttons and
switches a step names in its text exist in the window under those names; and the Inside
attention pages draw the numbers the steps quote for the course model and SmolLM2."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QAbstractButton, QComboBox, QDoubleSpinBox, QLabel, QSpinBox

from explorer.app.lessons import find_lesson
from numeric import assert_close
from test_insight_views import choose
from test_lessons_window import SETTLE_MS, assert_shows, settle, skip_unless_models_installed

KOREAN = "나는 학교에 버스로 갔다"

# step id -> the PEFT topic's settings its text asks for (in order), and for each the numbers the
# window then says (its sentences and parameter table) that the step's text quotes
PEFT_STEPS = {
    "lora-b-zero": [(dict(method="lora", target="q", rank=2, alpha=8, rslora=False, b_init="zero"), ())],
    "lora-b-drawn": [(dict(b_init="seed"), ("3.67", "2.64", "0.66", "0.41"))],
    "rank-and-rslora": [(dict(rank=4), ("2.05", "1.24", "0.38", "0.23", "0.48")),
                        (dict(rslora=True), ("4.10", "2.48", "0.76", "0.46"))],
    "trained-merged": [(dict(rank=2, rslora=False, b_init="trained"), ("1.47", "0.0936", "✓"))],
    "lora-on-v": [(dict(target="v", b_init="seed"), ("2.68",))],
    "ia3": [(dict(method="ia3"), ("16",))],
    "prefix": [(dict(method="prefix"), ("4 × 6", "65.5", "32"))],
    "prompt": [(dict(method="prompt"), ("6 × 6", "16"))],
    "parameter-table": [({}, ("32", "64", "128", "256", "12.5", "25", "50"))],
}

# step id -> the English names of the buttons, switches and tabs its text tells the learner to use
NAMED = {
    "lora-b-drawn": ("B drawn by the seed",), "trained-merged": ("B trained (toy task)",),
    "rank-and-rslora": ("rsLoRA (α/√r)",), "ia3": ("IA³",), "prefix": ("prefix tuning",),
    "prompt": ("prompt tuning",),
    "train-base": ("Start", "LoRA fine-tune", "Use trained model", "Load base…"),
    "train-lora": ("Output the previous token", "Compare with a full fine-tune", "Save adapter…"),
    "fine-tune-smollm2": ("Fine-tune LoRA…", "Save adapter…", "Show it", "Open model folder…"),
    "adapted-heads": ("Adapter:", "adapted", "base", "difference", "Load adapter…", "Open model folder…"),
    "adapted-overview": ("Model overview",),
    "sink": ("Inside attention", "Attention sinks"),
    "sink-moves": ("first token:", "as it is", "drop the first token", "repeat the first token"),
    "rollout": ("Rollout and flow", "flow"), "value-weighted": ("Value-weighted",),
    "logit-lens": ("Logit lens",), "sampling": ("greedy", "sample", "seed"),
    "head-as-lines": ("heatmap", "lines", "Save PNG…"), "words-not-pieces": ("pieces", "words"),
}


def ui_names(*roots) -> set[str]:
    """Every button's, label's, combo box item's, spin box prefix's and tab's text under `roots`
    (mnemonics and the spaces around a label or a prefix dropped)."""
    names = set()
    for root in roots:
        for button in root.findChildren(QAbstractButton):
            names.add(button.text().replace("&", ""))
        for label in root.findChildren(QLabel):
            names.add(label.text().strip())
        for combo in root.findChildren(QComboBox):
            names.update(combo.itemText(i) for i in range(combo.count()))
        for kind in (QSpinBox, QDoubleSpinBox):
            names.update(spin.prefix().strip() for spin in root.findChildren(kind))
        tabs = getattr(root, "tabs", None)
        if tabs is not None:
            names.update(tabs.tabText(i) for i in range(tabs.count()))
    return names


def choose_settings(qtbot, window, settings: dict) -> set:
    """Set the PEFT topic's boxes as a learner does and wait for its new result; the boxes used."""
    view = window.topics_controller.views["peft"]
    panel = view.panel
    boxes = {"method": panel.method, "target": panel.target, "b_init": panel.b_init, "rank": panel.rank,
             "alpha": panel.alpha, "rslora": panel.rslora}
    for name, value in settings.items():
        box = boxes[name]
        if hasattr(box, "findData"):
            index = box.findData(value)
            assert index >= 0, (name, value)
            box.setCurrentIndex(index)
        elif hasattr(box, "setChecked"):
            box.setChecked(value)
        else:
            box.setValue(value)
        assert getattr(window.state.topics, "peft_" + name) == value
    topics = window.state.topics
    wanted = dict(method=topics.peft_method, target=topics.peft_target, rank=topics.peft_rank,
                  b_init=topics.peft_b_init, rslora=topics.peft_rslora)
    qtbot.waitUntil(lambda: view.data is not None and window.lessons.is_settled()
                    and all(getattr(view.data.config, k) == v for k, v in wanted.items()), timeout=SETTLE_MS)
    return {boxes[name] for name in settings}


def inside_page(window, view: str):
    """The Inside attention tab's page for `view` (pages are built when first needed)."""
    inside = window.inside_view
    return inside.page(view) if hasattr(inside, "page") else inside.pages[view]


def show_page(qtbot, window, view: str):
    """The Inside attention tab shown on `view` (its button clicked), its numbers drawn; the page."""
    window.tabs.setCurrentWidget(window.inside_view)
    window.inside_view.choice.buttons[view].click()
    qtbot.waitUntil(lambda: window.insight.is_idle() and window.insight.busy == ""
                    and window.insight.result(view) is not None, timeout=SETTLE_MS)
    return inside_page(window, view)


def walk(qtbot, window, lesson, each=None) -> None:
    window.lessons.open_lesson(lesson)
    assert window.lessons.dock.isVisible()
    for index, step in enumerate(lesson.steps):
        window.lessons.session.go(index)
        settle(qtbot, window)
        assert window.lessons.step_problem is None, (step.id, window.lessons.step_problem)
        window.lessons.highlight.follow()
        assert_shows(window, step)
        if each is not None:
            each(step)


def test_the_lessons_are_in_the_lessons_menu(make_window, qtbot):
    window = make_window()
    names = [a.objectName() for a in window.lessons_menu.actions()]
    assert names.index("lesson_decoding") < names.index("lesson_peft") < names.index("lesson_inside-attention")
    next(a for a in window.lessons_menu.actions() if a.objectName() == "lesson_peft").trigger()
    settle(qtbot, window)
    assert window.lessons.session.lesson.name == "peft"
    assert window.topics_controller.views["peft"].isVisible()


def test_peft_lesson_walks_and_the_topic_says_what_each_step_quotes(make_window, qtbot):
    lesson = find_lesson("peft")
    skip_unless_models_installed(lesson)
    window = make_window()
    checked = []

    def each(step) -> None:
        if step.topic == "peft":
            framed, used = window.lessons.control_widget(step.highlight) if step.highlight else None, set()
            for settings, numbers in PEFT_STEPS[step.id]:
                used |= choose_settings(qtbot, window, settings)
                view = window.topics_controller.views["peft"]
                shown = view.summary_text() + view.figure.table.html  # as drawn
                for number in numbers:
                    assert number in shown, (step.id, number, shown)
                    assert number in step.text.en and number in step.text.ko, (step.id, number)
                data = view.data
                if step.id == "lora-b-zero":  # B = 0: the heads are the base, bit for bit
                    np.testing.assert_array_equal(data.weights, data.base_weights)
                if step.id in ("lora-b-zero", "lora-b-drawn"):  # head 0's row 나는, as drawn
                    row = " ".join(f"{w:.2f}" for w in data.weights[0, 0])
                    assert row in step.text.en and row in step.text.ko
                if step.id == "ia3":
                    assert f"({data.weights[0, 0].max():.2f})" in step.text.en
            assert framed is None or framed in used, f"step {step.id} frames a box it does not use"
            checked.append(step.id)
        if step.id in NAMED:
            roots = [window]
            if step.id == "fine-tune-smollm2":
                roots.append(window.lora_tune_button.open_dialog())
            names = ui_names(*roots)
            for name in NAMED[step.id]:
                assert name in step.text.en, (step.id, name)
                assert name in names, (step.id, name)
            if len(roots) > 1:
                roots[1].close()

    walk(qtbot, window, lesson, each)
    assert checked == list(PEFT_STEPS)


def test_inside_lesson_walks_and_its_pages_draw_what_the_steps_quote(make_window, qtbot):
    lesson = find_lesson("inside-attention")
    skip_unless_models_installed(lesson)
    window = make_window()
    checked = []

    def each(step) -> None:
        window.install_learned()
        for view in ("sinks", "rollout", "values", "lens"):
            inside_page(window, view)
        names = ui_names(window)
        for name in NAMED[step.id]:
            assert name in step.text.en and name in names, (step.id, name)
        if step.id == "sink":  # SmolLM2 on the default sentence: the share per layer
            first, _separators = show_page(qtbot, window, "sinks").curves()
            top = int(np.argmax(first))
            assert top == step.layer
            for share in (first.mean(), first[top]):
                assert f"{share:.0%}".replace("%", " %") in step.text.en
            checked.append(step.id)
        if step.id == "value-weighted":  # the course model's head 0, query 나는
            alpha, norms, tv = show_page(qtbot, window, "values").drawn()
            for numbers in (alpha[0], norms[0]):
                row = " ".join(f"{v:.2f}" for v in numbers)
                assert row in step.text.en and row in step.text.ko
            assert f"{tv[0]:.2f} in head 0" in step.text.en and f"{tv[1]:.2f} in head 1" in step.text.en
            checked.append(step.id)
        if step.id == "words-not-pieces":  # typed in, then pieces → words on the heads grid
            window.tabs.setCurrentWidget(window.heads_grid)
            choose(qtbot, window, "smollm2-135m", KOREAN)
            pieces = window.heads_grid.shown_result().tokens
            window.words_switch.buttons[True].click()
            qtbot.waitUntil(lambda: window.grid_switches.is_idle()
                            and window.heads_grid.shown_result() is window.shown.picture
                            and len(window.heads_grid.shown_result().tokens) == 4, timeout=SETTLE_MS)
            assert f"{len(pieces)} pieces" in step.text.en
            assert tuple(window.heads_grid.shown_result().tokens) == tuple(KOREAN.split())
            weights = window.heads_grid.shown_result().weights  # (heads, 4, 4) grouped from 29 pieces
            sums = weights.astype(np.float64).sum(axis=-1)  # each row: the sum of its 29 pieces' weights
            assert_close(sums, np.ones_like(sums), dtype=weights.dtype, reduction=len(pieces))
            checked.append(step.id)

    walk(qtbot, window, lesson, each)
    assert checked == ["sink", "value-weighted", "words-not-pieces"]


@pytest.mark.parametrize("name", ["peft", "inside-attention"])
def test_every_step_is_shown_in_korean_too(make_window, qtbot, korean_ui, name):
    lesson = find_lesson(name)
    skip_unless_models_installed(lesson)
    window = make_window()
    window.lessons.open_lesson(lesson)
    for index, step in enumerate(lesson.steps):
        window.lessons.session.go(index)
        settle(qtbot, window)
        assert window.lessons.step_problem is None
        assert window.lessons.panel.text.text() == step.text.ko
