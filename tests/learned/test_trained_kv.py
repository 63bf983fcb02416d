"""The KV-cache tab on the trained model (issue 13: the trained model is a model source like the
others): choosing "trained (this session)" with the KV tab shown steps its real cache, every step
checked; the pictures are compared with the trainer's own model run over the whole sequence at
once (no cache), not with the cached steps themselves. Switching sources with the tab shown keeps
working, the export offers the figure, and the trained source follows the device switch."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from PySide6.QtCore import Qt

torch = pytest.importorskip("torch")

from explorer.app.models.learned import TRAINED, forget_trained, trained_model  # noqa: E402
from explorer.app.models.learned_kv import LearnedKVTrace  # noqa: E402
from explorer.app.models.learned_state import RANDOM  # noqa: E402
from explorer.core.training import probe_tokens  # noqa: E402

from model_rounding import through_layers  # noqa: E402
from numeric import assert_close  # noqa: E402
from trained_support import (SMALL, WAIT_MS, choose, no_trained_model, settle, train_steps,  # noqa: E402,F401
                             window)


def wait_for_trace(qtbot, window, model):
    qtbot.waitUntil(lambda: isinstance(window.kv_panel.trace, LearnedKVTrace)
                    and window.kv_panel.trace.config.model == model, timeout=WAIT_MS)
    settle(qtbot, window)
    return window.kv_panel.trace


def full_pass(model, ids):
    """The model over the whole sequence at once, no cache (its own batched forward): logits (T, V)
    and per layer its attention (h, T, T), its block's output (T, d) and q, k, v (h, T, d_head) from
    the block's own projection of the input it got. A forward hook reads what each layer saw."""
    seen = []
    hooks = [layer.register_forward_hook(lambda _m, args, out: seen.append((args[0][0], out[0][0], out[1][0])))
             for layer in model.layers]
    try:
        with torch.inference_mode():
            logits, _ = model(torch.as_tensor([ids]))  # (1, T, V)
            layers = []
            for layer, (x, update, attn) in zip(model.layers, seen):  # x, update (T, d); attn (h, T, T)
                t, d = x.shape
                q, k, v = (m.reshape(t, layer.n_heads, -1).transpose(0, 1)  # (h, T, d_head)
                           for m in layer.qkv(x).split(d, dim=-1))
                layers.append({"attn": attn.numpy(), "out": update.numpy(), "q": q.numpy(),
                               "k": k.numpy(), "v": v.numpy()})
    finally:
        for hook in hooks:
            hook.remove()
    return logits[0].numpy(), layers


