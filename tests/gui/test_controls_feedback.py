"""QA pass: the control panel with extreme inputs (many padding positions)."""

from __future__ import annotations

from explorer.core import AttentionConfig
from explorer.gui.controls.sentence import PaddingChips
from explorer.app.course.state import AppState
from explorer.app.course.compute import ComputeWorker


def _chips(qtbot, config):
    state = AppState(config, worker=ComputeWorker())
    chips = PaddingChips(state)
    qtbot.addWidget(chips)
    chips.resize(320, 400)
    chips.show()
    qtbot.waitExposed(chips)
    return state, chips


def test_summary_of_many_padding_positions_stays_short(qtbot):
    """205 padded keys used to be listed one by one: 20 lines that pushed the sliders away."""
    tokens = tuple(f"t{i}" for i in range(1024))
    padding = frozenset(range(0, 1024, 5))
    state, chips = _chips(qtbot, AttentionConfig(tokens=tokens, d_model=8, n_heads=2,
                                                 padding=padding))
    text = chips.summary.text()
    assert "205" in text  # how many, said plainly
    assert text.startswith("padding: 0, 5, 10")  # the first few still listed
    assert "1020" in text  # and the last one
    assert len(text) < 140
    assert chips.summary.heightForWidth(300) <= 4 * chips.summary.fontMetrics().lineSpacing()
    state.shutdown()


def test_summary_lists_a_few_padding_positions_in_full(qtbot):
    tokens = tuple(f"t{i}" for i in range(12))
    state, chips = _chips(qtbot, AttentionConfig(tokens=tokens, d_model=8, n_heads=2,
                                                 padding=frozenset({0, 3, 11})))
    assert chips.summary.text() == "padding: 0, 3, 11"
    state.update(padding=frozenset())
    assert chips.summary.text() == "padding: none (click a token)"
    state.shutdown()


def test_refused_sentence_is_explained_under_the_box_until_it_changes(qtbot):
    """An empty or over-long sentence: the status bar said why for 10 s, then the box held
    text the picture did not show, with 'n = 4 tokens' under it."""
    from explorer.gui.controls.sentence import SentenceControl

    config = AttentionConfig(tokens=("a", "b", "c", "d"), d_model=8, n_heads=2)
    state = AppState(config, worker=ComputeWorker())
    control = SentenceControl(state)
    qtbot.addWidget(control)
    assert not control.set_text(" ".join(f"w{i}" for i in range(1100)))
    assert state.config.tokens == config.tokens  # nothing lost
    text = control.count_label.text()
    assert text.startswith("not applied: too many tokens: 1100 (at most 1024)")
    assert "n = 4" in text
    assert not control.set_text("   ")
    assert "empty" in control.count_label.text()
    assert control.set_text("a b c d")  # back to what is shown: the note goes
    assert control.count_label.text() == "n = 4 tokens"
    assert not control.set_text("")
    assert control.set_text("x y")
    assert control.count_label.text() == "n = 2 tokens"
    state.error.emit("torch/cuda failed: …")  # not about the sentence: not shown here
    assert control.count_label.text() == "n = 2 tokens"
    state.shutdown()


def test_a_refused_sentence_survives_other_controls_but_not_a_new_sentence(qtbot):
    """A pasted sentence refused as too long was replaced by the old one as soon as the seed or
    heads changed: the user's paste was lost."""
    from explorer.gui.controls.sentence import SentenceControl

    config = AttentionConfig(tokens=("a", "b", "c", "d"), d_model=8, n_heads=2)
    state = AppState(config, worker=ComputeWorker())
    control = SentenceControl(state)
    qtbot.addWidget(control)
    pasted = " ".join(f"w{i}" for i in range(1100))
    assert not control.set_text(pasted)
    state.update(seed=7)
    state.update(n_heads=4)
    assert control.edit.text() == pasted  # still there to be fixed
    assert control.count_label.text().startswith("not applied")
    state.update(tokens=("x", "y"))  # e.g. a preset: the box follows the new sentence
    assert control.edit.text() == "x y" and control.count_label.text() == "n = 2 tokens"
    state.shutdown()


def test_heads_slider_offers_only_what_the_sentence_length_allows(qtbot):
    """At 1024 tokens the core allows 16 heads at most; the slider still offered 32 … 256 and,
    when refused, stayed on 32 while the label and the picture said 16."""
    from explorer.core.config import max_heads_for
    from explorer.gui.controls.model import ModelSizeControl

    tokens = tuple(f"t{i}" for i in range(1024))
    state = AppState(AttentionConfig(tokens=tokens, d_model=2048, n_heads=16),
                     worker=ComputeWorker())
    control = ModelSizeControl(state)
    qtbot.addWidget(control)
    slider = control.heads_slider
    assert max_heads_for(1024) == 16
    assert control._divisors[slider.maximum()] == 16
    slider.setValue(slider.maximum() + 1)  # the far right is 16
    control.step_heads(+1)  # H
    assert state.config.n_heads == 16 and control.heads_value.text() == "16"
    assert control._divisors[slider.value()] == 16
    assert "fewer tokens" in control.divisors_label.text()
    state.update(tokens=tokens[:8])  # a short sentence: every divisor again
    assert control._divisors[slider.maximum()] == 256
    assert "fewer tokens" not in control.divisors_label.text()
    control.step_heads(+1)
    assert state.config.n_heads == 32
    state.shutdown()
