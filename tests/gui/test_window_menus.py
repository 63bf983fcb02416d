"""Presets (Lab 3 numbers on screen), presentation mode, shortcuts, KV tab wiring, settings."""

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest

from explorer.core import PRESETS, AttentionConfig
from explorer.gui.plotting.fonts import screen_scale
from explorer.gui.window.main_window import NORMAL_PT, PRESENTATION_PT
from explorer.app.settings import load_settings, save_settings
from explorer.gui.window.shortcuts import NOT_WINDOW_ACTIONS, SHORTCUTS, ShortcutsDialog, keys_text
from window_support import assert_window_shows_state, settle

# The course's printed Lab 3 tables (/work/shared/course-lab3.md), rows = queries.
COURSE_HEAD_0 = np.array([[0.13, 0.04, 0.57, 0.26],
                          [0.12, 0.69, 0.01, 0.18],
                          [0.16, 0.71, 0.02, 0.11],
                          [0.08, 0.80, 0.01, 0.11]])
COURSE_HEAD_1 = np.array([[0.05, 0.89, 0.03, 0.03],
                          [0.06, 0.49, 0.10, 0.34],
                          [0.56, 0.01, 0.34, 0.10],
                          [0.22, 0.09, 0.46, 0.22]])


def trigger_preset(window, name):
    action = window.presets_menu.findChild(type(window.presets_menu.actions()[0]), f"preset_{name}")
    assert action is not None and action in window.presets_menu.actions()
    action.trigger()


def test_lab3_preset_puts_the_course_numbers_on_screen(qtbot, make_window):
    window = make_window(AttentionConfig(tokens=("a", "b"), d_model=64, n_heads=8, seed=5,
                                         causal=True))
    trigger_preset(window, "course-lab3")
    settle(qtbot, window)
    config = window.state.config
    assert (config.tokens, config.d_model, config.n_heads, config.seed, config.scaled) == \
        (("나는", "학교에", "버스로", "갔다"), 8, 2, 1, True)
    grid = window.heads_grid
    assert grid.visible_heads() == [0, 1]
    np.testing.assert_array_equal(np.round(grid.head_image(0), 2), COURSE_HEAD_0)
    np.testing.assert_array_equal(np.round(grid.head_image(1), 2), COURSE_HEAD_1)
    assert window.info_strip.params_label.text() == "parameters 256"
    assert "Course Lab 3" in window.statusBar().currentMessage()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_applies(qtbot, make_window, name):
    window = make_window()
    trigger_preset(window, name)
    settle(qtbot, window)
    assert window.state.config == PRESETS[name].config
    assert_window_shows_state(window)
    assert window.controls.model_size.d_model_value.text() == str(PRESETS[name].config.d_model)


def test_presentation_mode_enlarges_the_whole_window(qtbot, make_window):
    window = make_window()
    calls = []
    probe = QLabel("probe")
    probe.set_presentation = calls.append
    window.add_view("Probe", probe)
    assert window.controls.font().pointSizeF() == NORMAL_PT
    QTest.keyClick(window, Qt.Key.Key_F5)
    assert window.state.view.presentation
    assert window.shortcut_actions["presentation"].isChecked()
    room = window.screen_size()  # presentation text keeps its share of the screen
    big = PRESENTATION_PT * screen_scale(room.width(), room.height())
    assert big > PRESENTATION_PT  # the tests' screen is 1920 × 1080
    assert window.font().pointSizeF() == big
    assert window.controls.sentence.edit.font().pointSizeF() == big
    assert window.controls.chips.chips[0].font().pointSizeF() == big
    assert window.controls.model_size.d_head_label.font().pointSizeF() == big
    qtbot.waitUntil(lambda: window.controls.minimumWidth()
                    >= window.controls.widget().minimumSizeHint().width())
    assert window.file_menu.font().pointSizeF() == big
    assert calls == [True]
    window.shortcut_actions["presentation"].trigger()  # Ctrl+P / F5 again: back
    assert not window.state.view.presentation
    assert window.controls.font().pointSizeF() == NORMAL_PT
    assert calls == [True, False]


