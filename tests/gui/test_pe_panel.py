"""PEPanel: what its items hold after set_result, read back and compared with the core."""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from explorer.core import AttentionConfig, forward, get_preset, similarity, sinusoidal_table
from explorer.gui.pe.curves import dim_label
from explorer.gui.pe.inputs import OFF_NOTE
from explorer.gui.pe.panel import PEPanel, default_dims, parse_dims
from explorer.gui.plotting.fonts import LATIN_FAMILY
from numeric import assert_close

CONFIGS = [
    get_preset("course-lab3").config.replace(positional=True),
    AttentionConfig(tokens=tuple(f"w{i}" for i in range(12)), d_model=64, n_heads=4, seed=3),
    AttentionConfig(tokens=tuple("abcdefg"), d_model=7, n_heads=1, seed=9, positional=True),
    AttentionConfig(tokens=tuple(f"w{i}" for i in range(50)), d_model=130, n_heads=2,
                    positional=True, dtype="float32"),
]


@pytest.fixture
def panel(qtbot):
    widget = PEPanel()
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()  # a hidden panel keeps the result and draws it when shown
    return widget


def check_matches(panel, result, positions):
    n, d = result.config.n_tokens, result.config.d_model
    table = sinusoidal_table(positions, d)
    np.testing.assert_array_equal(panel.table_item.image, table)
    # PE(i) · PE(j): sums of d terms, each |PE| <= 1 (the default scale, max |sim| = d / 2)
    assert_close(panel.similarity_item.image, similarity(table), reduction=d)
    assert set(panel.curves) == set(panel.dims) and panel.dims
    for dim, curve in panel.curves.items():
        x, y = curve.getData()
        np.testing.assert_array_equal(x, np.arange(positions))
        np.testing.assert_array_equal(y, table[:, dim])
    np.testing.assert_array_equal(panel.inputs.x_item.image, result.x)
    np.testing.assert_array_equal(panel.inputs.sum_item.image, result.x_in)
    if result.config.positional:
        np.testing.assert_array_equal(panel.inputs.pe_item.image, result.pe)
    assert panel.inputs.x_item.image.shape == (n, d)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"n{c.n_tokens}-d{c.d_model}")
def test_items_hold_the_core_arrays(panel, config):
    result = forward(config)
    panel.set_result(result)
    assert panel.positions_spin.value() == config.n_tokens
    assert panel.dims == default_dims(config.d_model)
    check_matches(panel, result, config.n_tokens)


def test_panel_follows_successive_results(panel):
    for config in CONFIGS + CONFIGS[::-1]:
        result = forward(config)
        panel.set_result(result)
        check_matches(panel, result, config.n_tokens)


def test_positional_off_shows_x_as_is_and_says_so(panel):
    on = forward(CONFIGS[0])
    off = forward(CONFIGS[0].replace(positional=False))
    panel.set_result(on)
    assert panel.inputs.note.isHidden() and panel.inputs.pe_added
    panel.set_result(off)
    assert not panel.inputs.note.isHidden()
    assert panel.inputs.note.text() == OFF_NOTE
    assert not panel.inputs.pe_added and panel.inputs.pe_item.opacity() < 1
    # PE is still shown (greyed, not added); what is projected is X itself.
    np.testing.assert_array_equal(panel.inputs.pe_item.image, sinusoidal_table(4, 8))
    np.testing.assert_array_equal(panel.inputs.sum_item.image, off.x)
    assert "not added" in panel.inputs.pe_plot.titleLabel.text
    panel.set_result(on)
    assert panel.inputs.note.isHidden() and panel.inputs.pe_item.opacity() == 1


def test_position_count_changes_the_table_shape(panel):
    result = forward(CONFIGS[0])
    panel.set_result(result)
    for count in (1, 50, 1024, 4):
        panel.set_positions(count)
        assert panel.table_item.image.shape == (count, 8)
        assert panel.similarity_item.image.shape == (count, count)
        check_matches(panel, result, count)
    panel.set_positions(100)
    panel.set_result(forward(CONFIGS[0].replace(seed=5)))  # same length: the user's count stays
    assert panel.table_item.image.shape == (100, 8)
    panel.set_result(forward(CONFIGS[1]))  # a new sentence length: follow it
    assert panel.positions_spin.value() == 12
    assert panel.table_item.image.shape == (12, 64)


