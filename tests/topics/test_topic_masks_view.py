"""Masks view: padding, causal, combined and the weights, with empty rows outlined and explained."""

import numpy as np

from explorer.core import AttentionConfig, forward
from explorer.core.masks import build_mask
from explorer.gui.topics.masks_view import MasksView
from explorer.gui.topics.menu import MASKS_CONFIG
from topic_support import show_view


def test_layers_are_drawn_and_the_empty_row_explained(qtbot):
    result = forward(MASKS_CONFIG)
    view = show_view(qtbot, MasksView, result)
    n = 6
    np.testing.assert_array_equal(view.plots["padding"].matrix(),
                                  build_mask(n, n, False, {0, 5}).astype(float))
    np.testing.assert_array_equal(view.plots["causal"].matrix(), np.tri(n))
    np.testing.assert_array_equal(view.plots["combined"].matrix(), result.mask.astype(float))
    np.testing.assert_array_equal(view.plots["weights"].matrix(), result.weights[0])
    assert view.plots["combined"].outlined_rows == (0,)
    assert view.plots["weights"].outlined_rows == (0,)
    assert np.isfinite(view.plots["weights"].matrix()).all()
    text = view.message.text()
    assert "query 0 (<pad>)" in text and "zero vector" in text  # the UI language (English here)
    view.head_spin.setValue(1)
    np.testing.assert_array_equal(view.plots["weights"].matrix(), result.weights[1])


def test_no_empty_row_says_so(qtbot):
    view = show_view(qtbot, MasksView, forward(AttentionConfig(causal=True)))
    assert view.plots["combined"].outlined_rows == ()
    assert "at least one open key" in view.message.text()
    assert "off" not in view.plots["causal"].title
    view2 = show_view(qtbot, MasksView, forward(AttentionConfig()))
    assert "off" in view2.plots["causal"].title
    assert view2.plots["causal"].matrix().all()
