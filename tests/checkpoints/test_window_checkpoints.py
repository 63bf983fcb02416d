"""An own checkpoint in the real window: Open model folder…, the cache's models listed, the
heads grid equal to transformers' attentions, a load's progress and Cancel, the recent list."""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtWidgets import QFileDialog

from numeric import assert_close

SETTLE_MS = 60_000


def settle(qtbot, window):
    qtbot.waitUntil(lambda: window.learned.is_idle() and window.learned.busy == "", timeout=SETTLE_MS)


def test_open_model_folder_shows_its_heads_like_transformers(make_window, qtbot, monkeypatch,
                                                            tiny_checkpoint, hf_attentions):
    folder = tiny_checkpoint("bert")
    window = make_window()
    settle(qtbot, window)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    window.model_source.open_button.click()
    qtbot.waitUntil(lambda: window.learned.source == str(folder) and window.learned.analysis is not None,
                    timeout=SETTLE_MS)
    settle(qtbot, window)
    analysis = window.learned.analysis
    expected = hf_attentions(folder, list(analysis.ids))  # (layers, heads, n, n)
    picture = window.heads_grid.shown_result()
    assert picture is window.shown.picture and picture.layer == 0
    n, d_model = len(analysis.ids), analysis.spec.d_model
    assert_close(picture.weights, expected[0], dtype="float32", reduction=d_model + 2 * n, scale=50.0)
    assert window.model_source.combo.currentData() == str(folder)
    assert "bert" in window.model_source.combo.currentText()
    assert window.recent_models[0] == str(folder)
    assert window.settings_snapshot().recent_models[0] == str(folder)
    assert not window.controls.model_size.isVisible()  # its sizes, not the course's sliders


def test_a_folder_that_does_not_open_is_one_line_and_nothing_changes(make_window, qtbot, tmp_path):
    window = make_window()
    settle(qtbot, window)
    messages = []
    window.learned.error.connect(messages.append)
    window.learned.open_folder(str(tmp_path))  # an empty folder: no config.json
    settle(qtbot, window)
    assert len(messages) == 1 and "config.json" in messages[0] and "\n" not in messages[0]
    assert window.learned.source == "random" and window.shown.course


def test_a_folder_opened_again_after_its_files_changed_shows_the_new_model(make_window, qtbot, tiny_checkpoint,
                                                                          copy_checkpoint):
    """Open a 2-layer folder, replace its files with a 3-layer model, open it again: the new model
    is analysed and its last layer shown. Before, the same name counted as chosen already: the old
    model's analysis stayed, and layer 2, which the new model's spec allows, would have sliced it
    (IndexError). Listing the recent folders afterwards keeps the model shown and its analysis."""
    import shutil
    folder = copy_checkpoint(tiny_checkpoint("bert"), "model")
    window = make_window()
    settle(qtbot, window)
    window.learned.open_folder(str(folder))
    qtbot.waitUntil(lambda: window.learned.analysis is not None, timeout=SETTLE_MS)
    settle(qtbot, window)
    assert window.learned.analysis.attentions.shape[0] == 2
    shutil.rmtree(folder)
    shutil.copytree(tiny_checkpoint("bert", num_hidden_layers=3), folder)
    window.learned.open_folder(str(folder))
    qtbot.waitUntil(lambda: window.learned.analysis is not None
                    and window.learned.analysis.attentions.shape[0] == 3, timeout=SETTLE_MS)
    settle(qtbot, window)
    slider = window.model_source.layer_slider
    assert slider.maximum() == 2
    slider.setValue(2)
    qtbot.waitUntil(lambda: window.shown.picture is not None and window.shown.picture.layer == 2, timeout=SETTLE_MS)
    assert window.heads_grid.shown_result() is window.shown.picture
    shown = window.learned.analysis
    window.learned.find_cached((str(folder),))  # re-reads the folder as a listed source
    settle(qtbot, window)
    assert window.learned.analysis is shown and window.learned.source == str(folder)


def test_the_cache_and_recent_folders_are_listed(make_window, qtbot, tiny_checkpoint, hf_cache):
    hf_cache(tiny_checkpoint("llama"), "someone/tiny-llama")
    window = make_window()
    settle(qtbot, window)
    combo = window.model_source.combo
    qtbot.waitUntil(lambda: combo.findData("someone/tiny-llama") >= 0, timeout=SETTLE_MS)
    index = combo.findData("someone/tiny-llama")
    assert combo.model().item(index).isEnabled() and "llama" in combo.itemText(index)
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    qtbot.waitUntil(lambda: window.learned.analysis is not None
                    and window.learned.analysis.spec.kind == "decoder", timeout=SETTLE_MS)
    assert window.learned.model.capabilities.generation  # a native decoder: Generate and KV work


def test_a_load_shows_its_progress_and_cancel_goes_back(make_window, qtbot, monkeypatch, tiny_checkpoint):
    import explorer.core.checkpoints.load as load
    folder = tiny_checkpoint("bert", sharded=True)
    release, fractions = threading.Event(), []
    real = load._load

    def slow(ckpt, device, dtype, should_stop, progress):  # report half, then wait for Cancel
        progress(0.5)
        while not release.is_set():
            if should_stop is not None and should_stop():
                from explorer.core.cancel import Cancelled
                raise Cancelled("load")
            release.wait(0.01)
        return real(ckpt, device, dtype, should_stop, progress)

    monkeypatch.setattr(load, "_load", slow)
    window = make_window()
    settle(qtbot, window)
    window.learned.progress_changed.connect(fractions.append)
    window.learned.open_folder(str(folder))
    qtbot.waitUntil(lambda: window.learned.progress == 0.5, timeout=SETTLE_MS)
    bar = window.model_source.busy_bar
    assert bar.maximum() == 1000 and bar.value() == 500 and window.model_source.cancel_button.isVisibleTo(window)
    window.model_source.cancel_button.click()
    settle(qtbot, window)
    release.set()
    assert window.learned.source == "random" and window.shown.course
    assert fractions[0] == 0.5 and fractions[-1] is None
