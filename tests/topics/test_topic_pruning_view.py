"""Pruning view: bars are the core's importance; toggling heads updates ‖Δoutput‖ live."""

import numpy as np
import pytest

from explorer.core import PRESETS, AttentionConfig, forward
from explorer.core.topics import head_importance, prune_heads
from explorer.gui.topics.pruning_view import KEPT_COLOUR, PRUNED_COLOUR, PruningView
from topic_support import feed, redraw, show_view


def bar_colours(bars):
    return [b.color().name() for b in bars.opts["brushes"]]


def test_importance_bars_and_delta_follow_the_head_mask(qtbot):
    result = forward(PRESETS["many-heads"].config)
    view = show_view(qtbot, PruningView, result)
    imp = head_importance(result)
    np.testing.assert_allclose(view.importance_bars.opts["height"], imp.contribution_norm)
    np.testing.assert_allclose(view.entropy_bars.opts["height"], imp.mean_entropy)
    assert len(view.boxes) == 8 and view.head_mask().all()
    assert view.data.pruned.delta_norm == pytest.approx(0.0, abs=1e-9)
    redraw(qtbot, view, lambda: view.boxes[2].setChecked(False))
    mask = np.ones(8, bool)
    mask[2] = False
    expected = prune_heads(result, mask)
    np.testing.assert_allclose(view.outputs["pruned"].matrix(), expected.output)
    np.testing.assert_allclose(view.outputs["delta"].matrix(), expected.delta)
    np.testing.assert_allclose(view.outputs["full"].matrix(), result.output)
    assert expected.delta_norm == pytest.approx(imp.contribution_norm[2])
    assert f"{expected.delta_norm:.4g}" in view.delta_text
    colours = bar_colours(view.importance_bars)
    assert colours[2] == PRUNED_COLOUR and colours[0] == KEPT_COLOUR


def test_all_heads_pruned_shows_zero_output_and_the_note(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, PruningView, result)
    redraw(qtbot, view, lambda: view.set_head_mask([False, False]))
    assert np.all(view.outputs["pruned"].matrix() == 0)
    assert "All heads are pruned" in view.message.text()  # the UI language (English here)
    assert "100.0%" in view.delta_text
    redraw(qtbot, view, view.all_on.click)
    assert view.head_mask().all()
    assert view.message.text() == ""


def test_mask_survives_a_new_seed_and_resets_with_a_new_head_count(qtbot):
    view = show_view(qtbot, PruningView, forward(AttentionConfig()))
    redraw(qtbot, view, lambda: view.boxes[1].setChecked(False))
    feed(qtbot, view, forward(AttentionConfig(seed=2)))
    assert list(view.head_mask()) == [True, False]
    feed(qtbot, view, forward(AttentionConfig(d_model=8, n_heads=4)))
    assert list(view.head_mask()) == [True] * 4
    np.testing.assert_allclose(view.outputs["pruned"].matrix(), view.outputs["full"].matrix())
