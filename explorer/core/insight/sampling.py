"""The next token: greedy, or sampled after temperature, top-k and top-p, with a seed.

transformers applies its sampling processors in this order (generation/utils.py,
_get_logits_processor; logits_process.py): TemperatureLogitsWarper (scores / T), TopKLogitsWarper
(every token whose score is below the k-th largest is removed: ties with it stay), then
TopPLogitsWarper (sorted ascending, a token is removed while the cumulative probability up to it
is at most 1 − p; the likeliest always stays). Here the same, in float64 on the model's float32
logits, and each stage's distribution is kept so the Generate tab can draw what each step did:

    steps = sampling_steps(logits, SamplingSettings(temperature=0.8, top_k=40, top_p=0.9, seed=1))
    [(s.name, s.probs, s.kept) for s in steps.stages]   # model, temperature, top_k, top_p
    steps.token, steps.probability                        # what was drawn, its final probability

A stage that is not asked for (top_k None, top_p None or 1, temperature 1) keeps every token and
changes nothing (`applied` False). Greedy takes the likeliest token and draws nothing.
`Sampler(settings)` is the chooser core.learned.generation.run_generation takes: one seeded
generator for the whole generation, a compact record of each step in `steps`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..config import SEED_MAX, ConfigError
from ..messages import QT_TRANSLATE_NOOP

STAGES = ("model", "temperature", "top_k", "top_p")
TOP_RECORDED = 20  # tokens per step a Sampler keeps (the likeliest under the model)

BAD_TEMPERATURE = QT_TRANSLATE_NOOP("core", "the temperature must be a number above 0, not {value}")
BAD_TOP_K = QT_TRANSLATE_NOOP("core", "top-k must be a whole number of at least 1, not {value}")
BAD_TOP_P = QT_TRANSLATE_NOOP("core", "top-p must be above 0 and at most 1, not {value}")
BAD_SEED = QT_TRANSLATE_NOOP("core", "the sampling seed must be 0..{limit}, not {value}")


@dataclass(frozen=True)
class SamplingSettings:
    """How the next token is chosen; checked when made (ConfigError, one line)."""

    greedy: bool = False
    temperature: float = 1.0
    top_k: int | None = None        # None: no top-k
    top_p: float | None = None      # None (or 1): no top-p
    seed: int = 0

    def __post_init__(self):
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
            raise ConfigError.of(BAD_TEMPERATURE, value=t)
        k = self.top_k
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise ConfigError.of(BAD_TOP_K, value=k)
        p = self.top_p
        if p is not None and (isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1):
            raise ConfigError.of(BAD_TOP_P, value=p)
        s = self.seed
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= SEED_MAX:
            raise ConfigError.of(BAD_SEED, limit=SEED_MAX, value=s)

    def to_dict(self) -> dict:
        return {"mode": "greedy" if self.greedy else "sample", "temperature": self.temperature,
                "top_k": self.top_k, "top_p": self.top_p, "seed": self.seed}


@dataclass(frozen=True)
class Stage:
    name: str               # one of STAGES
    probs: np.ndarray       # (vocab,) float64, renormalised over the kept tokens
    kept: np.ndarray        # (vocab,) bool
    applied: bool           # False: this stage was not asked for (it kept everything)


@dataclass(frozen=True)
class SamplingSteps:
    stages: tuple[Stage, ...]
    token: int
    probability: float      # the token's probability in the last stage (greedy: the model's)
    greedy: bool = False

    @property
    def n_kept(self) -> int:
        return 1 if self.greedy else int(self.stages[-1].kept.sum())

    @property
    def kept(self) -> np.ndarray:
        """The ids the token was drawn from, likeliest first (greedy: the token alone)."""
        if self.greedy:
            return np.array([self.token])
        final = self.stages[-1]
        ids = np.flatnonzero(final.kept)
        return ids[np.argsort(-final.probs[ids], kind="stable")]


def softmax(scores: np.ndarray) -> np.ndarray:
    """float64 softmax over the last axis; -inf scores get probability 0."""
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def top_k_kept(scores: np.ndarray, k: int) -> np.ndarray:
    """(vocab,) bool: TopKLogitsWarper's rule, scores at or above the k-th largest."""
    k = min(k, scores.shape[-1])
    threshold = np.partition(scores, -k)[-k]
    return scores >= threshold


