"""PEFT adapters in the real window: Load adapter… beside Open model folder…, base / adapted /
difference on the heads grid, the overview's marks, the Generate and KV tabs of the adapted decoder.

Each test opens a tiny own checkpoint (tests/checkpoints' builder) and an adapter peft saved for
it (tests/adapters/conftest.py: trainable tensors perturbed, so the adapter really changes the
attention), through the real controls with the folder dialog patched. The oracles are peft's
PeftModel and transformers' model of the base (float32: tests/numeric.py's rule); what the grid
draws must be exactly the arrays the source gave. Waits are on conditions, never fixed sleeps.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import warnings

import numpy as np
import pytest
from peft import LoraConfig, PrefixTuningConfig
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QFileDialog

from explorer.app.models.adapter_source import difference
from explorer.app.models.learned_kv import check_passed
from explorer.core.adapters.load import load_adapted

from adapter_support import base_model, reduction, score_size  # noqa: E402
from checkpoints.conftest import build_checkpoint  # noqa: E402
from numeric import assert_close  # noqa: E402

torch = pytest.importorskip("torch")

SETTLE_MS = 60_000
QV = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])
PREFIX = PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)


def settle(qtbot, window):
    """The learned models' jobs and the adapters' comparisons all delivered."""
    qtbot.waitUntil(lambda: window.learned.is_idle() and window.learned.busy == ""
                    and window.adapters.is_idle(), timeout=SETTLE_MS)


def open_base(qtbot, window, monkeypatch, folder):
    """The checkpoint through Open model folder… (the dialog patched)."""
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    window.model_source.open_button.click()
    qtbot.waitUntil(lambda: window.learned.source == str(folder) and window.learned.analysis is not None,
                    timeout=SETTLE_MS)
    settle(qtbot, window)


def load_adapter(qtbot, window, monkeypatch, folder):
    """The adapter through Load adapter… (the dialog patched), then settled."""
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    assert window.adapter_control.load_button.isEnabled()
    window.adapter_control.load_button.click()
    settle(qtbot, window)


@pytest.fixture
def adapted_window(make_window, qtbot, monkeypatch, bases, adapter):
    """(window, base folder, adapter folder) with the tiny Llama and its LoRA on q, v loaded.
    Afterwards the course model is chosen again before the registry forgets the sources (a
    generation of a source gone from the registry would be dropped by asking for it)."""
    windows = []

    def make(config=QV, name="llama-window-lora"):
        base, folder = bases("llama"), adapter("llama", name, config)
        window = make_window()
        open_base(qtbot, window, monkeypatch, base)
        load_adapter(qtbot, window, monkeypatch, folder)
        qtbot.waitUntil(lambda: window.adapters.source is not None and window.adapters.comparison is not None,
                        timeout=SETTLE_MS)
        settle(qtbot, window)
        windows.append(window)
        return window, base, folder
    yield make
    for window in windows:
        window.learned.set_source("random")


def grid_weights(window) -> np.ndarray:
    """(heads, N, N): what every head's heatmap holds now."""
    grid = window.heads_grid
    return np.stack([grid.head_image(h) for h in grid.visible_heads()])


def click_mode(qtbot, window, mode: str):
    window.adapter_bar.buttons[mode].click()
    qtbot.waitUntil(lambda: window.shown.picture is window.heads_grid.shown_result()
                    and window.adapters.mode == mode, timeout=SETTLE_MS)


def test_load_adapter_through_the_control_shows_the_adapted_heads(adapted_window, peft_run):
    window, base, folder = adapted_window()
    source = window.adapters.source
    assert window.learned.source == source.name and source.base.name == str(base)
    combo = window.model_source.combo
    assert combo.currentData() == source.name and combo.currentText().endswith("+ LoRA r=8")
    info = window.adapter_control.info.text()
    assert info.startswith("adapter: LoRA") and "r = 8" in info and "α = 16" in info
    assert "q_proj, v_proj" in info and f"{source.info.trainable_parameters:,} trainable parameters" in info
    assert window.adapter_bar.isVisible() and window.adapters.mode == "adapted"
    analysis = window.learned.analysis
    layer = window.learned.layer
    np.testing.assert_array_equal(grid_weights(window), analysis.attentions[layer])  # exactly the source's
    # the oracle: PeftModel's eager attentions of the same ids
    expected = peft_run(base, folder, list(analysis.ids), "llama")["attentions"]  # (L, H, n, n)
    model = load_adapted(base, folder).weights
    n = len(analysis.ids)
    assert_close(analysis.attentions, expected, dtype="float32", reduction=reduction(model, n),
                 scale=score_size(expected))
    assert window.adapters.comparison.peak.max() > 0.05  # the adapter really changes heads
    assert "+ LoRA r=8" not in " ".join(window.recent_models)  # an adapter is no model folder


