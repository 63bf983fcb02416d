"""The KV-cache tab driven by the real decoder (SmolLM2's cache, layer by layer) or saying why not."""

import numpy as np
from PySide6.QtCore import Qt

from explorer.app.models.learned_kv import LearnedKVTrace, check_passed, layer_trace
from explorer.app.models.learned_state import RANDOM
from explorer.core.learned.analysis import tokenize
from explorer.core.learned.generation import run_generation

from model_rounding import llama_logits_size, logits_reduction, model_reduction
from numeric import assert_close
from test_learned_gui import SETTLE_MS, choose, type_text


def test_kept_steps_are_the_full_passes_rows_and_the_check_has_a_tolerance(smollm2):
    import torch
    from explorer.core.learned import llama
    tokens = tokenize(smollm2, "One, two")
    records, cache, new = run_generation(smollm2, tokens, generate=2, check=True, keep_steps=True)
    ids = list(tokens.ids) + list(new.ids)
    with torch.inference_mode():
        full = llama.forward(smollm2.weights, ids)
    spec = smollm2.spec
    for t, r in enumerate(records):
        assert r.rows.shape == (spec.layers, spec.heads, t + 1)
        assert r.q.shape == (spec.layers, spec.heads, spec.d_head) and r.out.shape == (spec.layers, spec.d_model)
        assert_close(r.rows, full["attentions"][:, :, t, :t + 1].numpy(),
                     reduction=model_reduction(smollm2, t + 1))
        assert 0 <= r.max_diff <= r.tolerance < 1e-2  # the app's own check passes, and is not vacuous
    assert cache.keys[0].shape == (spec.kv_heads, len(ids), spec.d_head)


def _window_on_kv(make_window, qtbot, text="One, two, three"):
    window = make_window()
    choose(qtbot, window, "smollm2-135m")
    type_text(qtbot, window, text)
    window.generation_view.count.setValue(2)
    window.tabs.setCurrentWidget(window.kv_panel)  # showing the tab steps the decoder
    qtbot.waitUntil(lambda: isinstance(window.kv_panel.trace, LearnedKVTrace), timeout=SETTLE_MS)
    return window


def test_the_kv_tab_steps_through_smollm2s_real_cache(make_window, qtbot, smollm2):
    window = _window_on_kv(make_window, qtbot)
    run, panel = window.learned.generation, window.kv_panel
    n = window.learned.analysis.n_tokens
    assert len(run.records) == n + 2 and panel.step_count == n + 2
    assert not panel.empty_label.isVisible() and panel.cache_view.isVisible()
    view = panel.cache_view
    panel.set_step(3)
    assert view.filled_rows() == 4
    layer = window.learned.layer
    np.testing.assert_array_equal(view.k_item.image, np.concatenate(list(run.keys[layer]), axis=1))
    np.testing.assert_array_equal(view.w_item.image, run.records[3].rows[layer])  # (9 heads, 4 keys)
    assert view.w_item.image.shape == (9, 4)
    assert "grouped-query attention (9 query heads share 3 K/V heads) saves 67%" in panel.bytes_label.text()
    assert f"{run.records[3].cache_bytes:,} bytes" in panel.bytes_label.text()
    assert "30 layers" in panel.step_flops_label.text()
    assert run.records[3].top5[0][0] in panel.tokens_label.text()
    assert panel.check_label.text().endswith("✓")
    panel.set_head_choice(5)  # query head 4 reads K/V head 1
    np.testing.assert_array_equal(view.k_item.image, run.keys[layer, 1])
    np.testing.assert_array_equal(view.v_item.image, run.values[layer, 1])
    assert "K/V head 1" in view.k_plot.titleLabel.text
    window.model_source.layer_slider.setValue(9)  # another layer of the same run: same step
    assert panel.trace.config.layer == 9 and panel.step == 3
    np.testing.assert_array_equal(view.k_item.image, run.keys[9, 1])
    np.testing.assert_array_equal(view.q_item.image, run.records[3].q[9, 4][None, :])


def test_a_wrong_cache_fails_the_check(smollm2):
    """The check can fail: a step whose difference exceeds its tolerance shows ✗."""
    from dataclasses import replace
    records, _, _ = run_generation(smollm2, tokenize(smollm2, "Hi"), generate=1, check=True, keep_steps=True)
    bad = replace(records[-1], max_diff=records[-1].tolerance * 10)
    from explorer.app.models.learned_generation import GenerationRun
    run = GenerationRun("smollm2-135m", 1, (records[0], bad), (), "", np.zeros((30, 3, 2, 64)),
                        np.zeros((30, 3, 2, 64)), "Hi")
    trace = layer_trace(run, 0)
    assert check_passed(trace.steps[0]) and not check_passed(trace.steps[1])
    assert trace.counter_lines(1)[-1].endswith("✗")