def top_p_kept(scores: np.ndarray, p: float) -> np.ndarray:
    """(vocab,) bool: TopPLogitsWarper's rule on `scores` (-inf = removed already)."""
    order = np.argsort(scores, kind="stable")  # ascending
    cumulative = np.cumsum(softmax(scores[order]))
    removed = cumulative <= 1 - p
    removed[-1] = False  # the likeliest always stays
    kept = np.ones(scores.shape, bool)
    kept[order[removed]] = False
    return kept & np.isfinite(scores)


def sampling_steps(logits, settings: SamplingSettings, rng: np.random.Generator | None = None) -> SamplingSteps:
    """Each stage's distribution for `logits` (vocab,) and the token chosen (module docstring);
    `rng`: the generator to draw with (default: a fresh one seeded by settings.seed)."""
    scores = np.asarray(logits, dtype=np.float64).reshape(-1)  # (vocab,)
    everything = np.ones(scores.shape, bool)
    model = Stage("model", softmax(scores), everything, True)
    if settings.greedy:
        token = int(np.argmax(scores))
        skipped = tuple(Stage(name, model.probs, everything, False) for name in STAGES[1:])
        return SamplingSteps((model, *skipped), token, float(model.probs[token]), greedy=True)
    scores = scores / settings.temperature
    stages = [model, Stage("temperature", softmax(scores), everything, settings.temperature != 1.0)]
    for name, applied, rule in (("top_k", settings.top_k is not None, lambda s: top_k_kept(s, settings.top_k)),
                                ("top_p", settings.top_p is not None and settings.top_p < 1,
                                 lambda s: top_p_kept(s, settings.top_p))):
        if applied:
            scores = np.where(rule(scores), scores, -np.inf)
        stages.append(Stage(name, softmax(scores), np.isfinite(scores), applied))
    final = stages[-1].probs
    rng = np.random.default_rng(settings.seed) if rng is None else rng
    cdf = np.cumsum(final)
    token = int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), len(cdf) - 1))
    return SamplingSteps(tuple(stages), token, float(final[token]))


@dataclass(frozen=True)
class SampledStep:
    """What a Sampler keeps of one step: the token, its final probability, how many were kept,
    and the TOP_RECORDED likeliest tokens under the model with each stage's probability."""

    token: int
    probability: float
    kept: int
    top: tuple[tuple[int, tuple[float, ...]], ...]   # (id, (p per stage in STAGES order))

    def to_dict(self) -> dict:
        return {"token": self.token, "p": round(self.probability, 6), "kept": self.kept,
                "top": [{"id": i, **{name: round(p, 6) for name, p in zip(STAGES, ps)}} for i, ps in self.top]}


@dataclass
class Sampler:
    """A chooser for run_generation: logits (vocab,) (numpy or torch) -> the next token id."""

    settings: SamplingSettings
    steps: list[SampledStep] = field(default_factory=list)

    def __post_init__(self):
        self._rng = np.random.default_rng(self.settings.seed)

    def __call__(self, logits) -> int:
        if hasattr(logits, "detach"):  # a torch tensor
            logits = logits.detach().float().cpu().numpy()
        steps = sampling_steps(logits, self.settings, self._rng)
        model = steps.stages[0].probs
        top = np.argsort(-model, kind="stable")[:TOP_RECORDED]
        self.steps.append(SampledStep(steps.token, steps.probability, steps.n_kept,
                                      tuple((int(i), tuple(float(s.probs[i]) for s in steps.stages)) for i in top)))
        return steps.token