def base_attentions(base, ids) -> np.ndarray:
    """transformers' eager attentions of the base model (layers, heads, n, n)."""
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = base_model(base, "llama")(input_ids=torch.tensor([ids]), output_attentions=True)
    return torch.stack([a[0] for a in out.attentions]).numpy()


def test_base_adapted_difference_show_exactly_the_sources_arrays(adapted_window, qtbot):
    window, base, _folder = adapted_window()
    source, learned = window.adapters.source, window.learned
    layer = learned.layer
    adapted = learned.analysis
    comparison = window.adapters.comparison
    click_mode(qtbot, window, "base")
    np.testing.assert_array_equal(grid_weights(window), comparison.base.attentions[layer])
    fresh_base = source.analyse_base("cpu", learned.text)  # the source's base run, made again here
    np.testing.assert_array_equal(comparison.base.attentions, fresh_base.attentions)
    expected = base_attentions(base, list(adapted.ids))  # transformers' base model: the oracle
    n = len(adapted.ids)
    assert_close(comparison.base.attentions, expected, dtype="float32",
                 reduction=reduction(load_adapted(base, _folder).weights, n), scale=score_size(expected))

    click_mode(qtbot, window, "difference")
    diff = difference(adapted, comparison.base)[layer]  # (heads, n, n)
    np.testing.assert_array_equal(grid_weights(window), diff)
    np.testing.assert_array_equal(diff, adapted.attentions[layer] - fresh_base.attentions[layer])
    top = float(np.abs(diff).max())
    low, high = window.heads_grid.colorbar().levels()
    assert (low, high) == pytest.approx((-top, top))  # symmetric around 0
    assert window.heads_grid.colorbar().axis.autoSIPrefixScale == 1.0  # 0.9 reads 0.9, not 900 (×0.001)
    for head in window.heads_grid.visible_heads():  # every image drawn on that scale
        assert tuple(window.heads_grid.panel(head).image.getLevels()) == pytest.approx((-top, top))
    picture = window.heads_grid.shown_result()
    assert picture.scale.colormap == "CET-D1" and "Δ" in picture.head_title(0)
    assert "adapted" in picture.describe_cell(0, n - 1, 0) and "base" in picture.describe_cell(0, n - 1, 0)

    learned.set_layer(1)  # another layer: its difference, its own scale
    qtbot.waitUntil(lambda: window.heads_grid.shown_result().layer == 1, timeout=SETTLE_MS)
    np.testing.assert_array_equal(grid_weights(window), difference(adapted, comparison.base)[1])

    click_mode(qtbot, window, "adapted")
    np.testing.assert_array_equal(grid_weights(window), adapted.attentions[1])
    assert window.heads_grid.colorbar().levels() == pytest.approx((0.0, 1.0))


def test_the_overview_marks_the_heads_the_adapter_changed_most(adapted_window):
    window, _base, _folder = adapted_window()
    source, learned = window.adapters.source, window.learned
    adapted = source.analyse("cpu", learned.text)
    base = source.analyse_base("cpu", learned.text)
    peak = np.abs(adapted.attentions - base.attentions).max(axis=(-2, -1))  # (layers, heads), made here
    order = np.argsort(-peak.ravel(), kind="stable")
    layer, head = divmod(int(order[0]), peak.shape[1])
    marks = window.model_overview.canvas.marks
    assert marks[0][:2] == (layer, head) and marks[0][2] == pytest.approx(float(peak[layer, head]))
    assert marks[1][:2] == divmod(int(order[1]), peak.shape[1])
    assert [m[2] for m in marks] == sorted((m[2] for m in marks), reverse=True) and len(marks) == 2  # 8 heads / 4
    line = window.model_overview.marks
    assert not line.isHidden() and f"1: L{layer} H{head}" in line.text()
    canvas = window.model_overview.canvas
    lay = canvas.layout_
    x, y = lay.origin(layer, head)
    assert "changed by the adapter: #1" in canvas.tooltip_at(x + 1, y + 1)


