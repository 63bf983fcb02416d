"""QA pass: the control panel with extreme inputs (many padding positions)."""

from __future__ import annotations

from explorer.core import AttentionConfig
from explorer.gui.controls_sentence import PaddingChips
from explorer.gui.state import AppState
from explorer.gui.worker import ComputeWorker


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