def test_choosing_the_trained_model_on_the_kv_tab_steps_its_real_cache(window, qtbot):
    trainer = train_steps(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    choose(qtbot, window, TRAINED)  # raised KeyError in the KV wiring before
    trace = wait_for_trace(qtbot, window, TRAINED)
    panel, run = window.kv_panel, window.learned.generation
    probe = probe_tokens(SMALL.vocab, SMALL.seq_len).tolist()  # the default sentence is not integers
    fed = [int(token) for token in trace.config.tokens]
    assert fed[:len(probe)] == probe and run.prompt_tokens == len(probe)
    assert len(fed) == SMALL.seq_len  # 24 probe tokens + 8 generated: as many as fit
    assert panel.step_count == len(fed) and not panel.empty_label.isVisible() and panel.cache_view.isVisible()
    logits, layers = full_pass(trainer.model, fed)
    assert fed[len(probe):] == logits[len(probe) - 1:-1].argmax(-1).tolist()  # greedy, by the full pass
    view = panel.cache_view
    for layer in (0, 1):
        window.model_source.layer_slider.setValue(layer)
        assert panel.trace.config.layer == layer
        full = layers[layer]
        # cached steps against the whole sequence at once: layers 0..layer, each rounded its own way
        rule = {"dtype": "float32", "reduction": through_layers(layer + 1, SMALL.d_model, len(fed))}
        panel.set_head_choice(0)  # all heads side by side
        assert_close(view.k_item.image, np.concatenate(list(full["k"]), axis=1), **rule)
        assert_close(view.v_item.image, np.concatenate(list(full["v"]), axis=1), **rule)
        for t in range(len(fed)):
            panel.set_step(t)
            assert panel.check_label.text().endswith("✓"), panel.check_label.text()
            assert_close(view.w_item.image, full["attn"][:, t, :t + 1], **rule)
            assert_close(view.q_item.image[0], full["q"][:, t].reshape(-1), **rule)
            assert_close(view.out_item.image[0], full["out"][t], **rule)
        panel.set_head_choice(2)  # head 1 alone: its own K and V (no grouping)
        assert_close(view.k_item.image, full["k"][1], **rule)
        assert "shared by" not in view.k_plot.titleLabel.text


def test_the_counter_lines_read_for_an_attention_only_model_with_integer_tokens(window, qtbot):
    train_steps(qtbot, window)
    choose(qtbot, window, TRAINED)
    window.learned.set_text("5 6 7 8 5 6")
    settle(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    trace = wait_for_trace(qtbot, window, TRAINED)
    panel = window.kv_panel
    assert trace.config.tokens[:6] == ("5", "6", "7", "8", "5", "6") and panel.step_count == 6 + 8
    panel.set_step(3)
    record = trace.record(3)
    top = record.top5[0]
    assert panel.tokens_label.text().startswith("step 3 / 13: token “8” (from the sentence); next token, top 5: "
                                                f"{top[0]} {top[1]:.2f}")
    assert panel.bytes_label.text() == (f"cache after this step: 4 positions → {2 * 2 * 2 * 4 * 8 * 4:,} bytes = "
                                        "2 × 2 layers × 2 heads × 4 × 8 × 4 B.")
    assert "this model has no MLP" in panel.step_flops_label.text() and "2 layers" in panel.step_flops_label.text()
    assert "MLP, attention" not in panel.step_flops_label.text()
    assert panel.check_label.text().startswith("cached step = full causal pass")
    panel.set_step(7)
    assert "(chosen by the model)" in panel.tokens_label.text()


def test_switching_sources_on_the_kv_tab_and_back_to_random(window, qtbot):
    window.tabs.setCurrentWidget(window.kv_panel)
    panel = window.kv_panel
    qtbot.waitUntil(lambda: panel.trace is not None, timeout=WAIT_MS)
    random_config = panel.trace.config
    train_steps(qtbot, window)
    choose(qtbot, window, TRAINED)
    wait_for_trace(qtbot, window, TRAINED)
    choose(qtbot, window, RANDOM)
    qtbot.waitUntil(lambda: panel.trace is not None and not isinstance(panel.trace, LearnedKVTrace),
                    timeout=WAIT_MS)
    assert panel.trace.config == random_config and not panel.cache_view.isHidden()
    assert panel.check_label.text().endswith("✓")
    choose(qtbot, window, TRAINED)  # and again: a fresh run of the same model
    trace = wait_for_trace(qtbot, window, TRAINED)
    assert trace.steps and all(panel_step.max_diff <= panel_step.tolerance for panel_step in trace.steps)


def test_switching_between_smollm2_and_the_trained_model_on_the_kv_tab(window, qtbot, smollm2):
    train_steps(qtbot, window)
    window.learned.set_text("1 2 3")  # smollm2 reads it as text, the trained model as its tokens
    window.tabs.setCurrentWidget(window.kv_panel)
    window.generation_view.count.setValue(2)
    choose(qtbot, window, "smollm2-135m")
    smol = wait_for_trace(qtbot, window, "smollm2-135m")
    assert smol.config.kv_heads == 3 and "grouped-query attention" in window.kv_panel.bytes_label.text()
    choose(qtbot, window, TRAINED)
    trained = wait_for_trace(qtbot, window, TRAINED)
    assert trained.config.tokens == ("1", "2", "3", *trained.config.tokens[3:]) and len(trained.steps) == 5
    assert "grouped-query" not in window.kv_panel.bytes_label.text()
    choose(qtbot, window, "smollm2-135m")
    again = wait_for_trace(qtbot, window, "smollm2-135m")
    assert again.config.tokens == smol.config.tokens
    assert window.kv_panel.check_label.text().endswith("✓")


def test_training_on_steps_the_new_model_while_the_kv_tab_shows_it(window, qtbot):
    train_steps(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    choose(qtbot, window, TRAINED)
    first = wait_for_trace(qtbot, window, TRAINED)
    trainer = train_steps(qtbot, window, n=10)  # the Train tab steps on: a new "trained" source
    qtbot.waitUntil(lambda: window.kv_panel.trace is not first and isinstance(window.kv_panel.trace,
                                                                              LearnedKVTrace), timeout=WAIT_MS)
    settle(qtbot, window)
    trace = window.kv_panel.trace
    fed = [int(token) for token in trace.config.tokens]
    _logits, layers = full_pass(trainer.model, fed)  # the model after 20 steps, not 10
    assert_close(trace.keys, layers[trace.config.layer]["k"], dtype="float32",
                 reduction=through_layers(trace.config.layer + 1, SMALL.d_model, len(fed)))
    assert not np.allclose(first.keys, trace.keys, atol=1e-3)  # differ by far more than rounding


def test_the_export_offers_the_trained_models_kv_figure(window, qtbot):
    from PySide6.QtGui import QImage
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.export_dialog import ExportDialog
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import available_specs, current_spec, export_from_window
    trainer = train_steps(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    choose(qtbot, window, TRAINED)
    trace = wait_for_trace(qtbot, window, TRAINED)
    panel = window.kv_panel
    panel.set_step(2)
    specs = dict(available_specs(window))
    assert specs["KV cache at step 2 (layer 0)"] == FigureSpec("kv", 2)
    assert current_spec(window) == FigureSpec("kv", 2)
    name, data = export_from_window(window, FigureSpec("kv", 2), ExportOptions(fmt="csv"))
    assert name == "kv_step2_trained_layer0.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert len(rows) == 2 * 3  # 2 heads × 3 cached keys
    _logits, layers = full_pass(trainer.model, [int(token) for token in trace.config.tokens])
    weights = np.array([float(r["weight"]) for r in rows]).reshape(2, 3)
    # the CSV's numbers are float32 ones; layer 0 over the sequence
    assert_close(weights, layers[0]["attn"][:, 2, :3], dtype="float32",
                 reduction=through_layers(1, SMALL.d_model, len(trace.config.tokens)))
    name, data = export_from_window(window, FigureSpec("kv", 2), ExportOptions(fmt="svg"))
    assert b"KV cache, step 2" in data and b"one K and V per head, 2 heads" in data
    name, data = export_from_window(window, FigureSpec("kv", 2), ExportOptions(fmt="png"))
    assert QImage.fromData(data).width() > 300
    dialog = ExportDialog(window)
    qtbot.addWidget(dialog)
    dialog.refresh()
    assert dialog.spec() == FigureSpec("kv", 2) and dialog.name.text() == "kv_step2_trained_layer0.png"
    assert "the trained model uses learned position embeddings" in dialog.message.text()
    assert "Generate (decoder)" not in dialog.message.text() and "KV-cache figure" not in dialog.message.text()


def test_the_trained_source_runs_on_the_cpu_when_the_switch_says_cpu(window, qtbot):
    train_steps(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    choose(qtbot, window, TRAINED)
    wait_for_trace(qtbot, window, TRAINED)
    assert window.learned.device == "cpu" and window.learned.analysis.device == "cpu"
    assert " ms on cpu · next: " in window.learned_strip.label.text()  # the strip names the device


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_cuda_chosen_without_a_device_is_the_pretrained_models_message_and_the_picture_stays(window, qtbot):
    train_steps(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    choose(qtbot, window, TRAINED)
    trace = wait_for_trace(qtbot, window, TRAINED)
    picture = window.learned.analysis
    messages = []
    window.learned.error.connect(messages.append)
    window.learned.set_device("cuda")  # what the backend switch hands on (learned_wiring)
    settle(qtbot, window)
    assert messages and all(m.startswith("CUDA was requested but") for m in messages), messages
    assert window.learned.analysis is picture and window.kv_panel.trace is trace  # nothing lost
    window.learned.set_device("cpu")
    settle(qtbot, window)
    assert window.learned.analysis is not picture and window.learned.analysis.device == "cpu"


def test_cuda_through_the_backend_switch_falls_back_and_the_trained_source_follows(window, qtbot):
    """The window's route: the switch asks for torch CUDA; without one the compute falls back to
    numpy on the CPU (main window), and the trained source goes back to the CPU with it."""
    train_steps(qtbot, window)
    choose(qtbot, window, TRAINED)
    window.state.update(backend="torch", device="cuda:0")
    qtbot.waitUntil(lambda: window.state.is_idle(), timeout=WAIT_MS)
    settle(qtbot, window)
    if torch.cuda.is_available():
        assert window.learned.device == "cuda" and window.learned.analysis.device.startswith("cuda")
    else:
        assert window.learned.device == "cpu" and window.learned.analysis.device == "cpu"
        assert window.state.config.device == "cpu"


def test_a_device_copy_is_made_once_and_the_cpu_copy_stays_on_the_cpu(monkeypatch):
    """trained_model(device) moves a copy (nn.Module.to works in place), once per device. A "meta"
    device stands in for CUDA here: nothing is claimed about a real GPU."""
    import explorer.core.backends as backends
    from explorer.app.models.learned import register_trained
    from explorer.core.training import build_model
    forget_trained()
    register_trained(build_model(SMALL), SMALL, 0)
    try:
        _spec, cpu_model, _config = trained_model("cpu")
        monkeypatch.setattr(backends, "resolve_torch_device", lambda device: torch.device("meta"))
        _spec, moved, _config = trained_model("cuda")
        assert next(moved.parameters()).device.type == "meta"
        assert next(cpu_model.parameters()).device.type == "cpu" and moved is not cpu_model
        assert trained_model("cuda")[1] is moved
    finally:
        forget_trained()


def test_the_generate_tab_still_steps_the_trained_model_after_the_kv_tab_did(window, qtbot):
    train_steps(qtbot, window)
    window.tabs.setCurrentWidget(window.kv_panel)
    choose(qtbot, window, TRAINED)
    wait_for_trace(qtbot, window, TRAINED)
    view = window.generation_view
    window.tabs.setCurrentWidget(view)
    assert view.text.text().startswith(" ".join(str(i) for i in probe_tokens(SMALL.vocab, SMALL.seq_len)[:4]))
    view.count.setValue(2)
    qtbot.mouseClick(view.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(window.learned.generation.records) == 26, timeout=WAIT_MS)


def test_the_open_export_dialog_follows_a_change_of_model_source(window, qtbot, tmp_path):
    """Head 7 of the random model's 8 is chosen; the trained model (2 heads) is chosen in the
    window: the list offers its heads, the choice falls back to the grid, and a stale figure is
    refused with a message (it used to raise IndexError in the button's slot)."""
    from explorer.core.files.output_files import ExportError
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.export_dialog import open_export_dialog
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import export_from_window
    train_steps(qtbot, window)
    window.state.update(d_model=16, n_heads=8)
    qtbot.waitUntil(lambda: window.state.is_idle() and window.state.result.config.n_heads == 8,
                    timeout=WAIT_MS)
    choose(qtbot, window, RANDOM)
    dialog = open_export_dialog(window)
    dialog.what.setCurrentIndex([s for _, s in dialog._specs].index(FigureSpec("head", 7)))
    choose(qtbot, window, TRAINED)
    qtbot.waitUntil(lambda: [s for _, s in dialog._specs if s.kind == "head"]
                    == [FigureSpec("head", 0), FigureSpec("head", 1)], timeout=WAIT_MS)
    assert dialog.spec() == FigureSpec("heads")
    assert FigureSpec("pe") not in [s for _, s in dialog._specs]
    with pytest.raises(ExportError, match="head:7 is not in the picture now"):
        export_from_window(window, FigureSpec("head", 7), ExportOptions(fmt="csv"))
    dialog.folder.setText(str(tmp_path))
    assert dialog.export(), dialog.message.text()
    dialog.close()


def test_the_generate_tab_follows_a_new_trained_model_with_fewer_heads(window, qtbot):
    """KV head 1 of the 2-head trained model shown in the Generate tab; a 1-head model replaces
    it under the same name and is stepped: the KV head box follows the run's own heads (before,
    it kept the old range and the new run's cache was indexed at head 1: IndexError, found by
    the soak, seed 11)."""
    import dataclasses
    from explorer.core.training import build_model
    train_steps(qtbot, window)
    choose(qtbot, window, TRAINED)
    view = window.generation_view
    window.tabs.setCurrentWidget(view)
    view.count.setValue(2)
    qtbot.mouseClick(view.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.learned.generation is not None, timeout=WAIT_MS)
    view.kv_head.setValue(1)
    assert view.kv_head.value() == 1
    one_head = dataclasses.replace(SMALL, n_heads=1)
    window.learned.set_trained(build_model(one_head), one_head, 0)  # as Load model… does
    settle(qtbot, window)
    qtbot.mouseClick(view.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.learned.generation is not None
                    and window.learned.generation.model_spec.heads == 1, timeout=WAIT_MS)
    assert view.kv_head.maximum() == 0 and view.kv_head.value() == 0
    assert "head 0" in view.which.text()
