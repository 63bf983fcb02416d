"""The PEFT topic in the real MainWindow: opened from the Topics menu, driven through its widgets
(r, B, target, method, head), each change waited for until the painted picture changes."""

import numpy as np
import pytest

from explorer.core import PRESETS, forward
from explorer.gui.topics import TopicsController
from explorer.gui.topics.texts import TEXTS

WAIT_MS = 30_000
LAB3 = PRESETS["course-lab3"].config


@pytest.fixture
def window_size():
    return (1024, 768)


def painted(view):
    return view.graphics.grab().toImage()


def open_peft(qtbot, window):
    controller = window.findChild(TopicsController)
    action = controller.actions["peft"]
    assert action in window.topics_menu.actions()
    action.trigger()
    view = controller.views["peft"]
    qtbot.waitUntil(lambda: window.state.is_idle() and view.result is window.state.result
                    and not view.runner.is_busy() and view.data is not None
                    and view.data.config.attention == window.state.result.config, timeout=WAIT_MS)
    return view


def change(qtbot, view, edit):
    """Make a widget edit, then wait for the new result and a repainted picture."""
    before = painted(view)
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        edit()
    qtbot.waitUntil(lambda: painted(view) != before, timeout=WAIT_MS)


def choose(combo, value) -> None:
    combo.setCurrentIndex(next(i for i in range(combo.count()) if combo.itemData(i) == value))


def test_opened_from_the_menu_the_adapter_starts_as_the_base(qtbot, window):
    view = open_peft(qtbot, window)
    assert window.tabs.currentWidget() is view
    assert window.state.config == LAB3
    heads = view.figure.heads
    expected = forward(LAB3).weights[0]
    np.testing.assert_array_equal(heads["base"].matrix(), expected)
    np.testing.assert_array_equal(heads["adapted"].matrix(), expected)  # B = 0: the very base
    np.testing.assert_array_equal(heads["difference"].matrix(), 0.0)
    text = view.summary_text()
    assert "B = 0, so ΔW = 0" in text and "✓" in text and "max difference 0" in text
    assert "LoRA W_Q" in view.figure.table.plain_text()
    assert TEXTS["peft"].body_en in view.explanation.text()


def test_b_rank_target_and_method_change_the_painted_picture(qtbot, window):
    view = open_peft(qtbot, window)
    panel = view.panel
    change(qtbot, view, lambda: choose(panel.b_init, "seed"))
    heads = view.figure.heads
    np.testing.assert_array_equal(heads["adapted"].matrix(), view.data.weights[0])  # as computed
    np.testing.assert_array_equal(heads["difference"].matrix(),
                                  view.data.weights[0] - view.data.base_weights[0])
    assert np.abs(heads["difference"].matrix()).max() > 0.01
    assert view.data.lora.check.ok and "✓" in view.summary_text()
    change(qtbot, view, lambda: panel.rank.setValue(5))
    assert window.state.topics.peft_rank == 5 and view.data.config.rank == 5
    assert len(view.data.lora.delta_singular) == 5
    assert "rank ≤ r = 5" in view.summary_text()
    assert "r·2d·L" in view.figure.table.plain_text() and "80" in view.figure.table.plain_text()
    change(qtbot, view, lambda: choose(panel.target, "v"))
    assert heads["adapted"].matrix().shape == (4, 8)  # W_V moves no weight: the output is shown
    assert "W_V" in view.summary_text()
    change(qtbot, view, lambda: choose(panel.method, "prefix"))
    assert heads["adapted"].matrix().shape == (4, 2 + 4)
    assert not panel.rank.isVisible() and panel.virtual.isVisible()
    change(qtbot, view, lambda: panel.virtual.setValue(3))
    assert heads["adapted"].matrix().shape == (4, 3 + 4)
    change(qtbot, view, lambda: choose(panel.method, "prompt"))
    assert heads["adapted"].matrix().shape == (3 + 4, 3 + 4)
    change(qtbot, view, lambda: choose(panel.method, "ia3"))
    assert heads["adapted"].matrix().shape == (4, 4) and panel.strength.isVisible()


def test_the_head_redraws_without_a_recompute(qtbot, window):
    view = open_peft(qtbot, window)
    choose(view.panel.method, "ia3")
    qtbot.waitUntil(lambda: view.data.config.method == "ia3" and not view.runner.is_busy(),
                    timeout=WAIT_MS)
    generation = view.runner.generation
    before = painted(view)
    view.panel.head.setValue(1)
    qtbot.waitUntil(lambda: painted(view) != before, timeout=WAIT_MS)
    assert view.runner.generation == generation
    np.testing.assert_array_equal(view.figure.heads["base"].matrix(), view.data.base_weights[1])


def test_the_view_follows_the_course_sliders(qtbot, window):
    view = open_peft(qtbot, window)
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        window.state.update(d_model=12, n_heads=3)
    qtbot.waitUntil(lambda: view.data.config.attention.d_model == 12, timeout=WAIT_MS)
    assert view.panel.rank.maximum() == 12 and view.panel.head.maximum() == 2
    assert view.data.base_weights.shape == (3, 4, 4)


def test_the_korean_texts_differ_from_the_english(qtbot, window):
    from explorer.gui.window.language import set_window_language
    view = open_peft(qtbot, window)
    english = (view.summary_text(), view.explanation.text(), view.figure.heads["base"].title,
               view.panel.method.itemText(2))
    set_window_language(window, "ko")
    korean = (view.summary_text(), view.explanation.text(), view.figure.heads["base"].title,
              view.panel.method.itemText(2))
    assert all(k != e for k, e in zip(korean, english)), korean
    assert "✓" in korean[0]
    set_window_language(window, "en")
    assert view.summary_text() == english[0]


def test_a_wide_model_draws_without_ws_singular_values(qtbot):
    """Above MAX_SVD_D_MODEL only ΔW's bars are drawn (an SVD of W would take many seconds)."""
    from explorer.core import AttentionConfig
    from explorer.core.topics.peft import MAX_SVD_D_MODEL
    from explorer.gui.topics.peft import PeftView
    from topic_support import show_view
    config = AttentionConfig(tokens=("a", "b"), d_model=1280, n_heads=2)
    view = show_view(qtbot, PeftView)
    view.topics.peft_b_init = "seed"
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        view.set_result(forward(config))
    assert view.data.lora.w_singular is None
    w_bars, delta_bars = view.figure.singular.shown
    assert not w_bars.any() and delta_bars[:2].all() and not delta_bars[2:].any()
    assert str(MAX_SVD_D_MODEL) in view.figure.singular.plot.titleLabel.text
