"""Sampling's stages against transformers' own processors (TemperatureLogitsWarper, TopKLogitsWarper,
TopPLogitsWarper, applied in generate's order), and sampled generation on a tiny Llama."""

import math

import numpy as np
import pytest

from explorer.core.config import ConfigError
from explorer.core.insight import Sampler, SamplingSettings, sampling_steps
from explorer.core.learned.generation import run_generation
from numeric import assert_close

VOCAB = 400
CASES = [  # (temperature, top_k, top_p)
    (1.0, None, None), (0.7, None, None), (1.8, None, None), (1.0, 40, None), (1.0, 1, None),
    (1.0, None, 0.9), (1.0, None, 0.3), (0.8, 40, 0.9), (2.5, 200, 0.5), (0.5, 5, 0.99), (1.3, None, 1.0),
    (1.0, VOCAB + 10, None),
]


def hf_stages(logits, temperature, top_k, top_p):
    """transformers' processed scores after each processor it would add (generate's rules)."""
    import torch
    from transformers.generation.logits_process import (TemperatureLogitsWarper, TopKLogitsWarper,
                                                        TopPLogitsWarper)
    scores = torch.as_tensor(logits)[None]  # (1, vocab) float32
    ids = torch.zeros((1, 1), dtype=torch.long)
    out = {}
    if temperature != 1.0:
        scores = TemperatureLogitsWarper(temperature)(ids, scores)
    out["temperature"] = scores
    if top_k is not None:
        scores = TopKLogitsWarper(top_k)(ids, scores)
    out["top_k"] = scores
    if top_p is not None and top_p < 1.0:
        scores = TopPLogitsWarper(top_p)(ids, scores)
    out["top_p"] = scores
    return {name: (torch.isfinite(s[0]).numpy(), torch.softmax(s[0].double(), -1).numpy()) for name, s in out.items()}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("temperature, top_k, top_p", CASES)
def test_kept_sets_and_renormalised_probabilities_equal_transformers(seed, temperature, top_k, top_p):
    pytest.importorskip("transformers", reason="transformers' processors are the oracle")
    logits = (np.random.default_rng(seed).standard_normal(VOCAB) * 3).astype(np.float32)
    steps = sampling_steps(logits, SamplingSettings(temperature=temperature, top_k=top_k, top_p=top_p, seed=seed))
    theirs = hf_stages(logits, temperature, top_k, top_p)
    assert [s.name for s in steps.stages] == ["model", "temperature", "top_k", "top_p"]
    for stage in steps.stages[1:]:
        kept, probs = theirs[stage.name]
        np.testing.assert_array_equal(stage.kept, kept, err_msg=stage.name)
        # the scores are float32 in transformers (the logits / T), float64 here
        assert_close(stage.probs, probs, dtype="float32", reduction=VOCAB, scale=float(np.abs(logits).max()) / temperature)
        assert_close(stage.probs.sum(), 1.0, dtype="float64", reduction=VOCAB)
    final = steps.stages[-1]
    assert final.kept[steps.token] and steps.probability == final.probs[steps.token]
    assert set(steps.kept.tolist()) == set(np.flatnonzero(final.kept).tolist())
    if top_k is not None:
        assert final.kept.sum() <= top_k


def test_the_draws_follow_the_final_distribution():
    """Statistical, not rounding: 20,000 seeded draws against the kept tokens' probabilities."""
    logits = np.random.default_rng(5).standard_normal(50).astype(np.float32)
    sampler = Sampler(SamplingSettings(temperature=0.9, top_k=10, top_p=0.95, seed=11))
    probs = sampling_steps(logits, sampler.settings).stages[-1].probs
    counts = np.bincount([sampler(logits) for _ in range(20_000)], minlength=50)
    assert counts[probs == 0].sum() == 0  # never a removed token
    expected = probs * 20_000
    sigma = np.sqrt(expected * (1 - probs))
    assert np.all(np.abs(counts - expected) <= 5 * sigma + 1)


def test_greedy_takes_the_likeliest_and_a_seed_repeats():
    logits = np.random.default_rng(1).standard_normal(VOCAB).astype(np.float32)
    greedy = sampling_steps(logits, SamplingSettings(greedy=True))
    assert greedy.token == int(np.argmax(logits)) and greedy.kept.tolist() == [greedy.token]
    settings = SamplingSettings(temperature=1.5, seed=7)
    a, b = Sampler(settings), Sampler(settings)
    assert [a(logits) for _ in range(20)] == [b(logits) for _ in range(20)]
    assert len({Sampler(SamplingSettings(temperature=1.5, seed=s))(logits) for s in range(20)}) > 3


@pytest.mark.parametrize("field, value", [
    ("temperature", 0), ("temperature", -1.0), ("temperature", math.nan), ("temperature", math.inf),
    ("top_k", 0), ("top_k", -3), ("top_k", True), ("top_k", 2.5),
    ("top_p", 0.0), ("top_p", 1.5), ("top_p", -0.1), ("top_p", math.nan), ("seed", -1), ("seed", 2 ** 33)])
def test_bad_settings_are_one_line(field, value):
    with pytest.raises(ConfigError) as info:
        SamplingSettings(**{field: value})
    assert "\n" not in str(info.value) and str(value) in str(info.value)


def test_sampled_generation_is_seeded_and_draws_from_the_kept_set(tiny_pair):
    import torch
    pair = tiny_pair("llama")
    model, tokens = pair.model, pair.model.tokenizer("the cat sat on")
    settings = SamplingSettings(temperature=1.3, top_k=30, top_p=0.9, seed=4)
    sampler = Sampler(settings)
    _, _, generated = run_generation(model, tokens, 8, check=False, choose=sampler)
    _, _, again = run_generation(model, tokens, 8, check=False, choose=Sampler(settings))
    assert generated.ids == again.ids and len(sampler.steps) == 8
    ids = list(tokens.ids) + list(generated.ids)
    with torch.inference_mode():
        logits = model.weights.forward(ids)["logits"].numpy()  # (n, vocab): row t predicts t + 1
    n = len(tokens.ids)
    for k, (token, step) in enumerate(zip(generated.ids, sampler.steps)):
        steps = sampling_steps(logits[n - 1 + k], settings)
        assert steps.stages[-1].kept[token] and step.token == token
        assert step.kept == steps.stages[-1].kept.sum()
        assert_close(step.probability, steps.stages[-1].probs[token], dtype="float32",
                     reduction=model.spec.layers * model.spec.d_model)


def test_greedy_generation_is_unchanged(tiny_pair):
    pair = tiny_pair("llama")
    tokens = pair.model.tokenizer("the dog sat on")
    _, _, plain = run_generation(pair.model, tokens, 6, check=False)
    _, _, chosen = run_generation(pair.model, tokens, 6, check=False, choose=Sampler(SamplingSettings(greedy=True)))
    assert plain.ids == chosen.ids