def test_the_generate_tab_runs_the_adapted_decoder_and_shows_before_after(adapted_window, qtbot, peft_run):
    window, base, folder = adapted_window()
    source, learned, view = window.adapters.source, window.learned, window.generation_view
    window.tabs.setCurrentWidget(view)
    view.count.setValue(4)
    view.button.click()
    qtbot.waitUntil(lambda: learned.generation is not None and window.adapters.next_tokens is not None,
                    timeout=SETTLE_MS)
    settle(qtbot, window)
    run = learned.generation
    assert run.model == source.name
    own = source.generate("cpu", learned.text, 4)  # the adapted source's own generation
    assert run.generated == own.generated and len(run.generated) == 4
    compared = window.adapters.next_tokens
    assert compared.run is run and len(compared.steps) == len(run.records)
    for record, step in zip(run.records, compared.steps):  # "after" is the adapted run's own top 5
        assert step.top("adapted") == tuple(i for _label, _p, i in record.top5)
    # the oracles: PeftModel's and the base transformers model's next-token probabilities
    ids = list(source.tokens_for(load_adapted(base, folder), learned.text, "text", 0, None).ids)
    ids += [step.top("adapted")[0] for step in compared.steps[len(ids) - 1:-1]]  # greedy
    logits = peft_run(base, folder, ids, "llama")["logits"]  # (n, vocab)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base_logits = base_model(base, "llama")(input_ids=torch.tensor([ids])).logits[0]
    after = torch.softmax(torch.as_tensor(logits).double(), -1).numpy()
    before = torch.softmax(base_logits.double(), -1).numpy()
    model = load_adapted(base, folder).weights
    for t, step in enumerate(compared.steps):
        rows = np.array([(p_base, p_adapted) for _label, _id, p_base, p_adapted in step.rows])
        chosen = [row[1] for row in step.rows]
        assert_close(rows[:, 1], after[t, chosen], dtype="float32", reduction=reduction(model, len(ids)),
                     scale=float(np.abs(logits[t]).max()))
        assert_close(rows[:, 0], before[t, chosen], dtype="float32", reduction=reduction(model, len(ids)),
                     scale=float(base_logits[t].abs().max()))
    assert np.abs(after - before).max() > 0.01  # before and after do differ
    table = view.next_tokens
    view.slider.setValue(2)
    assert table.isVisible() and "base" in table.text() and "adapted" in table.text()
    assert f"{compared.steps[2].rows[0][3]:.3f}" in table.text()


