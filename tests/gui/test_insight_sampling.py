"""Sampling in the Generate tab, on the real window with SmolLM2: the same seed draws the same
tokens twice; the bars of the first draw are core.insight's stages (temperature, top-k, top-p) of
the logits an independent full forward pass gives after the sentence, the drawn token marked;
greedy through the Sampler takes the model's own greedy tokens."""

from __future__ import annotations

import numpy as np
import pytest

from numeric import assert_close
from test_insight_views import SETTLE_MS, choose, needs

TEXT = "The capital of France is"


@pytest.fixture
def generate_tab(qtbot, make_window):
    model = needs("smollm2-135m")
    window = make_window()
    choose(qtbot, window, "smollm2-135m", TEXT)
    window.tabs.setCurrentWidget(window.generation_view)
    window.generation_view.count.setValue(4)
    return window, model


def generate(qtbot, window):
    before = window.learned.generation
    window.generation_view.button.click()
    qtbot.waitUntil(lambda: window.learned.generation is not None and window.learned.generation is not before
                    and window.learned.is_idle(), timeout=SETTLE_MS)
    return window.learned.generation


def test_a_seed_draws_the_same_tokens_twice_and_the_bars_are_the_stages(qtbot, generate_tab):
    import torch
    from explorer.core.insight import SamplingSettings, sampling_steps
    window, model = generate_tab
    panel = window.sampling_panel
    panel.mode.buttons["sample"].click()
    assert panel.view.isVisible() and panel.temperature.isEnabled()
    panel.temperature.setValue(2.0)
    panel.top_k.setValue(40)
    panel.top_p.setValue(0.95)
    panel.seed.setValue(7)
    settings = SamplingSettings(temperature=2.0, top_k=40, top_p=0.95, seed=7)  # flat: the seed matters
    assert window.sampling.settings() == settings
    first = generate(qtbot, window)
    again = generate(qtbot, window)
    assert len(first.generated) == 4 and again.generated == first.generated
    assert [s.token for s in again.sampling] == [s.token for s in first.sampling]
    # the first draw, after the sentence's last token
    window.generation_view.slider.setValue(first.prompt_tokens - 1)
    ids = list(model.tokenizer(TEXT).ids)
    with torch.inference_mode():
        logits = model.weights.forward(ids, None, None)["logits"][len(ids) - 1].float().numpy()  # (vocab,)
    steps = sampling_steps(logits, settings)
    scale = float(np.abs(logits).max())
    for stage in range(4):
        rows, drawn, red = panel.stage_bars(stage)
        assert_close(drawn, steps.stages[stage].probs[rows], dtype="float32", reduction=576 * 30, scale=scale)
        assert red == first.sampling[0].token
    assert first.sampling[0].kept == steps.n_kept and first.sampling[0].token == steps.token  # seed 7's first draw
    name = first.names[first.sampling[0].token]
    assert panel.caption.text().startswith(f"New token 1: {name} (p = ")
    assert "drawn with seed 7" in panel.caption.text()
    panel.seed.setValue(8)  # another seed: the settings change, the run records them
    other = generate(qtbot, window)
    assert other.settings.seed == 8 and len(other.sampling) == 4


def test_greedy_through_the_sampler_is_the_models_greedy(qtbot, generate_tab):
    from explorer.app.models.learned_generation import generate_pretrained
    window, _model = generate_tab
    panel = window.sampling_panel
    assert window.sampling.mode == "greedy" and not panel.view.isVisible()
    run = generate(qtbot, window)
    assert run.settings.greedy and run.generated == generate_pretrained("smollm2-135m", "cpu", TEXT, 4).generated
    window.generation_view.slider.setValue(run.prompt_tokens)
    rows, drawn, red = panel.stage_bars(0)
    assert red == run.sampling[1].token == rows[int(np.argmax(drawn))]  # greedy: the likeliest
    window.generation_view.slider.setValue(0)
    assert panel.caption.text().startswith("This step feeds a token of the sentence")
