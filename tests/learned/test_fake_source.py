"""A model source added in a few lines (no GUI code) is shown like every other: the Model source
list, the heads grid, the overview, the export and `dump --model` (issue 22's one interface)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from explorer.app.models.learned import Analysis
from explorer.app.models.model_source import Capabilities, ModelSource
from explorer.app.models.sources import listed, register_source, source_for, unregister_source
from explorer.core.learned import ModelSpec, find_repeat, score_heads

SETTLE_MS = 30_000


class FakeSource(ModelSource):
    """Two layers of three heads; head h of layer l puts weight on key (q − h − l) mod n."""

    name = "fake-2x3"
    capabilities = Capabilities(pruning=False)
    SPEC = ModelSpec("fake-2x3", "encoder", 2, 3, 3, 12, 64, "", "", "", (), "", 0.0,
                     "a fake encoder for tests")

    def spec(self):
        return self.SPEC

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None,
                random_length=None):
        words = tuple(text.split()) or ("∅",)
        attentions = fake_attentions(len(words))
        roles = score_heads(attentions, causal=False, repeat=find_repeat(tuple(range(len(words)))))
        return Analysis(self.SPEC, device, sequence, text, tuple(range(len(words))), words, attentions,
                        tuple(roles), None, None, None, 0.0, 0.0)


def fake_attentions(n: int) -> np.ndarray:
    """(layers, heads, n, n) float32: one-hot rows, smoothed so the heads differ visibly."""
    out = np.full((2, 3, n, n), 0.1 / max(1, n - 1) if n > 1 else 0.0, np.float32)
    for layer in range(2):
        for head in range(3):
            for q in range(n):
                out[layer, head, q, (q - head - layer) % n] = 0.9 if n > 1 else 1.0
    return out


@pytest.fixture
def fake():
    source = FakeSource()
    register_source(source)
    yield source
    unregister_source(source.name)


def choose(qtbot, window, name):
    combo = window.model_source.combo
    index = combo.findData(name)
    assert index >= 0, f"{name} is not in the Model source list"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    qtbot.waitUntil(lambda: window.learned.analysis is not None and window.learned.analysis.spec.name == name
                    and window.learned.is_idle(), timeout=SETTLE_MS)


def test_a_registered_source_is_listed_by_the_registry(fake):
    assert source_for("fake-2x3") is fake
    assert [s.name for s in listed()][-2:] == ["fake-2x3", "trained"]  # before the trained model


def test_the_window_shows_a_fake_source_in_the_grid_the_overview_and_the_export(qtbot, make_window, fake):
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import export_from_window
    window = make_window()
    choose(qtbot, window, "fake-2x3")
    window.model_source.edit.setText("one two three four")
    window.model_source.apply_text()
    qtbot.waitUntil(lambda: window.learned.analysis.text == "one two three four", timeout=SETTLE_MS)
    expected = fake_attentions(4)
    grid = window.heads_grid
    qtbot.waitUntil(lambda: grid.shown_result() is window.shown.picture
                    and grid.shown_result().weights.shape == (3, 4, 4), timeout=SETTLE_MS)
    np.testing.assert_array_equal(grid.shown_result().weights, expected[0])
    assert grid.shown_result().tokens == ("one", "two", "three", "four")
    window.model_source.layer_slider.setValue(1)
    qtbot.waitUntil(lambda: window.shown.layer == 1 and grid.shown_result().layer == 1, timeout=SETTLE_MS)
    np.testing.assert_array_equal(grid.shown_result().weights, expected[1])
    assert not window.controls.model_size.isVisible()  # its sizes, not the course's sliders
    assert window.model_source.info.text().startswith("encoder · 2 layers × 3 heads")
    # the overview: every layer's heads of this source
    canvas = window.model_overview.canvas
    assert canvas._analysis is window.learned.analysis
    # the export: named after the source and layer, the CSV its weights
    name, data = export_from_window(window, FigureSpec("heads"), ExportOptions(fmt="csv"))
    assert name == "heads_fake-2x3_layer1.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert len(rows) == 3 * 4 * 4
    got = np.array([float(r["weight"]) for r in rows]).reshape(3, 4, 4)
    np.testing.assert_array_equal(got, expected[1])
    name, png = export_from_window(window, FigureSpec("head", 2), ExportOptions(fmt="png"))
    assert name == "head2_fake-2x3_layer1.png" and png.startswith(b"\x89PNG")
    # no KV cache and no generation declared: the KV tab says why instead of failing
    window.tabs.setCurrentWidget(window.kv_panel)
    qtbot.waitUntil(lambda: "fake-2x3 is an encoder" in window.kv_panel.empty_label.text(), timeout=SETTLE_MS)
    assert window.kv_panel.trace is None and window.shown.kv_trace is None


def test_dump_shows_a_fake_source(fake, capsys):
    from explorer.cli import main
    assert main(["dump", "--model", "fake-2x3", "--text", "a b c", "--layer", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"]["name"] == "fake-2x3" and doc["labels"] == ["a", "b", "c"]
    np.testing.assert_allclose(np.array(doc["weights"]), fake_attentions(3)[0], atol=5e-7)  # rounded to 6 places
    assert len(doc["head_roles"]) == 2 * 3


def test_an_unknown_source_on_the_command_line_is_one_line_and_exit_2(capsys):
    from explorer.cli import main
    assert main(["dump", "--model", "no-such-model", "--text", "a"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown model 'no-such-model'" in err[0]


class SixLayers(FakeSource):
    name = "fake-6"
    SPEC = ModelSpec("fake-6", "encoder", 6, 3, 3, 12, 64, "", "", "", (), "", 0.0, "six layers")

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None, random_length=None):
        n = max(1, len(text.split()))
        attentions = np.broadcast_to(fake_attentions(n)[:1], (6, 3, n, n)).copy()
        roles = score_heads(attentions, causal=False, repeat=None)
        return Analysis(self.SPEC, device, sequence, text, tuple(range(n)), tuple(text.split()) or ("∅",),
                        attentions, tuple(roles), None, None, None, 0.0, 0.0)


class TwelveLayers(SixLayers):
    name = "fake-12"
    SPEC = ModelSpec("fake-12", "encoder", 12, 3, 3, 12, 64, "", "", "", (), "", 0.0, "twelve layers")

    def analyse(self, *args, **kwargs):
        analysis = super().analyse(*args, **kwargs)
        attentions = np.concatenate([analysis.attentions] * 2)  # (12, 3, n, n)
        return Analysis(self.SPEC, *[getattr(analysis, f) for f in ("device", "sequence", "text", "ids", "labels")],
                        attentions, analysis.roles * 2, None, None, None, 0.0, 0.0)


def test_back_to_a_shallower_model_before_the_deeper_one_arrived_keeps_a_layer_it_has(qtbot):
    """Issue 21's soak: show a 6-layer model, choose a 12-layer one, move to layer 8 before its
    analysis arrives, choose the 6-layer one again: the source_changed listener read layer 8 of
    the 6-layer analysis (IndexError in the combo's slot). Now the layer is clamped first, and a
    listener sees one consistent state."""
    from explorer.app.models.learned_state import LearnedState
    six, twelve = SixLayers(), TwelveLayers()
    register_source(six)
    register_source(twelve)
    held = []

    def job(name, *args, **kwargs):  # the 12-layer analysis never arrives in this test
        if name == "fake-12":
            held.append(name)
            return None
        return source_for(name).analyse(*args, **kwargs)

    state = LearnedState(job=job)
    seen = []
    state.source_changed.connect(lambda _name: seen.append((state.source, state.layer, state.picture())))
    try:
        assert state.set_source("fake-6")
        qtbot.waitUntil(lambda: state.analysis is not None, timeout=SETTLE_MS)
        assert state.set_source("fake-12")
        qtbot.waitUntil(lambda: bool(held) and state.is_idle(), timeout=SETTLE_MS)
        state.set_layer(8)
        assert state.layer == 8
        assert state.set_source("fake-6")
        assert state.layer == 5
        qtbot.waitUntil(lambda: state.is_idle() and state.analysis is not None, timeout=SETTLE_MS)
        assert state.picture().layer == 5
        assert [(name, layer) for name, layer, _ in seen] == [("fake-6", 0), ("fake-12", 0), ("fake-6", 5)]
    finally:
        state.shutdown(2.0)
        unregister_source("fake-6")
        unregister_source("fake-12")


def test_the_busy_line_leaves_the_status_bar_when_the_source_is_shown(qtbot, make_window, fake):
    window = make_window()
    lines = []
    window.learned.busy_changed.connect(lambda text: lines.append((text, window.statusBar().currentMessage())))
    choose(qtbot, window, "fake-2x3")
    busy = [text for text, _ in lines if text]
    assert busy and busy[0].startswith("loading fake")  # shown while it loads
    assert any(shown == text for text, shown in lines if text)
    qtbot.waitUntil(lambda: window.learned.busy == "", timeout=SETTLE_MS)
    assert window.statusBar().currentMessage() not in busy  # at once, not 3 s later
    window.status_message("an error line")  # another line is left alone when the work ends
    window.learned.busy_changed.emit("")
    assert window.statusBar().currentMessage() == "an error line"