def test_the_kv_tab_labels_a_prefix_and_steps_the_adapted_cache(adapted_window, qtbot):
    window, _base, _folder = adapted_window(PREFIX, "llama-window-prefix")
    learned = window.learned
    assert window.adapters.source.info.virtual_tokens == 3
    picture = window.heads_grid.shown_result()
    assert picture.tokens[:3] == ("⟨p1⟩", "⟨p2⟩", "⟨p3⟩")
    assert picture.empty_rows[:3].all() and not picture.empty_rows[3:].any()  # prefix: keys only
    assert (picture.stats.argmax[:, :3] == -1).all()  # no key boxed in a row that attends to nothing
    window.tabs.setCurrentWidget(window.kv_panel)
    qtbot.waitUntil(lambda: window.learned_kv is not None, timeout=SETTLE_MS)
    settle(qtbot, window)
    run, layer, trace = window.learned_kv
    assert run.model == learned.model.name and trace is window.shown.kv_trace
    assert trace.config.tokens[:3] == ("⟨p1⟩", "⟨p2⟩", "⟨p3⟩")
    assert len(trace.config.tokens) == trace.keys.shape[1] == 3 + len(trace.steps)
    panel = window.kv_panel
    for step in (len(trace.steps) - 1, 0, 2):  # the row fed at step t is v + t: the virtual keys come first
        panel.set_step(step)
        assert panel.cache_view.k_new.rect().center().y() == pytest.approx(3 + step)
        assert panel.cache_view.k_cover.rect().top() == pytest.approx(3 + step + 0.5)
    assert all(check_passed(s) for s in trace.steps)  # each cached step = the full pass
    assert trace.steps[0].weights.shape[-1] == 4  # the first text token already sees the three virtual keys
    np.testing.assert_array_equal(trace.keys, run.keys[layer])  # (kv_heads, 3 + n, d_head): the real cache
    click_mode(qtbot, window, "difference")
    shown = window.heads_grid.shown_result()
    base_rows = shown.weights[:, 3:, 3:]
    assert np.abs(shown.weights[:, :3]).max() == 0  # no query row for the virtual tokens
    assert base_rows.shape[-1] == len(shown.tokens) - 3


class _LeavesAFile:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def pickled_only(tmp_path, adapter, bases):
    folder = shutil.copytree(adapter("llama", "llama-window-lora", QV), tmp_path / "pickled")
    os.remove(folder / "adapter_model.safetensors")
    marker = tmp_path / "unpickled.txt"
    (folder / "adapter_model.bin").write_bytes(pickle.dumps(_LeavesAFile(str(marker))))
    return folder, marker, "holds only a pickled adapter (adapter_model.bin)"


def for_a_wider_base(tmp_path, adapter, bases):
    wider = build_checkpoint(tmp_path / "wider", "llama", hidden_size=48)
    return adapter("llama", "llama-window-lora", QV), None, "adapter for another base", wider


def prefix_for_gpt2(tmp_path, adapter, bases):  # refused only when its tensors meet the model
    folder = adapter("gpt2", "gpt2-window-prefix", PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=2))
    return folder, None, "adapter for another base: adapter_config.json says num_attention_heads 4"


def hostile_config(tmp_path, adapter, bases):
    folder = shutil.copytree(adapter("llama", "llama-window-lora", QV), tmp_path / "hostile")
    config = json.loads((folder / "adapter_config.json").read_text())
    config["r"] = 10 ** 12
    (folder / "adapter_config.json").write_text(json.dumps(config))
    return folder, None, "r must be a whole number from 1 to 4096"


@pytest.mark.parametrize("make", [pickled_only, for_a_wider_base, prefix_for_gpt2, hostile_config])
def test_a_hostile_adapter_is_one_line_and_the_base_stays(make, make_window, qtbot, monkeypatch, tmp_path,
                                                          bases, adapter):
    made = make(tmp_path, adapter, bases)
    folder, marker, expected = made[:3]
    base = made[3] if len(made) > 3 else bases("llama")
    window = make_window()
    open_base(qtbot, window, monkeypatch, base)
    shown = window.shown.picture
    listed = window.model_source.combo.count()
    messages = []
    window.learned.error.connect(messages.append)
    load_adapter(qtbot, window, monkeypatch, folder)
    line = window.adapter_control.error
    qtbot.waitUntil(lambda: not line.isHidden(), timeout=SETTLE_MS)
    assert expected in line.text() and "\n" not in line.text() and messages == [window.adapters.last_error]
    assert window.learned.source == str(base) and window.adapters.source is None
    assert window.shown.picture is shown and window.heads_grid.shown_result() is shown  # the base stays
    assert window.model_source.combo.count() == listed and not window.adapter_bar.isVisible()
    assert marker is None or not marker.exists()
    assert window.adapter_control.load_button.isEnabled()  # try another one
    import explorer.gui.learned.adapter_control as control  # said again in the new language
    monkeypatch.setattr(control, "error_text", lambda exc: f"‹{exc}›")
    QCoreApplication.sendEvent(window.adapter_control, QEvent(QEvent.Type.LanguageChange))
    assert line.text().startswith("‹") and expected in line.text()