def test_choosing_dims(panel):
    panel.set_result(forward(CONFIGS[1]))
    panel.set_dims([5, 0, 5, 999])
    assert panel.dims == [5, 0] and set(panel.curves) == {5, 0}
    panel.toggle_dim(5)
    assert panel.dims == [0]
    panel.toggle_dim(9)
    assert panel.dims == [0, 9]
    assert panel.dims_edit.text() == "0, 9"
    panel.dims_edit.setText("3 , 2, x, 70")
    panel.dims_edit.editingFinished.emit()
    assert panel.dims == [3, 2]
    labels = [label.text for _, label in panel.curves_view.legend.items]
    assert labels == [dim_label(3), dim_label(2)] == ["dim 3 cos (i=1)", "dim 2 sin (i=1)"]
    check_matches(panel, forward(CONFIGS[1]), 12)


def test_parse_dims():
    assert parse_dims("0, 1 2,,3", 8) == [0, 1, 2, 3]
    assert parse_dims("-1 8 7 7", 8) == [7]
    assert parse_dims("a b", 8) == []


def test_a_hidden_panel_draws_when_shown(qtbot):
    panel = PEPanel()
    qtbot.addWidget(panel)
    result = forward(CONFIGS[1])
    panel.set_result(result)
    assert panel.table_item.image is None  # nothing drawn while hidden
    panel.show()
    check_matches(panel, result, 12)
    panel.hide()
    panel.set_result(forward(CONFIGS[0]))
    panel.show()
    check_matches(panel, forward(CONFIGS[0]), 4)


def test_a_hidden_undrawn_panel_takes_every_call(qtbot):
    panel = PEPanel()
    qtbot.addWidget(panel)
    panel.set_result(forward(CONFIGS[1]))
    panel.set_presentation(True)
    panel.set_positions(10)
    panel.set_dims([1, 2])
    panel.toggle_dim(3)
    panel.show()
    check_matches(panel, forward(CONFIGS[1]), 12)


def test_the_position_spin_box_redraws(panel, qtbot):
    panel.set_result(forward(CONFIGS[0]))
    panel.positions_spin.setValue(30)
    qtbot.waitUntil(lambda: panel.table_item.image.shape == (30, 8), timeout=2000)
    check_matches(panel, forward(CONFIGS[0]), 30)


def test_clicking_a_table_column_toggles_its_curve(panel, qtbot):
    panel.set_result(forward(CONFIGS[0]))
    qtbot.waitExposed(panel)
    view = panel.table_widget.getPlotItem().getViewBox()
    assert 5 not in panel.dims
    scene_pos = view.mapViewToScene(QPointF(5, 1))
    widget_pos = panel.table_widget.mapFromScene(scene_pos)
    qtbot.mouseClick(panel.table_widget.viewport(), Qt.LeftButton, pos=QPoint(widget_pos.x(), widget_pos.y()))
    assert 5 in panel.dims
    qtbot.mouseClick(panel.table_widget.viewport(), Qt.LeftButton, pos=QPoint(widget_pos.x(), widget_pos.y()))
    assert 5 not in panel.dims


def test_presentation_mode_enlarges_text(panel):
    panel.set_result(forward(CONFIGS[0]))
    axis = panel.table_widget.getPlotItem().getAxis("left")
    small = axis.style["tickFont"].pointSizeF()
    panel.set_presentation(True)
    assert axis.style["tickFont"].pointSizeF() > small
    check_matches(panel, forward(CONFIGS[0]), 4)
    panel.set_presentation(False)
    assert axis.style["tickFont"].pointSizeF() == small


def test_hangul_labels_use_the_bundled_font(panel):
    panel.set_result(forward(CONFIGS[0]))
    axis = panel.inputs.x_plot.getAxis("left")
    assert axis.style["tickFont"].families()[:2] == [LATIN_FAMILY, "NanumGothic"]
    assert [label for _, label in axis._tickLevels[0]] == ["나는", "학교에", "버스로", "갔다"]
