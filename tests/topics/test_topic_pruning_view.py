"""Pruning view: bars are the core's importance; toggling heads updates ‖Δoutput‖ live."""

import numpy as np

from explorer.core import PRESETS, AttentionConfig, forward
from explorer.core.topics import head_importance, prune_heads
from explorer.gui.topics.pruning_view import KEPT_COLOUR, PRUNED_COLOUR, PruningView
from numeric import assert_close
from topic_support import feed, redraw, show_view


def bar_colours(bars):
    return [b.color().name() for b in bars.opts["brushes"]]


def test_importance_bars_and_delta_follow_the_head_mask(qtbot):
    result = forward(PRESETS["many-heads"].config)
    view = show_view(qtbot, PruningView, result)
    imp = head_importance(result)
    n, d, d_head = result.config.n_tokens, 64, 8
    size = np.abs(result.output).max()
    # ‖c_h‖ over n · d entries, each a sum of d_head products
    assert_close(view.importance_bars.opts["height"], imp.contribution_norm, dtype="float64",
                 reduction=n * d * d_head)
    assert_close(view.entropy_bars.opts["height"], imp.mean_entropy, dtype="float64",
                 reduction=n)  # the mean over the query rows
    assert len(view.boxes) == 8 and view.head_mask().all()
    # ‖Δ‖ over n · d entries, each within the rule for d_model terms
    assert_close(view.data.pruned.delta_norm, 0.0, dtype="float64", reduction=d * n * d,
                 scale=size)
    redraw(qtbot, view, lambda: view.boxes[2].setChecked(False))
    mask = np.ones(8, bool)
    mask[2] = False
    expected = prune_heads(result, mask)
    assert_close(view.outputs["pruned"].matrix(), expected.output, dtype="float64", reduction=d)
    assert_close(view.outputs["delta"].matrix(), expected.delta, dtype="float64", reduction=d,
                 scale=size)  # a difference of two outputs: their size
    np.testing.assert_array_equal(view.outputs["full"].matrix(), result.output)  # shown as given
    # removing head 2 alone moves the output by ‖c_2‖ (Δ: errors of the output's size)
    assert_close(expected.delta_norm, imp.contribution_norm[2], dtype="float64",
                 reduction=n * d * d, scale=max(imp.contribution_norm[2], size))
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
    # every head kept: the pruned concat · W_O (d_model terms) is the forward output
    assert_close(view.outputs["pruned"].matrix(), view.outputs["full"].matrix(), dtype="float64",
                 reduction=8)
