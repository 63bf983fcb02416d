"""Words, not pieces, and a head drawn as lines, on the real window: the heads grid's switches.

The word grouping is checked against an independent numpy grouping (a word's key pieces summed,
its query pieces averaged) on the groups core.insight finds; the grid's labels, its CSV export and
the overview's tiles follow the switch; the lines view draws n² lines whose opacity is the weight,
hovering a token keeps its n lines, and Save PNG writes the drawing."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage

from explorer.core.insight import word_groups
from explorer.gui.plotting.token_ticks import display_token

from numeric import assert_close
from test_insight_views import SETTLE_MS, choose, needs

TEXT = "the unbelievable tokenization of 학교에"   # MiniLM: token ##ization, 학교에 in seven jamo pieces
WORDS = ("[CLS]", "the", "unbelievable", "tokenization", "of", "학교에", "[SEP]")


def numpy_words(attentions: np.ndarray, groups) -> np.ndarray:
    """(..., n, n) -> (..., m, m): mean over a word's query pieces of the sum over its key pieces."""
    rows = np.stack([attentions[..., list(g), :].astype(np.float64).mean(axis=-2) for g in groups], axis=-2)
    return np.stack([rows[..., list(g)].sum(axis=-1) for g in groups], axis=-1)


def words_on(qtbot, window, on: bool = True) -> None:
    window.words_switch.buttons[on].click()
    qtbot.waitUntil(lambda: window.grid_switches.is_idle() and window.grid_switches.words == on
                    and window.heads_grid.shown_result() is window.shown.picture, timeout=SETTLE_MS)


def tick_texts(axis) -> set[str]:
    return {text for level in axis._tickLevels or [] for _pos, text in level}


@pytest.fixture
def minilm_window(qtbot, make_window):
    needs("minilm-l6")
    window = make_window()
    choose(qtbot, window, "minilm-l6", TEXT)
    window.learned.set_layer(2)
    return window


def test_words_on_the_heads_grid_its_labels_and_its_csv(qtbot, minilm_window):
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import export_from_window
    window = minilm_window
    a = window.learned.analysis
    groups = word_groups(list(a.pieces)).groups
    grid = window.heads_grid
    assert grid.shown_result().tokens == a.labels  # pieces first
    words_on(qtbot, window)
    picture = grid.shown_result()
    assert picture.tokens == WORDS
    expected = numpy_words(a.attentions[2], groups)  # (12, 7, 7)
    for head in (0, 5, 11):
        assert_close(grid.head_image(head), expected[head], dtype="float32", reduction=len(a.labels))
    assert_close(picture.weights.sum(axis=-1), np.ones((12, 7)), dtype="float32", reduction=len(a.labels))
    for axis, chars in (("bottom", 7), ("left", 10)):  # the words, shortened by the one tick rule
        assert tick_texts(grid.panel(0).plot.getAxis(axis)) == {display_token(w, chars) for w in WORDS}
    name, data = export_from_window(window, FigureSpec("heads"), ExportOptions(fmt="csv"))
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert name == "heads_minilm-l6_layer2.csv" and len(rows) == 12 * 7 * 7
    assert [r["key_token"] for r in rows[:7]] == list(WORDS)
    np.testing.assert_array_equal(np.array([float(r["weight"]) for r in rows]).reshape(12, 7, 7), picture.weights)
    _name, png = export_from_window(window, FigureSpec("head", 3), ExportOptions(fmt="png"))
    assert png.startswith(b"\x89PNG")
    window.learned.set_layer(4)  # another layer: grouped in the background too
    qtbot.waitUntil(lambda: grid.shown_result().layer == 4 and grid.shown_result().tokens == WORDS, timeout=SETTLE_MS)
    assert_close(grid.head_image(1), numpy_words(a.attentions[4], groups)[1], dtype="float32", reduction=14)
    words_on(qtbot, window, False)
    assert grid.shown_result().tokens == a.labels
    np.testing.assert_array_equal(grid.head_image(1), a.attentions[4, 1])


