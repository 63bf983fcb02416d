"""Encoder block view: bars and heatmaps are the core block's stages; d_ff = 0 is a message."""

import numpy as np

from explorer.core import AttentionConfig, forward
from explorer.core.topics import EncoderConfig, encoder_block
from explorer.core.topics.encoder import LN_EPS
from explorer.gui.topics.encoder_view import EncoderView
from numeric import assert_close
from topic_support import encoder_rule, feed, redraw, show_view


def test_post_ln_stages_match_the_core(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, EncoderView, result)
    block = encoder_block(EncoderConfig(result.config))
    norms = encoder_rule(block, norms=True)  # the view computed the same block, on its thread
    assert_close(view.bar_values(), block.row_norms().mean(axis=1), **norms)
    assert_close(view.token_norms.matrix(), block.row_norms(), **norms)
    assert_close(view.stage_plots["output"].matrix(), block.output, **encoder_rule(block))
    np.testing.assert_array_equal(view.stage_plots["x"].matrix(), result.x)  # the drawn input
    # Post-LN: the output rows have norm √(d_model · σ² / (σ² + eps)), σ² the variance of the
    # last LayerNorm's input row (identity affine): √d_model but for LayerNorm's eps
    variance = block.stage("h + FFN").var(axis=-1)
    assert_close(view.token_norms.matrix()[-1], np.sqrt(8 * variance / (variance + LN_EPS)),
                 **norms)
    assert view.ff_spin.value() == 32


def test_switches_recompute_pre_ln_relu_and_custom_d_ff(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, EncoderView, result)
    redraw(qtbot, view, lambda: view.norm_combo.setCurrentIndex(1))
    redraw(qtbot, view, lambda: view.act_combo.setCurrentIndex(1))
    redraw(qtbot, view, lambda: view.auto_ff.setChecked(False))
    redraw(qtbot, view, lambda: view.ff_spin.setValue(5))
    block = encoder_block(EncoderConfig(result.config, norm_first=True, activation="relu", d_ff=5))
    assert view.block.ffn_hidden.shape == (4, 5)
    assert_close(view.stage_plots["output"].matrix(), block.output, **encoder_rule(block))
    assert_close(view.bar_values(), block.row_norms().mean(axis=1),
                 **encoder_rule(block, norms=True))


def test_d_ff_zero_is_refused_with_the_core_message(qtbot):
    view = show_view(qtbot, EncoderView, forward(AttentionConfig()))
    redraw(qtbot, view, lambda: view.auto_ff.setChecked(False))
    before = view.bar_values().copy()
    redraw(qtbot, view, lambda: view.ff_spin.setValue(0))
    assert "d_ff must be between 1" in view.message.text()
    np.testing.assert_array_equal(view.bar_values(), before)


def test_auto_d_ff_follows_d_model(qtbot):
    view = show_view(qtbot, EncoderView, forward(AttentionConfig()))
    feed(qtbot, view, forward(AttentionConfig(d_model=16)))
    assert view.ff_spin.value() == 64
    assert view.block.ffn_hidden.shape == (4, 64)
