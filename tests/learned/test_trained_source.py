"""The Train tab's model as a model source, on the real window (issue 13): trained a few steps
or loaded from a file, it is drawn by the heads grid and the overview exactly as the core model's
attention, pruning a head changes its loss, and Generate steps it with its real KV cache (the KV tab
does too: test_trained_kv.py)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

pytest.importorskip("torch")

from explorer.app.models.learned import TRAINED, trained_spec  # noqa: E402
from explorer.core.training import Trainer, probe_tokens  # noqa: E402
from explorer.core.training.source import run  # noqa: E402
from explorer.gui.learned.thumbnails import lookup_table  # noqa: E402
from explorer.gui.plotting.colormaps import get_colormap  # noqa: E402

from model_rounding import through_layers  # noqa: E402
from numeric import assert_close, close  # noqa: E402
from trained_support import (SMALL, WAIT_MS, choose, no_trained_model, settle, train_steps,  # noqa: E402,F401
                             window)


def choose_trained(qtbot, window):
    choose(qtbot, window, TRAINED)
    assert window.learned.analysis is not None and window.learned.analysis.spec.name == TRAINED


def test_the_trained_item_is_disabled_until_a_model_exists(window, qtbot):
    combo = window.model_source.combo
    index = combo.findData(TRAINED)
    assert not combo.model().item(index).isEnabled()
    assert "Train tab" in combo.itemData(index, Qt.ItemDataRole.ToolTipRole)
    messages = []
    window.learned.error.connect(messages.append)
    assert not window.learned.set_source(TRAINED)
    assert messages == ["no trained model yet: train or load one in the Train tab"]
    train_steps(qtbot, window)
    assert combo.model().item(index).isEnabled()


def test_heads_grid_and_overview_show_the_core_models_attention_on_the_probe(window, qtbot):
    trainer = train_steps(qtbot, window)
    choose_trained(qtbot, window)
    a = window.learned.analysis
    assert a.ids == tuple(probe_tokens(SMALL.vocab, SMALL.seq_len))  # not integers: the probe
    expected = trainer.probe_attention()  # (layers, heads, T, T) from the trainer's own model
    assert_close(a.attentions, expected, reduction=through_layers(SMALL.n_layers, SMALL.d_model, len(a.ids)))
    assert window.model_source.info.text().startswith("decoder · 2 layers × 2 heads · d_model 16")
    grid = window.heads_grid
    assert grid.visible_heads() == [0, 1]
    np.testing.assert_array_equal(grid.head_image(1), a.attentions[0, 1])
    window.model_source.layer_slider.setValue(1)
    np.testing.assert_array_equal(grid.head_image(0), a.attentions[1, 0])
    window.tabs.setCurrentWidget(window.model_overview)
    canvas = window.model_overview.canvas
    qtbot.waitUntil(lambda: canvas.layout_ is not None and canvas.layout_.tile > 6)
    lay = canvas.layout_
    lut = lookup_table(get_colormap(window.state.view.colormap))
    x, y = lay.origin(1, 1)  # the tile's first cell is A[0, 0] of layer 1, head 1
    colour = lut[int(np.clip(a.attentions[1, 1, 0, 0] * 255 + 0.5, 0, 255))]
    np.testing.assert_array_equal(canvas.image_array()[y, x - lay.left], colour)


def test_integer_text_is_read_as_tokens_and_a_bad_token_is_one_message(window, qtbot):
    trainer = train_steps(qtbot, window)
    choose_trained(qtbot, window)
    window.learned.set_text("3 1 4 1 5 9 2 6")
    settle(qtbot, window)
    a = window.learned.analysis
    assert a.labels == ("3", "1", "4", "1", "5", "9", "2", "6")
    assert_close(a.attentions, run(trainer.model, list(a.ids))["attentions"],
                 reduction=through_layers(SMALL.n_layers, SMALL.d_model, len(a.ids)))
    messages = []
    window.learned.error.connect(messages.append)
    window.learned.set_text(f"1 2 {SMALL.vocab}")
    settle(qtbot, window)
    assert messages == [f"the trained model's tokens are 0..{SMALL.vocab - 1}, not {SMALL.vocab}"]
    assert window.learned.analysis is a  # the last good picture stays


def test_pruning_a_head_of_the_trained_model_changes_its_loss(window, qtbot):
    trainer = train_steps(qtbot, window, n=40)
    choose_trained(qtbot, window)
    overview = window.model_overview
    window.tabs.setCurrentWidget(overview)
    canvas = overview.canvas
    qtbot.waitUntil(lambda: canvas.layout_ is not None)
    x, y = canvas.layout_.origin(1, 0)
    qtbot.mouseClick(canvas, Qt.MouseButton.RightButton, pos=QPoint(x + 2, y + 2))
    assert window.learned.pruned == {(1, 0)}
    settle(qtbot, window)
    effect = window.learned.effect
    ids = list(window.learned.analysis.ids)  # more than a loss's rounding: the error of its logits
    rule = {"dtype": "float32", "reduction": through_layers(SMALL.n_layers, SMALL.d_model, len(ids))
            + SMALL.d_model + SMALL.vocab, "scale": float(np.abs(_logits(trainer.model, ids)).max())}
    assert effect is not None and not close(effect["loss_pruned"], effect["loss"], **rule)
    assert overview.effect.text().startswith("1 head off (L1H0): loss ")


def test_a_loaded_model_file_becomes_the_source(window, qtbot, tmp_path):
    pytest.importorskip("safetensors")
    trainer = Trainer(SMALL)
    trainer.step(10)
    path = trainer.save(tmp_path / "tiny.safetensors")
    window.train_view.session.load(path)
    qtbot.waitUntil(lambda: trained_spec() is not None, timeout=WAIT_MS)
    choose_trained(qtbot, window)
    a = window.learned.analysis
    assert_close(a.attentions, trainer.probe_attention(),
                 reduction=through_layers(SMALL.n_layers, SMALL.d_model, len(a.ids)))


def test_generate_steps_the_trained_model_with_its_real_kv_cache(window, qtbot):
    trainer = train_steps(qtbot, window)
    choose_trained(qtbot, window)
    window.learned.set_text("5 6 7 8 5 6")
    settle(qtbot, window)
    view = window.generation_view
    window.tabs.setCurrentWidget(view)
    assert view.button.isEnabled()
    view.count.setValue(3)
    qtbot.mouseClick(view.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.learned.generation is not None, timeout=WAIT_MS)
    run_ = window.learned.generation
    assert run_.prompt_tokens == 6 and len(run_.records) == 9 and len(run_.generated) == 3
    fed = [int(r.token) for r in run_.records]
    # each cached step = the full pass (max_diff: of the logits, the larger, and the rows)
    assert_close([r.max_diff for r in run_.records], 0.0, dtype="float32",
                 reduction=through_layers(SMALL.n_layers, SMALL.d_model, len(fed)) + SMALL.d_model,
                 scale=float(np.abs(_logits(trainer.model, fed)).max()))
    assert fed[:6] == [5, 6, 7, 8, 5, 6] and run_.keys.shape == (2, 2, 9, 8)  # (layers, heads, pos, d_head)
    ids = fed[:6]
    # greedy: each generated token is the argmax of the trainer's own model over the tokens so far
    greedy = [int(np.argmax(_next_probs(trainer.model, ids + [int(t) for t in run_.generated[:i]])))
              for i in range(3)]
    assert [int(t) for t in run_.generated] == greedy
    chosen = " ".join(run_.generated)
    assert view.text.text().startswith(f"5 6 7 8 5 6 <b style='color:#d62728'>{chosen}</b>")
    last = run_.records[-1]
    assert f"{last.cache_bytes:,} bytes = 2 × 2 layers × 2 heads × 9 × 8 × 4 B" in view.cache.text()
    assert last.cache_bytes == 2 * 2 * 2 * 9 * 8 * 4
    window.model_source.layer_slider.setValue(1)
    view.kv_head.setValue(1)
    view.slider.setValue(4)
    np.testing.assert_array_equal(view.cache_image("K"), run_.keys[1, 1, :5])
    assert view.which.text() == "the real cache of layer 1, head 1, positions 0–4"


def _logits(model, ids):
    """The model's logits over `ids`, the whole sequence at once: (n, V)."""
    import torch
    with torch.inference_mode():
        logits, _ = model(torch.as_tensor([ids]))  # (1, n, V)
    return logits[0].numpy()


def _next_probs(model, ids):
    return _logits(model, ids)[-1]


def test_generate_says_what_it_needs_for_the_random_model(window, qtbot):
    messages = []
    window.learned.error.connect(messages.append)
    assert not window.learned.generate(3)
    assert messages == ["generation needs a decoder: choose smollm2-135m or the trained model as the model source"]