def test_words_on_the_overview(qtbot, minilm_window):
    from explorer.gui.learned.thumbnails import compose, lookup_table
    from explorer.gui.plotting.colormaps import get_colormap
    window = minilm_window
    window.tabs.setCurrentWidget(window.model_overview)
    a = window.learned.analysis
    canvas = window.model_overview.canvas
    lut = lookup_table(get_colormap(window.state.view.colormap))
    np.testing.assert_array_equal(canvas.image_array(), compose(a.attentions, canvas.layout_, lut, False))
    switch = window.model_overview.layout().itemAt(1).widget()  # the overview's own words switch
    switch.buttons[True].click()
    assert window.words_switch.buttons[True].isChecked()  # one field, both switches
    qtbot.waitUntil(lambda: window.grid_switches.is_idle() and canvas.image_array().shape is not None
                    and not np.array_equal(canvas.image_array(), compose(a.attentions, canvas.layout_, lut, False)),
                    timeout=SETTLE_MS)
    grouped = numpy_words(a.attentions, word_groups(list(a.pieces)).groups).astype(np.float32)
    drawn, expected = canvas.image_array(), compose(grouped, canvas.layout_, lut, False)
    # the same colour indices up to one level where a value sits on a rounding edge (float32 vs float64)
    assert np.abs(drawn.astype(int) - expected.astype(int)).max() <= 8 and (drawn != expected).mean() < 0.01


def test_the_course_models_tokens_are_words_already(qtbot, make_window):
    window = make_window()
    window.install_learned()
    before = window.heads_grid.shown_result()
    window.words_switch.buttons[True].click()
    assert window.grid_switches.words and window.heads_grid.shown_result() is before


def test_a_head_as_lines_opacity_is_weight_and_hover_isolates(qtbot, minilm_window, tmp_path, monkeypatch):
    window = minilm_window
    window.set_focus_head(3)
    assert window.lines_switch.isEnabled()
    window.lines_switch.buttons[True].click()
    lines = window.head_lines
    qtbot.waitUntil(lambda: lines.isVisible() and not window.heads_grid.graphics_view().isVisible(), timeout=SETTLE_MS)
    canvas = lines.canvas
    weights = window.shown.picture.weights[3].astype(np.float64)  # (n, n)
    n = weights.shape[0]
    canvas.repaint()
    assert len(canvas.drawn) == n * n
    alpha = np.zeros((n, n))
    for i, j, a in canvas.drawn:
        alpha[i, j] = a
    np.testing.assert_array_equal(alpha, np.rint(np.clip(weights, 0, 1) * 255) / 255)  # 8-bit opacity
    # hover the third query token (left column): only its n lines
    y = int(8 + 2.5 * (canvas.height() - 16) / n)
    qtbot.mouseMove(canvas, QPoint(12, y))
    qtbot.waitUntil(lambda: canvas.isolated == ("query", 2), timeout=SETTLE_MS)
    canvas.repaint()
    assert len(canvas.drawn) == n and {i for i, _j, _a in canvas.drawn} == {2}
    assert lines.hover.text().startswith(f"{window.shown.picture.tokens[2]} (query 2) attends most to")
    # Save PNG: twice the canvas' size, through the safe writer
    target = tmp_path / "lines.png"
    monkeypatch.setattr("explorer.gui.insight.saving.QFileDialog.getSaveFileName",
                        lambda *args, **kwargs: (str(target), "PNG (*.png)"))
    lines.save.click()
    image = QImage(str(target))
    assert lines.save.last_saved == target and image.width() == 2 * canvas.width()
    # words: the lines are the words' (m² of them)
    words_on(qtbot, window)
    qtbot.waitUntil(lambda: canvas.tokens == WORDS, timeout=SETTLE_MS)
    canvas.isolate(None)
    canvas.repaint()
    assert len(canvas.drawn) == len(WORDS) ** 2
    # all heads again: the heatmaps come back
    window.set_focus_head(None)
    qtbot.waitUntil(lambda: window.heads_grid.graphics_view().isVisible() and not lines.isVisible(),
                    timeout=SETTLE_MS)
    assert not window.lines_switch.isEnabled()