def test_the_adapter_texts_follow_a_language_switch(adapted_window, monkeypatch):
    import explorer.gui.learned.adapter_control as control
    import explorer.gui.learned.adapter_views as views
    window, _base, _folder = adapted_window()
    window.tabs.setCurrentWidget(window.heads_grid)
    window.adapters.set_mode("difference")
    fake = lambda _context, text: f"‹{text}›"  # noqa: E731 - a stand-in catalogue
    monkeypatch.setattr(control, "translate", fake)
    monkeypatch.setattr(views, "translate", fake)
    for widget in (window.adapter_control, window.adapter_bar):
        QCoreApplication.sendEvent(widget, QEvent(QEvent.Type.LanguageChange))
    assert window.adapter_control.load_button.text() == "‹Load adapter…›"
    assert window.adapter_control.info.text().startswith("‹adapter: ‹LoRA› · r = 8")
    assert [b.text() for b in window.adapter_bar.buttons.values()] == ["‹adapted›", "‹base›", "‹difference›"]
    assert window.adapter_bar.caption.text().startswith("‹Δ = adapted − base")


def test_load_adapter_is_disabled_where_no_adapter_goes(make_window, qtbot):
    window = make_window()
    settle(qtbot, window)
    button = window.adapter_control.load_button
    assert window.learned.source == "random" and not button.isEnabled()
    assert "bundled model or an own checkpoint" in button.toolTip()
    assert window.model_source.open_button.parent() is button.parent()  # beside Open model folder…


def test_a_load_shows_its_progress_and_cancel_keeps_the_base(make_window, qtbot, monkeypatch, bases, adapter):
    import threading

    import explorer.core.checkpoints.load as load
    from explorer.core.cancel import Cancelled
    base, folder = bases("llama"), adapter("llama", "llama-window-lora", QV)
    window = make_window()
    open_base(qtbot, window, monkeypatch, base)
    shown, listed = window.shown.picture, window.model_source.combo.count()
    release, real = threading.Event(), load._load

    def slow(ckpt, device, dtype, should_stop, progress, edit=None):  # half read, then wait for Cancel
        progress(0.5)
        while not release.is_set():
            if should_stop is not None and should_stop():
                raise Cancelled("load")
            release.wait(0.01)
        return real(ckpt, device, dtype, should_stop, progress, edit)

    monkeypatch.setattr(load, "_load", slow)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    window.adapter_control.load_button.click()
    qtbot.waitUntil(lambda: window.learned.progress == 0.5, timeout=SETTLE_MS)
    control = window.model_source
    assert control.busy_bar.value() == 500 and control.cancel_button.isVisibleTo(window)
    assert control.busy_label.text().startswith("loading the adapter llama-window-lora")
    control.cancel_button.click()
    settle(qtbot, window)
    release.set()
    assert window.learned.source == str(base) and window.shown.picture is shown
    assert control.combo.count() == listed and window.adapter_control.error.isHidden()
    load_adapter(qtbot, window, monkeypatch, folder)  # once more, to the end
    qtbot.waitUntil(lambda: window.adapters.source is not None, timeout=SETTLE_MS)
    assert control.combo.count() == listed + 1


def test_the_adapter_is_read_off_the_gui_thread(make_window, qtbot, monkeypatch, bases, adapter):
    import threading

    import explorer.app.models.adapter_source as adapter_source
    base, folder = bases("llama"), adapter("llama", "llama-window-lora", QV)
    window = make_window()
    open_base(qtbot, window, monkeypatch, base)
    threads, real = [], adapter_source.open_adapter

    def noted(where):
        threads.append(threading.current_thread())
        return real(where)

    monkeypatch.setattr(adapter_source, "open_adapter", noted)
    load_adapter(qtbot, window, monkeypatch, folder)
    qtbot.waitUntil(lambda: window.adapters.source is not None, timeout=SETTLE_MS)
    assert threads and threading.main_thread() not in threads


