"""Sampling in the Generate tab: the choice (greedy, temperature, top-k, top-p, seed) and the run.

    choice = SamplingChoice()
    choice.mode, choice.temperature, choice.top_k, choice.top_p = "sample", 0.8, 40, 0.9
    learned.generate(8, job=choice.job())      # LearnedState's generation channel (latest wins)
    run.sampling[j]                             # SampledRun: what drawing generated token j saw

`sampled_generation` steps a decoder through the text with its real KV cache, as the Generate
tab always did, but chooses each new token with core.insight's Sampler (one seeded generator
for the whole run: the same seed gives the same tokens), keeping per draw the model's top tokens
and their probability after each stage (temperature, top-k, top-p) and their readable names. A
source that loads no model of its own (the trained one) generates greedily through its own
`generate`; asked to sample, it says so in one line. Qt-free; torch only inside the job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ...core.config import ConfigError
from ..i18n import QT_TRANSLATE_NOOP
from ..models.learned_generation import WINDOW_PRECISION, GenerationRun
from ..models.sources import source_for
from ..observable import Event, Field, Observable
from .inputs import model_of

MODES = ("greedy", "sample")
GREEDY_ONLY = QT_TRANSLATE_NOOP("core", "{model} generates greedily here: sampling needs a model the app "
                                "runs itself (a bundled decoder or an own checkpoint)")


def _mode(value: str) -> str:
    if value not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {value!r}")
    return value


class SamplingChoice(Observable):
    """How the Generate tab chooses its tokens; top_k 0 and top_p 1 switch those stages off."""

    mode = Field("greedy", _mode)
    temperature = Field(1.0, float)
    top_k = Field(0, int)
    top_p = Field(1.0, float)
    seed = Field(0, int)

    def __init__(self):
        super().__init__()
        for name in ("mode_changed", "temperature_changed", "top_k_changed", "top_p_changed", "seed_changed"):
            setattr(self, name, Event())

    def settings(self):
        """The core.insight SamplingSettings (ConfigError, one line, for a value out of range)."""
        from ...core.insight import SamplingSettings
        return SamplingSettings(greedy=self.mode == "greedy", temperature=self.temperature,
                                top_k=self.top_k or None, top_p=self.top_p if self.top_p < 1 else None,
                                seed=self.seed)

    def job(self):
        """LearnedState.generate's job for these settings (checked now, on the GUI thread)."""
        return partial(sampled_generation, self.settings())


@dataclass(frozen=True)
class SampledRun(GenerationRun):
    """A GenerationRun whose new tokens were chosen by a Sampler (module docstring)."""

    settings: object = None                 # core.insight SamplingSettings
    sampling: tuple = ()                    # core.insight SampledStep per generated token
    names: dict = field(default_factory=dict)  # token id -> readable name (every id in `sampling`)

    def draw_at(self, record: int):
        """The draw made after fed token `record` (the step slider's index), or None (a step of
        the text before its last token, or the last step)."""
        j = record - (self.prompt_tokens - 1)
        return self.sampling[j] if 0 <= j < len(self.sampling) else None


def sampled_generation(settings, name: str, device: str, text: str, k: int, should_stop=None,
                       fit: bool = False) -> GenerationRun | None:
    """The source `name` stepped through `text` and `k` tokens chosen by `settings` (module docstring)."""
    from ...core.insight import Sampler
    from ...core.learned.analysis import tokenize
    from ...core.learned.generation import run_generation
    source = source_for(name)
    model = model_of(source, device, should_stop) if source.capabilities.generation else None
    if model is None:
        if settings.greedy:
            return source.generate(device, text, k, should_stop, fit)
        raise ConfigError.of(GREEDY_ONLY, model=source.title())
    tokens = tokenize(model, text)
    if fit:
        k = max(0, min(k, model.spec.max_tokens - len(tokens.ids)))
    sampler = Sampler(settings)
    one_pass = not getattr(model, "virtual_tokens", 0)  # virtual tokens: each step its own pass
    precision = WINDOW_PRECISION if one_pass else "float32"  # virtual tokens: as adapter_generation
    records, cache, new = run_generation(model, tokens, k, check=True, keep_steps=True, should_stop=should_stop,
                                         one_pass=one_pass, choose=sampler, precision=precision)
    keys = np.stack([t.float().cpu().numpy() for t in cache.keys])      # (layers, kv, positions, d_head)
    values = np.stack([t.float().cpu().numpy() for t in cache.values])  # (layers, kv, positions, d_head)
    ids = sorted({i for step in sampler.steps for i, _ in step.top} | {step.token for step in sampler.steps})
    names = dict(zip(ids, model.tokenizer.encode_ids(ids).labels)) if ids else {}
    return SampledRun(name, len(tokens.ids), tuple(records), tuple(new.labels), model.tokenizer.decode(new.ids),
                      keys, values, text, model.spec, settings=settings, sampling=tuple(sampler.steps), names=names)