def test_shortcut_keys_reach_the_actions(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=16, n_heads=2, seed=10))
    window.activateWindow()
    window.heads_grid.setFocus()
    QTest.keyClick(window.heads_grid, Qt.Key.Key_H)
    assert window.state.config.n_heads == 4
    QTest.keyClick(window.heads_grid, Qt.Key.Key_H, Qt.KeyboardModifier.ShiftModifier)
    assert window.state.config.n_heads == 2
    QTest.keyClick(window.heads_grid, Qt.Key.Key_D)
    assert window.state.config.d_model == 24
    QTest.keyClick(window.heads_grid, Qt.Key.Key_S)
    assert window.state.config.seed == 11
    QTest.keyClick(window.heads_grid, Qt.Key.Key_C)
    assert window.state.config.causal
    QTest.keyClick(window.heads_grid, Qt.Key.Key_Slash)
    assert not window.state.config.scaled


def test_letters_typed_in_the_sentence_are_text_not_shortcuts(qtbot, make_window):
    window = make_window()
    edit = window.controls.sentence.edit
    edit.setFocus()
    edit.clear()
    QTest.keyClicks(edit, "hdsc")
    assert edit.text() == "hdsc"
    assert window.state.config.n_heads == 2 and not window.state.config.causal


def test_model_shortcut_actions(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=8, n_heads=2, seed=0))
    act = window.shortcut_actions
    act["heads_up"].trigger()
    assert window.state.config.n_heads == 4
    act["heads_up"].trigger()
    act["heads_up"].trigger()  # already at the largest divisor (8): stays
    assert window.state.config.n_heads == 8
    act["d_model_down"].trigger()  # 6 does not divide by 8: heads drop to 6
    assert (window.state.config.d_model, window.state.config.n_heads) == (6, 6)
    act["seed_down"].trigger()
    assert window.state.config.seed == 0  # clamped at 0
    act["seed_up"].trigger()
    assert window.state.config.seed == 1
    act["random_seed"].trigger()
    assert window.state.config.seed != 1
    for name, field in (("toggle_scaling", "scaled"), ("toggle_causal", "causal"),
                        ("toggle_positional", "positional")):
        before = getattr(window.state.config, field)
        act[name].trigger()
        assert getattr(window.state.config, field) is (not before)
        assert window.controls.switches.boxes[field].isChecked() is (not before)
    settle(qtbot, window)
    assert_window_shows_state(window)


def test_one_table_drives_actions_and_dialog(make_window, qtbot):
    window = make_window()
    for shortcut in SHORTCUTS:
        if shortcut.name in NOT_WINDOW_ACTIONS:
            continue
        action = window.shortcut_actions[shortcut.name]
        assert action.shortcuts() == [QKeySequence(k) for k in shortcut.keys]
    file_keys = {a.shortcut().toString() for a in window.file_menu.actions()}
    assert {"Ctrl+Shift+E", "Ctrl+Shift+C"} <= file_keys  # export_dialog reads the same table
    dialog = ShortcutsDialog(window)
    qtbot.addWidget(dialog)
    cells = {dialog.table.item(r, 1).text(): dialog.table.item(r, 0).text()
             for r in range(dialog.table.rowCount())}
    for shortcut in SHORTCUTS:
        if not shortcut.name.startswith("focus_head_"):
            assert cells[shortcut.text] == keys_text(shortcut)
    assert "F5 or Ctrl+P" in cells.values()
    window.shortcut_actions["shortcuts_help"].trigger()


def test_menus_exist(make_window):
    window = make_window()
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles[:6] == ["File", "View", "Presets", "Topics", "Lessons", "Help"]
    assert window.shortcut_actions["quit"] in window.file_menu.actions()


def test_kv_tab_turns_the_kv_trace_on_and_off(qtbot, make_window):
    window = make_window()
    assert not window.state.kv_enabled
    with qtbot.waitSignal(window.state.kv_trace_changed, timeout=20_000):
        window.tabs.setCurrentWidget(window.kv_panel)
    assert window.state.kv_enabled
    assert window.state.kv_trace.config.tokens == window.state.config.tokens
    window.tabs.setCurrentWidget(window.heads_grid)
    assert not window.state.kv_enabled


def test_pe_tab_present_when_built(make_window):
    window = make_window()
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert "Positional encoding" in titles


def test_settings_snapshot_round_trip(qtbot, make_window):
    window = make_window()
    window.state.update(seed=42, causal=True)
    window.state.view.colormap = "plasma"
    window.state.view.show_values = "on"
    save_settings(window.settings_snapshot())
    loaded, note = load_settings()
    assert note is None
    assert loaded.config == window.state.config
    assert (loaded.colormap, loaded.show_values, loaded.presentation) == ("plasma", "on", False)
    assert loaded.geometry
