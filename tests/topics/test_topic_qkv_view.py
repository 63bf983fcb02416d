"""Q/K/V view: every heatmap is the core's matrix; the band and slices follow the head."""

import numpy as np

from explorer.core import AttentionConfig, forward, model_input
from explorer.gui.topics.qkv_view import QKVView
from topic_support import feed, show_view


def test_matrices_and_head_slices_are_the_cores(qtbot):
    result = forward(AttentionConfig())  # course-lab3
    view = show_view(qtbot, QKVView, result)
    weights = model_input(result.config)[0]
    expected = {"X": result.x_in, "W_Q": weights.w_q, "W_K": weights.w_k, "W_V": weights.w_v,
                "Q": result.q, "K": result.k, "V": result.v}
    for name, array in expected.items():
        np.testing.assert_array_equal(view.plots[name].matrix(), array)
    assert view.plots["W_Q"].title == "W_Q (8, 8)"
    assert view.plots["Q"].title == "Q = X·W_Q (4, 8)"
    for head in (0, 1):
        view.head_spin.setValue(head)
        cols = range(4 * head, 4 * head + 4)
        for name, split in (("Q", result.qh), ("K", result.kh), ("V", result.vh)):
            np.testing.assert_array_equal(view.plots[f"{name}_head"].matrix(), split[head])
            np.testing.assert_array_equal(view.plots[f"{name}_head"].matrix(),
                                          view.plots[name].matrix()[:, cols])
            assert view.plots[name].band_cols == cols
            assert view.plots[f"W_{name}"].band_cols == cols
        assert f"columns {cols.start} … {cols.stop - 1}" in view.columns_label.text()
        assert f"head {head} ← columns {cols.start} … {cols.stop - 1}" in view.flow_text()
    # the course prints head 0's query row for 나는: the labels show it
    view.head_spin.setValue(0)
    labels = view.plots["Q_head"].value_labels()
    assert labels[:4] == ["-1.19", "-2.72", "-0.72", "2.36"]


def test_head_range_follows_the_config_and_explanation_is_shown(qtbot):
    view = show_view(qtbot, QKVView, forward(AttentionConfig()))
    assert view.explanation.isVisible()
    assert "W_Q" in view.explanation.text() and "columns" in view.explanation.text()  # the UI's English
    view.head_spin.setValue(1)
    feed(qtbot, view, forward(AttentionConfig(d_model=12, n_heads=3)))
    assert view.head_spin.maximum() == 2
    assert view.plots["Q_head"].matrix().shape == (4, 4)
    feed(qtbot, view, forward(AttentionConfig(d_model=8, n_heads=1)))
    assert view.head_spin.value() == 0
    np.testing.assert_array_equal(view.plots["Q_head"].matrix(), view.plots["Q"].matrix())


def test_presentation_mode_keeps_the_data(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, QKVView, result)
    view.set_presentation(True)
    assert view.presentation
    assert view.explanation.paragraph.font().pointSizeF() > 12
    np.testing.assert_array_equal(view.plots["Q"].matrix(), result.q)
