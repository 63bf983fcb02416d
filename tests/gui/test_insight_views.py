"""The Inside attention tab on the real window: each page draws the numbers of an independent
computation (numpy oracles for sinks and rollout) or of core.insight for the same input (value
norms, flow, the logit lens), for the course model, MiniLM, SmolLM2 and a source of a few lines
that gives its attention only. The helpers here serve the other tests/gui/test_insight_*.py too."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.app.models.learned import Analysis
from explorer.app.models.model_source import Capabilities, ModelSource
from explorer.app.models.sources import register_source, unregister_source
from explorer.core.learned import ModelSpec, find_repeat, score_heads
from explorer.gui.plotting.token_ticks import display_token

from numeric import assert_close

SETTLE_MS = 120_000
SENTENCE = "the cat sat on the mat"


# ----- helpers (the other insight tests import them) -------------------------------------------
def needs(name: str):
    from explorer.core.learned import get_spec, is_installed, load_model
    spec = get_spec(name)
    if not is_installed(spec):
        pytest.skip(f"{name} is not installed ({spec.install_command})")
    return load_model(name)


def choose(qtbot, window, name: str, text: str | None = None) -> None:
    """The source chosen in the real Model source combo (and its text typed), settled."""
    window.install_learned()
    combo = window.model_source.combo
    index = combo.findData(name)
    assert index >= 0, f"{name} is not listed"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    if text is not None:
        window.model_source.edit.setText(text)
        window.model_source.apply_text()
    qtbot.waitUntil(lambda: window.learned.analysis is not None and window.learned.analysis.spec.name == name
                    and (text is None or window.learned.analysis.text == text) and window.learned.is_idle(),
                    timeout=SETTLE_MS)


def show_page(qtbot, window, view: str):
    """The Inside attention tab shown on `view` (its button clicked), its job done; the page."""
    window.install_learned()
    window.tabs.setCurrentWidget(window.inside_view)
    window.inside_view.choice.buttons[view].click()
    settle(qtbot, window)
    return window.inside_view.pages[view]


def settle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.insight.is_idle() and window.insight.busy == "", timeout=SETTLE_MS)


def numpy_rollout(attentions: np.ndarray) -> np.ndarray:
    """An independent rollout (Abnar & Zuidema): Â_l = rows of 0.5·mean_h A + 0.5·I normalised,
    R_l = Â_l R_{l-1}, in float64."""
    out, reach = [], None
    for layer in attentions.astype(np.float64):
        a = 0.5 * layer.mean(axis=0) + 0.5 * np.eye(layer.shape[-1])
        a /= a.sum(axis=1, keepdims=True)
        reach = a if reach is None else a @ reach
        out.append(reach)
    return np.stack(out)


def numpy_first_share(attentions: np.ndarray, causal: bool) -> np.ndarray:
    """Per layer: the heads' mean over the queries of the weight on position 0 (a decoder's query 0 left out)."""
    rows = attentions[:, :, 1:, 0] if causal else attentions[:, :, :, 0]
    return rows.astype(np.float64).mean(axis=(1, 2))


class GivesAttentionOnly(ModelSource):
    """A source of a few lines: attention over its words, nothing to load (no values, no lens)."""

    name = "attention-only"
    capabilities = Capabilities(pruning=False)
    SPEC = ModelSpec("attention-only", "encoder", 2, 2, 2, 8, 64, "", "", "", (), "", 0.0, "a test source")

    def spec(self):
        return self.SPEC

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None, random_length=None):
        words = tuple(text.split()) or ("∅",)
        n = len(words)
        rng = np.random.default_rng(n)
        a = rng.random((2, 2, n, n)).astype(np.float32) + np.eye(n, dtype=np.float32) * 2
        a /= a.sum(axis=-1, keepdims=True)
        roles = score_heads(a, causal=False, repeat=find_repeat(tuple(range(n))))
        return Analysis(self.SPEC, device, sequence, text, tuple(range(n)), words, a, tuple(roles),
                        None, None, None, 0.0, 0.0)


@pytest.fixture
def attention_only():
    source = GivesAttentionOnly()
    register_source(source)
    yield source
    unregister_source(source.name)


# ----- sinks -----------------------------------------------------------------------------------
def test_the_sink_page_of_the_course_model_and_its_first_token_dropped(qtbot, make_window):
    from explorer.core import forward
    window = make_window()
    page = show_page(qtbot, window, "sinks")
    result = window.state.result
    first, _seps = page.curves()
    assert_close(first, numpy_first_share(result.weights[None], result.config.causal), dtype="float64")
    page.variant.buttons["drop_first"].click()  # recomputed in the background on the edited sentence
    settle(qtbot, window)
    dropped = forward(result.config.replace(tokens=result.config.tokens[1:]))
    first, _seps = page.curves()
    assert_close(first, numpy_first_share(dropped.weights[None], False), dtype="float64")
    assert window.insight.result("sinks").labels == result.config.tokens[1:]
    assert "Tokens read: " + " ".join(result.config.tokens[1:]) in page.summary.text()


def test_minilm_without_its_first_token_cls(qtbot, make_window):
    from explorer.core.learned.analysis import run
    model = needs("minilm-l6")
    window = make_window()
    choose(qtbot, window, "minilm-l6", SENTENCE)
    page = show_page(qtbot, window, "sinks")
    a = window.learned.analysis
    first, seps = page.curves()
    assert_close(first, numpy_first_share(a.attentions, False), dtype="float32")
    sep = a.labels.index("[SEP]")
    assert_close(seps, a.attentions[:, :, :, sep].astype(np.float64).mean(axis=(1, 2)), dtype="float32")
    assert page.summary.text().startswith("First token [CLS]:")
    page.variant.buttons["drop_first"].click()
    settle(qtbot, window)
    ids = list(a.ids[1:])  # the sentence without [CLS], through the model's own forward
    expected = run(model, model.tokenizer.encode_ids(ids)).attentions
    first, _seps = page.curves()
    assert_close(first, numpy_first_share(expected, False), dtype="float32")
    assert window.insight.result("sinks").labels[0] == "the"
    page.variant.buttons["repeat_first"].click()
    settle(qtbot, window)
    assert window.insight.result("sinks").labels[:2] == ("[CLS]", "[CLS]")


# ----- rollout and flow ------------------------------------------------------------------------
def test_rollout_per_layer_against_numpy_and_flow_where_small_enough(qtbot, make_window):
    from explorer.core.insight import attention_flow
    needs("minilm-l6")
    window = make_window()
    choose(qtbot, window, "minilm-l6", SENTENCE)  # 8 tokens: flow fits 6 layers
    page = show_page(qtbot, window, "rollout")
    attentions = window.learned.analysis.attentions  # (6, 12, 8, 8)
    expected = numpy_rollout(attentions)
    n = attentions.shape[-1]
    assert page.slider.maximum() == 5 and page.slider.value() == 5  # after the last layer
    assert_close(page.matrix(), expected[5], dtype="float32", reduction=6 * n)
    page.slider.setValue(2)
    assert window.insight.rollout_layer == 2
    assert_close(page.matrix(), expected[2], dtype="float32", reduction=3 * n)
    page.mode.buttons[True].click()  # flow, computed in the background for layer 2
    settle(qtbot, window)
    np.testing.assert_array_equal(page.matrix(), attention_flow(attentions, 2).weights)
    assert "maximum flow" in page.note.text()


def test_flow_says_why_not_for_a_long_sequence(qtbot, make_window):
    needs("minilm-l6")
    window = make_window()
    choose(qtbot, window, "minilm-l6", " ".join(["word"] * 20))  # 22 tokens > 14 at 6 layers
    page = show_page(qtbot, window, "rollout")
    page.mode.buttons[True].click()
    settle(qtbot, window)
    assert "attention flow is computed up to 14 tokens at 6 layers" in page.note.text()
    assert_close(page.matrix(), numpy_rollout(window.learned.analysis.attentions)[5], dtype="float32",
                 reduction=6 * 22)  # the rollout stays


# ----- value-weighted --------------------------------------------------------------------------
def test_value_norms_of_minilm_are_the_core_capture(qtbot, make_window):
    from explorer.core.insight import captured_run, norm_disagreement, value_norms
    model = needs("minilm-l6")
    window = make_window()
    choose(qtbot, window, "minilm-l6", SENTENCE)
    window.learned.set_layer(3)
    page = show_page(qtbot, window, "values")
    page.head.setValue(7)
    captured = captured_run(model, model.tokenizer.encode_ids(list(window.learned.analysis.ids)))
    norms = value_norms(captured.attentions, captured.key_norms)  # (6, 12, n, n)
    alpha, drawn, tv = page.drawn()
    # Two forward passes (the window's, on its runner, and this one): torch's thread count is
    # process-wide and the compute worker caps it when torch loads, so the two may have run with
    # different counts and differ in the last bits: the tolerance rule, through the layers run.
    n = alpha.shape[-1]

    def through(layers: int) -> int:  # as tests/learned/model_rounding.py's through_layers
        return layers * (model.spec.d_model + 2 * n)

    assert_close(alpha, captured.attentions[3, 7], dtype="float32", reduction=through(4))
    assert_close(drawn, norms[3, 7], dtype="float32", reduction=through(4))
    assert_close(tv, norm_disagreement(captured.attentions, norms)[3], dtype="float32",
                 reduction=through(4) + n)
    assert "layer 3" in page.where.text() and page.note.text().startswith("Head 7: disagreement")
    before = window.learned.analysis
    window.learned.set_layer(1)  # the Heads tab's layer: sliced, nothing recomputed
    assert window.learned.analysis is before
    assert_close(page.drawn()[1], norms[1, 7], dtype="float32", reduction=through(2))


def test_value_norms_of_the_course_model(qtbot, make_window):
    from explorer.core.insight import course_value_norms
    window = make_window()
    page = show_page(qtbot, window, "values")
    np.testing.assert_array_equal(page.drawn()[1], course_value_norms(window.state.result)[0, 0])


def test_a_source_without_values_says_so_in_one_line(qtbot, make_window, attention_only):
    window = make_window()
    choose(qtbot, window, "attention-only", "one two three four five")
    show_page(qtbot, window, "values")
    text = window.inside_view.message.text()
    assert "attention-only gives its attention only" in text and "\n" not in text
    assert window.insight.result("values") is None
    page = show_page(qtbot, window, "sinks")  # its attention still gives the sinks
    assert_close(page.curves()[0], numpy_first_share(window.learned.analysis.attentions, False), dtype="float32")
    page.variant.buttons["drop_first"].click()  # nothing to load: its text edited, analysed again
    settle(qtbot, window)
    assert window.insight.result("sinks").labels == ("two", "three", "four", "five")


# ----- logit lens ------------------------------------------------------------------------------
def test_the_logit_lens_table_of_smollm2(qtbot, make_window):
    from explorer.core.insight import captured_run, logit_lens
    model = needs("smollm2-135m")
    window = make_window()
    choose(qtbot, window, "smollm2-135m", "The capital of France is Paris")
    page = show_page(qtbot, window, "lens")
    ids = list(window.learned.analysis.ids)
    n = len(ids)
    captured = captured_run(model, model.tokenizer.encode_ids(ids))
    start = max(0, n - 10)
    lens = logit_lens(model, captured.hidden_states, n, positions=list(range(start, n)))
    cells = page.cells()
    assert len(cells) == 31 and len(cells[0]) == n - start  # embeddings + 30 layers
    for col in range(n - start):
        names = model.tokenizer.encode_ids([int(i) for i in lens.top_ids[:, col]]).labels
        for row in range(31):
            marked = row == lens.first_row[col]
            assert cells[row][col].startswith("★ ") == marked
            assert cells[row][col].removeprefix("★ ") == display_token(names[row], 12)
    p = page.table.item(30, 0).data(0x0100)  # Qt.UserRole: the probability the cell is shaded by
    assert_close(p, lens.top_p[30, 0], dtype="float32")
    page.back.click()  # an earlier window of positions, computed again
    settle(qtbot, window)
    assert page.start.value() == max(0, start - 10) and window.insight.result("lens").positions[0] == page.start.value()


def test_an_encoder_and_the_course_model_have_no_logit_lens(qtbot, make_window):
    window = make_window()
    show_page(qtbot, window, "lens")
    assert "the logit lens needs a decoder" in window.inside_view.message.text()
    needs("minilm-l6")
    choose(qtbot, window, "minilm-l6")
    settle(qtbot, window)
    assert window.inside_view.message.text() == "minilm-l6 is an encoder: the logit lens needs a decoder"


def test_nothing_computes_while_the_tab_is_hidden_and_a_language_switch_recomputes_nothing(qtbot, make_window):
    from explorer.gui.plotting.i18n import switch_language
    window = make_window()
    page = show_page(qtbot, window, "sinks")
    shown = window.insight.result("sinks")
    window.tabs.setCurrentWidget(window.heads_grid)
    window.insight.variant = "repeat_first"
    assert window.insight.is_idle() and window.insight.result("sinks") is None  # asked for nothing
    window.tabs.setCurrentWidget(window.inside_view)
    settle(qtbot, window)
    assert window.insight.result("sinks").labels[0] == window.insight.result("sinks").labels[1]
    before = window.insight.result("sinks")
    switch_language("ko")
    switch_language("en")
    assert window.insight.is_idle() and window.insight.result("sinks") is before
    assert page.summary.text().startswith("First token ") and shown is not before


# ----- the Train tab's model: integer tokens, nothing to load ----------------------------------
@pytest.fixture
def trained():
    from explorer.app.models.learned import forget_trained, register_trained
    from explorer.core.training import TrainConfig
    from explorer.core.training.model import build_model
    config = TrainConfig(steps=1, batch=2, d_model=16, n_heads=2, seed=1)
    forget_trained()
    register_trained(build_model(config), config, 0)
    yield
    forget_trained()


def test_the_trained_model_through_the_same_interface(qtbot, make_window, trained):
    window = make_window()
    window.install_learned()
    window.learned.set_text("3 1 4 1 5 9 2 6")
    choose(qtbot, window, "trained")
    page = show_page(qtbot, window, "sinks")
    a = window.learned.analysis
    assert_close(page.curves()[0], numpy_first_share(a.attentions, True), dtype="float32")
    page.variant.buttons["drop_first"].click()  # its text is its tokens: the first id left out
    settle(qtbot, window)
    assert window.insight.result("sinks").labels == tuple(a.labels[1:])
    show_page(qtbot, window, "values")
    assert "gives its attention only" in window.inside_view.message.text()
    window.sampling.mode = "sample"
    window.tabs.setCurrentWidget(window.generation_view)
    errors = []
    window.learned.error.connect(errors.append)
    window.generation_view.button.click()
    qtbot.waitUntil(lambda: bool(errors) and window.learned.is_idle(), timeout=SETTLE_MS)
    assert errors[-1].startswith("the trained model generates greedily here")