def test_a_new_sentence_steps_the_decoder_again(make_window, qtbot, smollm2):
    window = _window_on_kv(make_window, qtbot, "One, two")
    first = window.learned.generation
    type_text(qtbot, window, "Three")
    qtbot.waitUntil(lambda: window.learned.generation is not first
                    and isinstance(window.kv_panel.trace, LearnedKVTrace), timeout=SETTLE_MS)
    assert window.learned.generation.text == "Three"
    assert window.kv_panel.trace.run is window.learned.generation


def test_an_encoder_says_why_the_kv_tab_does_not_apply_and_random_comes_back(make_window, qtbot, minilm):
    window = make_window()
    window.tabs.setCurrentWidget(window.kv_panel)
    qtbot.waitUntil(lambda: window.kv_panel.trace is not None, timeout=SETTLE_MS)
    random_trace = window.kv_panel.trace
    choose(qtbot, window, "minilm-l6")
    panel = window.kv_panel
    assert panel.trace is None and not panel.empty_label.isHidden()
    assert "minilm-l6 is an encoder" in panel.empty_label.text()
    assert panel.cache_view.isHidden() and panel.controls.isHidden()
    combo = window.model_source.combo
    combo.setCurrentIndex(combo.findData(RANDOM))
    combo.activated.emit(combo.findData(RANDOM))
    qtbot.waitUntil(lambda: panel.trace is not None, timeout=SETTLE_MS)
    assert panel.trace.config == random_trace.config and not panel.cache_view.isHidden()


def test_the_real_cache_is_exported_as_png_svg_and_csv(make_window, qtbot, smollm2):
    import csv
    import io
    from PySide6.QtGui import QImage
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.export_dialog import ExportDialog
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import available_specs, current_spec, export_from_window
    window = _window_on_kv(make_window, qtbot)
    panel, run = window.kv_panel, window.learned.generation
    panel.set_step(2)
    layer = window.learned.layer
    specs = dict(available_specs(window))
    assert specs[f"KV cache at step 2 (layer {layer})"] == FigureSpec("kv", 2)
    assert "Positional-encoding panel" not in specs
    assert current_spec(window) == FigureSpec("kv", 2)
    name, data = export_from_window(window, FigureSpec("kv", 2), ExportOptions(fmt="csv"))
    assert name == f"kv_step2_smollm2-135m_layer{layer}.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert len(rows) == 9 * 3  # 9 query heads × 3 cached keys
    assert float(rows[4]["weight"]) == float(run.records[2].rows[layer][1, 1])
    name, data = export_from_window(window, FigureSpec("kv", 2), ExportOptions(fmt="png", title=True))
    image = QImage.fromData(data)
    assert name.endswith(".png") and image.width() > 600 and image.height() > 300
    name, data = export_from_window(window, FigureSpec("kv", 2), ExportOptions(fmt="svg"))
    assert data.startswith(b"<?xml") and b"KV cache, step 2" in data
    dialog = ExportDialog(window)
    qtbot.addWidget(dialog)
    dialog.refresh()
    assert dialog.spec() == FigureSpec("kv", 2) and dialog.name.text() == f"kv_step2_smollm2-135m_layer{layer}.png"
    assert "RoPE" in dialog.message.text()


def test_an_encoder_offers_no_pe_or_kv_figure_and_says_why(make_window, qtbot, minilm):
    from explorer.gui.window.exports.export_dialog import ExportDialog
    from explorer.gui.window.exports.from_window import available_specs
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    kinds = {spec.kind for _label, spec in available_specs(window)}
    assert kinds == {"window", "heads", "head"}
    window.tabs.setCurrentWidget(window.pe_panel)
    dialog = ExportDialog(window)
    qtbot.addWidget(dialog)
    dialog.refresh()
    assert dialog.spec().kind == "window"
    dialog.what.setCurrentIndex(1)  # the heads grid: the note says what is missing
    assert "learned position embeddings" in dialog.message.text()
    assert "an encoder has no KV cache" in dialog.message.text()
    assert dialog.name.text() == "heads_minilm-l6_layer0.png"


def test_one_full_pass_checks_every_step_like_a_pass_per_prefix(smollm2):
    tokens = tokenize(smollm2, "One, two, three")
    per_prefix, _, new = run_generation(smollm2, tokens, generate=3, check=True)
    once, _, new_once = run_generation(smollm2, tokens, generate=3, check=True, one_pass=True)
    assert new_once.ids == new.ids and len(once) == len(per_prefix)
    ids = list(tokens.ids) + list(new.ids)
    rule = {"dtype": "float32", "reduction": logits_reduction(smollm2, len(ids)),
            "scale": llama_logits_size(smollm2, ids)}
    for a, b in zip(per_prefix, once):
        assert b.max_diff <= b.tolerance and a.max_diff <= a.tolerance
        assert_close(a.max_diff, b.max_diff, **rule)  # both are float32 round-off of the same rows
