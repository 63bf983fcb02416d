"""What the training curves show (Qt-free, for the Train view and the CLI).

Written like the topic texts (explorer/gui/topics/texts.py): a few sentences each, in English
here, marked for the catalogue (context "training.texts"); the Korean is their translation in
resources/i18n/attention_explorer_ko.ts, shown in the Train view through Qt's translator.
Numbers and formulas are written the same way in both languages. A {threshold} in a body is
filled in by `TrainingText.body` (the switch threshold the code uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..messages import QT_TRANSLATE_NOOP
from .scores import SWITCH_THRESHOLD

CONTEXT = "training.texts"


def _english(context: str, text: str) -> str:
    return text


@dataclass(frozen=True)
class TrainingText:
    key: str
    title_en: str  # the English sources
    body_en: str

    def title(self, translate: Callable[[str, str], str] = _english) -> str:
        return translate(CONTEXT, self.title_en)

    def body(self, translate: Callable[[str, str], str] = _english) -> str:
        """The body through `translate` (the UI's; English by default), its numbers filled in."""
        return translate(CONTEXT, self.body_en).format(threshold=f"{SWITCH_THRESHOLD:g}")


TEXTS: dict[str, TrainingText] = {t.key: t for t in (
    TrainingText(
        "curves", QT_TRANSLATE_NOOP("training.texts", "Loss and accuracy"),
        QT_TRANSLATE_NOOP("training.texts",
                          "The model is a 2-layer transformer made of attention heads only (no MLP, no LayerNorm), "
                          "trained to copy: each sequence holds a random segment of 5–15 tokens and, later at a random "
                          "place, the same segment again. The loss counts only the repeated part. Train loss is the "
                          "batch just trained on; held-out loss and accuracy come from a fixed batch the model never "
                          "trains on. Within a few dozen steps the loss falls to about ln(vocab) (ln 64 ≈ 4.16: no "
                          "better than guessing), stays on that plateau, then falls steeply within a few dozen steps "
                          "while the accuracy jumps: the model has found a way to copy.")),
    TrainingText(
        "heads", QT_TRANSLATE_NOOP("training.texts", "Heads on the probe"),
        QT_TRANSLATE_NOOP("training.texts",
                          "Every head's attention is drawn on one fixed probe: L = 3/8 · seq_len distinct random tokens "
                          "(12 for 32), then the same L tokens again. The probe never changes, so frames from different "
                          "steps can be compared. A previous-token head shows a line just below the diagonal (each "
                          "token looks one back). An induction head shows, in the second half, a line L − 1 below the "
                          "diagonal: token i looks at the token right after the earlier copy of itself — the token it "
                          "must predict.")),
    TrainingText(
        "scores", QT_TRANSLATE_NOOP("training.texts", "Role scores and switch steps"),
        QT_TRANSLATE_NOOP("training.texts",
                          "Previous-token score = mean over i ≥ 1 of A[i, i − 1]; induction score = mean over the "
                          "second-half positions i of A[i, i − L + 1]. A perfect head scores 1; a fresh model's nearly "
                          "uniform attention scores about 0.1 and 0.05. A head's switch step (the mark on its curve) is "
                          "the first logged step from which its score stays ≥ {threshold} at every later logged step, "
                          "so a blip that falls back does not count.")),
    TrainingText(
        "phase_change", QT_TRANSLATE_NOOP("training.texts", "The phase change"),
        QT_TRANSLATE_NOOP("training.texts",
                          "Copying needs two heads working together: in layer 0 a previous-token head writes into each "
                          'position "the token before me was t"; in layer 1 an induction head matches the current token '
                          "against that information and attends to the position after the earlier t. Neither head helps "
                          "the loss alone, so for a while nothing happens; then both form together within a few dozen "
                          "steps and the loss drops at the same moment. That abrupt, joint change is the phase change "
                          '(Olsson et al. 2022, "In-context learning and induction heads").')),
    TrainingText(
        "fixed_offset", QT_TRANSLATE_NOOP("training.texts", "Pitfall: a fixed offset"),
        QT_TRANSLATE_NOOP("training.texts",
                          "If the copy always starts at the same place (here: the segment at 0, its copy at seq_len / "
                          '2), the model needs no induction head: "look seq_len / 2 − 1 positions back" is a purely '
                          "positional rule one head learns from the position embeddings. The loss falls just as well, "
                          "but no previous-token or induction head forms, and the model fails on copies anywhere else. "
                          "A random offset leaves matching tokens as the only way to solve it.")),
)}

# What each task asks, for a task menu: key -> English title (marked; shown translated).
TASK_TITLES: dict[str, str] = {
    "induction": QT_TRANSLATE_NOOP("training.texts", "Copy a repeated segment (random offset: induction)"),
    "induction-fixed": QT_TRANSLATE_NOOP("training.texts", "Copy a repeated segment at a fixed offset (pitfall: a positional head)"),
    "previous-token": QT_TRANSLATE_NOOP("training.texts", "Output the previous token"),
    "reverse": QT_TRANSLATE_NOOP("training.texts", "Reverse a list of 10 tokens"),
    "sort": QT_TRANSLATE_NOOP("training.texts", "Sort a list of 10 tokens"),
}
