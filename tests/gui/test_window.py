"""The main window: every control changes the state and the heatmaps; invalid pairs cannot form."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from explorer.core import SEED_MAX, AttentionConfig, DeviceInfo, DeviceUnavailableError, forward
from explorer.gui.controls.model import D_MODEL_CHOICES, divisors, nearest_divisor
from explorer.gui.controls.options import LOADING_LABEL
from numeric import assert_close, close
from qt_settle import run_posted_events
from window_support import assert_window_shows_state, settle


def test_first_picture_is_the_default_config(make_window):
    window = make_window()
    assert window.state.config == AttentionConfig()
    assert_window_shows_state(window)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())][0] == "Heads"


def test_sentence_enter_applies_and_keeps_valid_padding(qtbot, make_window):
    window = make_window(AttentionConfig(padding=frozenset({1, 3})))
    edit = window.controls.sentence.edit
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, "the cat sat")
    QTest.keyClick(edit, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert window.state.config.tokens == ("the", "cat", "sat")
    assert window.state.config.padding == frozenset({1})  # position 3 no longer exists
    assert [c.text() for c in window.controls.chips.chips] == ["the", "cat", "sat"]
    assert_window_shows_state(window)
    assert window.heads_grid.head_image(0).shape == (3, 3)


def test_sentence_applies_after_a_pause_in_typing(qtbot, make_window):
    window = make_window()
    edit = window.controls.sentence.edit
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, "one two")
    qtbot.waitUntil(lambda: window.state.config.tokens == ("one", "two"), timeout=5000)


def test_empty_sentence_is_refused_with_a_status_message(qtbot, make_window):
    window = make_window()
    before = window.state.config
    assert window.controls.sentence.set_text("   ") is False
    assert "empty" in window.statusBar().currentMessage()
    settle(qtbot, window)
    assert window.state.config == before
    assert_window_shows_state(window)


def test_every_d_model_position_gives_a_valid_pair(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=48, n_heads=6))
    slider = window.controls.model_size.d_model_slider
    seen = []
    for index in list(range(slider.maximum() + 1)) + [3, 0]:
        slider.setValue(index)
        config = window.state.config
        assert config.d_model % config.n_heads == 0
        seen.append((config.d_model, config.n_heads))
    assert [d for d, _ in seen[:len(D_MODEL_CHOICES)]] == list(D_MODEL_CHOICES)
    assert (48, 6) not in seen[:9]  # heads followed d_model down to fit
    settle(qtbot, window)
    assert_window_shows_state(window)


def test_heads_slider_steps_over_the_divisors(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=24, n_heads=1))
    control = window.controls.model_size
    assert control.heads_slider.maximum() == len(divisors(24)) - 1
    for index, heads in enumerate(divisors(24)):
        control.heads_slider.setValue(index)
        assert window.state.config.n_heads == heads
        assert control.heads_value.text() == str(heads)
        assert control.d_head_label.text().endswith(f"= {24 // heads}")
    settle(qtbot, window)
    assert_window_shows_state(window)
    assert len(window.heads_grid.plot_items()) == min(24, 16)


def test_d_model_change_keeps_or_lowers_heads(make_window):
    assert nearest_divisor(8, 64) == 8
    assert nearest_divisor(6, 64) == 4
    assert nearest_divisor(3, 2) == 2
    window = make_window(AttentionConfig(d_model=12, n_heads=6))
    window.controls.model_size.set_d_model(16)
    assert (window.state.config.d_model, window.state.config.n_heads) == (16, 4)


def test_seed_reaches_the_full_32_bit_range(qtbot, make_window):
    window = make_window()
    spin = window.controls.seed.spin
    spin.setValue(SEED_MAX)
    assert window.state.config.seed == SEED_MAX == 4294967295
    settle(qtbot, window)
    assert_window_shows_state(window)
    spin.lineEdit().selectAll()
    spin.setFocus()
    QTest.keyClicks(spin, "4294967294")
    QTest.keyClick(spin, Qt.Key.Key_Return)
    assert window.state.config.seed == SEED_MAX - 1
    spin.setValue(0)
    assert window.state.config.seed == 0
    spin.stepDown()
    assert window.state.config.seed == 0


def test_random_seed_button_changes_the_picture(qtbot, make_window):
    window = make_window()
    before = window.heads_grid.head_image(0).copy()
    qtbot.mouseClick(window.controls.seed.random_button, Qt.MouseButton.LeftButton)
    assert window.state.config.seed != 1
    settle(qtbot, window)
    assert_window_shows_state(window)
    assert not close(window.heads_grid.head_image(0), before)


@pytest.mark.parametrize("name", ["scaled", "causal", "positional"])
def test_switches(qtbot, make_window, name):
    window = make_window()
    box = window.controls.switches.boxes[name]
    before = getattr(window.state.config, name)
    box.click()  # what a click on the box or its label does
    assert getattr(window.state.config, name) is (not before)
    assert box.isChecked() is (not before)
    settle(qtbot, window)
    assert_window_shows_state(window)
    if name == "causal":
        assert np.all(np.triu(window.heads_grid.head_image(0), 1) == 0)


def test_weight_init_and_precision_combos_change_config_and_picture(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=64, n_heads=2, scaled=True))
    settle(qtbot, window)
    course = window.heads_grid.head_image(0).copy()
    combos = window.controls.choices.combos
    combos["init"].activated.emit(combos["init"].findData("unit"))
    assert window.state.config.init == "unit"
    settle(qtbot, window)
    assert_window_shows_state(window)
    unit = window.heads_grid.head_image(0)
    oracle = forward(AttentionConfig(d_model=64, n_heads=2, init="unit"))
    # float64 softmax of scores summed over d_model = 64 terms (X W), whose error scales with
    # the scores' size
    assert_close(unit, oracle.weights[0], dtype="float64", reduction=64,
                 scale=np.abs(oracle.raw_scores).max())
    assert not close(unit, course)
    combos["dtype"].activated.emit(combos["dtype"].findData("float32"))
    assert window.state.config.dtype == "float32"
    settle(qtbot, window)
    assert window.state.result.weights.dtype == np.float32
    window.state.update(init="course")  # state -> combo, without a feedback loop
    assert combos["init"].currentData() == "course"


def test_padding_chip_masks_that_key(qtbot, make_window):
    window = make_window()
    chip = window.controls.chips.chips[2]
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert window.state.config.padding == frozenset({2})
    assert chip.isChecked()
    settle(qtbot, window)
    assert_window_shows_state(window)
    assert np.all(window.heads_grid.head_image(0)[:, 2] == 0)
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert window.state.config.padding == frozenset()


def test_backend_combo_before_and_after_devices(qtbot, make_window):
    devices = [DeviceInfo("numpy", "cpu", "numpy (CPU)", True),
               DeviceInfo("torch", "cpu", "torch CPU", True),
               DeviceInfo("torch", "cuda:0", "torch CUDA", False, "no CUDA here")]
    window = make_window(devices=devices)
    combo = window.controls.backend
    assert [combo.itemText(i) for i in range(combo.count())] == ["numpy (CPU)", LOADING_LABEL]
    assert not combo.model().item(1).isEnabled()
    with qtbot.waitSignal(window.state.devices_changed, timeout=10_000):
        window.state.request_devices()
    assert [combo.itemText(i) for i in range(combo.count())] == [d.label for d in devices]
    cuda = combo.model().item(2)
    assert not cuda.isEnabled() and "no CUDA here" in cuda.toolTip()
    combo.activated.emit(2)  # a disabled entry is refused
    assert window.state.config.backend == "numpy"
    combo.setCurrentIndex(1)
    combo.activated.emit(1)
    assert (window.state.config.backend, window.state.config.device) == ("torch", "cpu")
    settle(qtbot, window)
    assert window.state.result.device == "torch/cpu"
    oracle = forward(AttentionConfig())  # numpy: torch's float64 sums may round otherwise
    assert_close(window.heads_grid.head_image(0), oracle.weights[0], dtype="float64",
                 reduction=AttentionConfig().d_model, scale=np.abs(oracle.raw_scores).max())


def test_compute_failure_falls_back_and_keeps_the_picture(qtbot, make_window):
    def compute(config):
        if config.backend == "torch":
            raise DeviceUnavailableError("CUDA was requested but no CUDA device is available")
        return forward(config)

    window = make_window(compute=compute)
    good = window.heads_grid.head_image(0).copy()
    window.state.update(backend="torch", device="cuda:0")
    settle(qtbot, window)
    assert window.state.config.backend == "numpy"
    assert "no CUDA device" in window.statusBar().currentMessage()
    assert window.controls.backend.currentData() == "numpy/cpu"
    np.testing.assert_array_equal(window.heads_grid.head_image(0), good)
    assert_window_shows_state(window)


def test_colormap_and_show_values(qtbot, make_window):
    window = make_window()
    display = window.controls.display
    display.colormap_combo.setCurrentText("magma")
    assert window.state.view.colormap == "magma"
    assert window.heads_grid.colorbar().colorMap().name == "magma"
    display.values_combo.setCurrentIndex(display.values_combo.findData("off"))
    assert window.state.view.show_values == "off" and not window.heads_grid.values_shown()
    display.values_combo.setCurrentIndex(display.values_combo.findData("on"))
    assert window.heads_grid.values_shown()
    window.shortcut_actions["cycle_show_values"].trigger()
    assert display.values_combo.currentData() == "off"


def test_head_click_enlarges_and_escape_returns(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=16, n_heads=4))
    window.heads_grid.head_clicked.emit(2)
    assert window.focus_head() == 2 and window.heads_grid.visible_heads() == [2]
    window.heads_grid.head_clicked.emit(2)  # clicking the enlarged head goes back
    assert window.focus_head() is None and window.heads_grid.visible_heads() == [0, 1, 2, 3]
    window.shortcut_actions["focus_head_3"].trigger()
    assert window.heads_grid.visible_heads() == [3]
    window.shortcut_actions["unfocus_head"].trigger()
    assert window.heads_grid.visible_heads() == [0, 1, 2, 3]
    window.shortcut_actions["focus_head_8"].trigger()  # no head 8: ignored
    assert window.focus_head() is None


def test_focused_head_survives_only_while_it_exists(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=16, n_heads=4))
    window.set_focus_head(3)
    window.state.update(n_heads=2)
    settle(qtbot, window)
    assert window.focus_head() is None
    assert_window_shows_state(window)


def test_info_strip_describes_the_picture(make_window):
    window = make_window()
    strip = window.info_strip
    assert strip.shape_label.text() == "shapes (4, 8) → (2, 4, 4) → (4, 8)"
    assert strip.params_label.text() == "parameters 256"
    entropy = window.state.result.stats.entropy.mean(axis=1)
    assert f"h0 {entropy[0]:.2f}" in strip.entropy_label.text()
    assert f"h1 {entropy[1]:.2f}" in strip.entropy_label.text()
    assert strip.time_label.text().endswith("on numpy/cpu")


def test_add_view_adds_a_tab(qtbot, make_window):
    from PySide6.QtWidgets import QLabel
    window = make_window()
    label = QLabel("extra")
    window.add_view("Extra", label)
    assert window.tabs.tabText(window.tabs.count() - 1) == "Extra"
    assert label in window.views()


def test_dragging_a_slider_across_its_range_ends_on_the_final_value(qtbot, make_window):
    window = make_window(AttentionConfig(tokens=tuple(f"t{i}" for i in range(64)), d_model=64,
                                         n_heads=16))
    slider = window.controls.model_size.d_model_slider
    slider.setSliderDown(True)  # as while the mouse holds the handle
    for index in list(range(slider.maximum() + 1)) + list(range(slider.maximum(), 5, -1)):
        slider.setValue(index)  # no waiting between moves: a fast drag
    slider.setSliderDown(False)
    final = window.state.config
    assert final.d_model == window.controls.model_size._widths[6]
    settle(qtbot, window)
    assert window.state.result.config == final
    assert window.state.worker.computes < slider.maximum()  # 34 moves, far fewer computes
    assert_window_shows_state(window)


def test_full_screen_toggles(qtbot, make_window):
    window = make_window()
    window.shortcut_actions["full_screen"].trigger()
    qtbot.waitUntil(window.isFullScreen)
    window.shortcut_actions["full_screen"].trigger()
    qtbot.waitUntil(lambda: not window.isFullScreen())


def test_a_deferred_window_builds_the_kv_tab_when_it_is_chosen_first(qtbot, make_window):
    """Before the deferred step runs, the PE and KV tabs hold placeholders; choosing one builds
    both views in place (same tab, same title) and the KV tab then works as usual."""
    window = make_window(defer=True)
    assert window.kv_panel is None and window.tabs.widget(2).objectName() == "kv_placeholder"
    title = window.tabs.tabText(2)
    window.tabs.setCurrentIndex(2)
    assert window.tabs.currentWidget() is window.kv_panel is not None
    assert window.tabs.indexOf(window.pe_panel) == 1 and window.tabs.tabText(2) == title
    assert window.state.kv_enabled
    qtbot.waitUntil(lambda: window.kv_panel.trace is not None, timeout=30_000)
    assert window.kv_panel.trace.config.replace(causal=False) == window.state.config  # (the cache is causal)
    window.tabs.setCurrentIndex(1)
    assert window.pe_panel.isVisible() and window.state.result is not None


def test_an_export_before_the_deferred_step_builds_the_panels_first(qtbot, make_window):
    from explorer.gui.window.exports.from_window import available_specs
    window = make_window(defer=True)
    assert window.kv_panel is None
    kinds = [spec.kind for _, spec in available_specs(window) if hasattr(spec, "kind")]
    assert window.kv_panel is not None and "pe" in kinds


def test_deferred_start_up_steps_stop_once_the_window_is_closed(qtbot, make_window):
    from explorer.gui.window.app import _Startup
    window = make_window(defer=True)
    startup = _Startup(window, None, 0.0)
    ran = []
    startup._run_steps([lambda: ran.append(1), window.close, lambda: ran.append(3)])
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5_000)
    run_posted_events()  # the next step's turn of the event loop (a zero-time timer) comes
    assert ran == [1]
