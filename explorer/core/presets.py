"""Named starting points. `course-lab3` is the course's Lab 3 setting, number for number."""

from __future__ import annotations

from dataclasses import dataclass

from .config import COURSE_SENTENCE, AttentionConfig
from .messages import QT_TRANSLATE_NOOP
from .messages import QT_TRANSLATE_NOOP

_LONG_SENTENCE = tuple("the cat that the dog chased ran up the old tree and sat there".split())


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    config: AttentionConfig


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("course-lab3", QT_TRANSLATE_NOOP("presets", "Course Lab 3 (나는 학교에 버스로 갔다)"),
           QT_TRANSLATE_NOOP("presets", "d_model 8, 2 heads, seed 1, scaled: the numbers printed in the course."),
           AttentionConfig(tokens=COURSE_SENTENCE, d_model=8, n_heads=2, seed=1, scaled=True)),
    Preset("saturated-softmax", QT_TRANSLATE_NOOP("presets", "No scaling at d_model 512 (saturated softmax)"),
           QT_TRANSLATE_NOOP("presets", "Weights start at 1/√d_model, as in real models, so q·k has variance d_head = 256. "
                                        "Without ÷√d_head, softmax puts almost all weight on one key."),
           AttentionConfig(tokens=COURSE_SENTENCE, d_model=512, n_heads=2, seed=1, scaled=False,
                           init="unit")),
    Preset("scaled-512", QT_TRANSLATE_NOOP("presets", "Scaled at d_model 512 (compare with the one above)"),
           QT_TRANSLATE_NOOP("presets", "The same weights with ÷√d_head: score variance is back to 1 and the weights spread out. "
                                        "(With the course's ×0.5 weights scores grow with d_model too, and even scaled "
                                        "softmax saturates: switch the weight init to see it.)"),
           AttentionConfig(tokens=COURSE_SENTENCE, d_model=512, n_heads=2, seed=1, scaled=True,
                           init="unit")),
    Preset("causal-decoder", QT_TRANSLATE_NOOP("presets", "Causal decoder (GPT-style mask)"),
           QT_TRANSLATE_NOOP("presets", "Each token attends only to itself and earlier tokens: the upper triangle is masked."),
           AttentionConfig(tokens=_LONG_SENTENCE, d_model=64, n_heads=4, seed=1, causal=True)),
    Preset("padding", QT_TRANSLATE_NOOP("presets", "Padding mask"),
           QT_TRANSLATE_NOOP("presets", "The last two tokens are padding: no query may attend to them."),
           AttentionConfig(tokens=COURSE_SENTENCE + ("<pad>", "<pad>"), d_model=8, n_heads=2,
                           seed=1, padding=frozenset({4, 5}))),
    Preset("many-heads", QT_TRANSLATE_NOOP("presets", "Eight heads, one sentence"),
           QT_TRANSLATE_NOOP("presets", "d_model 64 split into 8 heads of 8: each head finds its own pattern."),
           AttentionConfig(tokens=_LONG_SENTENCE, d_model=64, n_heads=8, seed=3)),
)}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        from .config import QT_TRANSLATE_NOOP, ConfigError
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown preset {value} (choose {choices})"),
                             value=repr(name), choices=", ".join(PRESETS)) from None
