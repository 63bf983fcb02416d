"""Cross-attention view: rectangular heatmaps are the core's; bad encoder input is a message."""

import numpy as np

from explorer.core import AttentionConfig, forward
from explorer.core.topics import CrossConfig, cross_attention
from explorer.gui.topics.cross_view import CrossView
from numeric import assert_close
from topic_support import redraw, show_view


def test_heads_are_decoder_by_encoder_weights_with_padding_masked(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, CrossView, result)
    expected = cross_attention(CrossConfig(result.config, ("I", "went", "to", "school", "by",
                                                            "bus", "<pad>", "<pad>"), {6, 7}))
    assert len(view.head_plots) == 2
    for h, plot in enumerate(view.head_plots):
        np.testing.assert_array_equal(plot.matrix(), expected.weights[h])
        assert plot.matrix().shape == (4, 8)
        np.testing.assert_array_equal(plot.masked, ~expected.mask)
        assert len(plot.value_labels()) == 4 * 6  # padded cells get no number
    np.testing.assert_array_equal(view.mask_plot.matrix(), expected.mask.astype(float))
    # each row: its 6 open weights over their own sum (8 keys summed), whatever the scores
    assert_close(view.cross.weights.sum(axis=-1), 1.0, dtype="float64", reduction=8)


def test_pad_box_and_sentence_edits_recompute(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, CrossView, result)
    redraw(qtbot, view, lambda: view.pad_box.setChecked(False))
    assert view.cross.mask.all()
    redraw(qtbot, view, lambda: view.set_encoder_text("a b c"))
    expected = cross_attention(CrossConfig(result.config, ("a", "b", "c")))
    np.testing.assert_array_equal(view.head_plots[0].matrix(), expected.weights[0])


def test_empty_encoder_sentence_shows_the_config_error(qtbot):
    view = show_view(qtbot, CrossView, forward(AttentionConfig()))
    before = view.head_plots[0].matrix().copy()
    redraw(qtbot, view, lambda: view.set_encoder_text("   "))
    assert "encoder sentence is empty" in view.message.text()
    assert view.message.isVisible()
    np.testing.assert_array_equal(view.head_plots[0].matrix(), before)  # last good picture stays


def test_all_encoder_tokens_padding_explained(qtbot):
    view = show_view(qtbot, CrossView, forward(AttentionConfig()))
    redraw(qtbot, view, lambda: view.set_encoder_text("<pad> <pad>"))
    assert np.all(view.head_plots[0].matrix() == 0)
    assert view.head_plots[0].outlined_rows == (0, 1, 2, 3)
    assert "NaN" in view.message.text()


def test_many_heads_show_the_first_eight(qtbot):
    view = show_view(qtbot, CrossView, forward(AttentionConfig(d_model=16, n_heads=16)))
    assert len(view.head_plots) == 8
    assert "of 16" in view.message.text()