def test_the_fed_tokens_are_found_when_sampled_outside_the_top_5(bases, adapter):
    from explorer.app.models.adapter_compare import fed_ids
    from explorer.app.models.learned_generation import GenerationRun
    from explorer.core.learned.analysis import tokenize
    from explorer.core.learned.generation import run_generation
    model = load_adapted(bases("llama"), adapter("llama", "llama-window-lora", QV))
    tokens = tokenize(model, "the cat sat")
    least = lambda logits: int(logits.argmin())  # noqa: E731 - never among the top 5
    records, _cache, new = run_generation(model, tokens, 4, check=False, choose=least)
    run = GenerationRun("x", len(tokens.ids), tuple(records), tuple(new.labels), "", None, None, "the cat sat")
    assert all(i not in [t[2] for t in r.top5] for r, i in zip(records[len(tokens.ids) - 1:], new.ids))
    labels = [model.tokenizer.encode_ids([i]).labels[0] for i in fed_ids(model, run)]
    assert labels == [r.token for r in records]  # the same tokens (an id may share its label)


def test_which_sources_take_an_adapter(bases, adapter):
    from explorer.app.models.adapter_source import AdaptedSource
    from explorer.app.models.adapter_state import adapter_problem
    from explorer.app.models.checkpoint_source import source_for_folder
    from explorer.app.models.sources import source_for
    from explorer.core.learned import MODELS, install_problem
    assert "bundled model or an own checkpoint" in adapter_problem(source_for("random"))
    assert "bundled model or an own checkpoint" in adapter_problem(source_for("trained"))
    for name, spec in MODELS.items():  # installed: it takes one; else why it is not installed
        assert (adapter_problem(source_for(name)) is None) == (install_problem(spec) is None)
    base = source_for_folder(str(bases("llama")))
    assert adapter_problem(base) is None
    opt = source_for_folder(str(bases("opt")))  # no native forward: through transformers
    assert not opt.native and "adapters need the app's own forward" in adapter_problem(opt)
    adapted = AdaptedSource(base, adapter("llama", "llama-window-lora", QV))
    assert "already has an adapter" in adapter_problem(adapted)


def test_a_source_takes_an_adapter_as_it_declares_not_by_its_class():
    """adapter_problem reads Capabilities.adapters: a new kind of source declares it and is
    answered like the bundled and own models, with no isinstance anywhere."""
    from explorer.app.models.adapter_source import AdaptedSource
    from explorer.app.models.adapter_state import adapter_problem
    from explorer.app.models.model_source import Capabilities, ModelSource
    from explorer.core.config import ConfigError

    class Declared(ModelSource):
        name = "declared"

        def __init__(self, adapters):
            self.capabilities = Capabilities(adapters=adapters)

        def title(self):
            return "declared"

    assert adapter_problem(Declared("bundled")) is None
    assert "bundled model or an own checkpoint" in adapter_problem(Declared(""))
    assert "adapters need the app's own forward" in adapter_problem(Declared("through_transformers"))
    with pytest.raises(ConfigError, match="an adapter needs a bundled model or an own checkpoint"):
        AdaptedSource(Declared(""), "/nonexistent")


def test_exports_of_each_mode_say_what_they_hold(adapted_window, qtbot):
    """Adapted, base and difference exports: each its own file name, the CSV's value column named
    for what it holds (weight, or delta_weight = adapted − base), the values the grid's."""
    import csv
    import io
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import export_from_window
    window, _base, _folder = adapted_window()
    names = {}
    for mode in ("adapted", "base", "difference"):
        click_mode(qtbot, window, mode)
        name, data = export_from_window(window, FigureSpec("heads"), ExportOptions(fmt="csv"))
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
        column = "delta_weight" if mode == "difference" else "weight"
        assert rows[0][-1] == column, (mode, rows[0])
        shown = grid_weights(window)
        got = np.array([float(r[-1]) for r in rows[1:]]).reshape(shown.shape)
        np.testing.assert_array_equal(got, shown)
        assert " " not in name and "+" not in name, name
        names[mode] = name
        png_name, png = export_from_window(window, FigureSpec("heads"), ExportOptions(fmt="png"))
        assert png.startswith(b"\x89PNG") and png_name == name[:-4] + ".png"
    assert len(set(names.values())) == 3, names
    assert names["difference"].startswith("heads_") and "_difference_" in names["difference"]
