"""What the insight views compute from, for every source through the one interface.

    inputs = inputs_now(shown, state)            # None until the shown source has a picture
    inputs.attentions                            # (layers, heads, n, n): the course model's one layer too
    edited_run(inputs, "drop_first", device)     # the same source on its tokens without the first
    model, captured = captured_for(inputs, device)   # values, key norms, hidden states

Three things a view may need beyond the attention, each asked of the source, never by its kind:

- a run on edited tokens (the sink view's "drop / repeat the first token"): the course model
  computes its sliders' config on the edited sentence; a source whose `load` gives a model with
  a tokenizer (the bundled models, own checkpoints, adapters) runs its forward on the edited ids;
  any other (the trained model, whose text is its integer tokens; a test's fake source) analyses
  the edited tokens joined as its text;
- a captured run (value norms, the logit lens): a loaded model whose forward can capture
  (core.insight.can_capture); a model run through transformers cannot (one line says so), a
  source that loads no model (the trained one) neither;
- the course model's values come from its own AttentionResult (core.insight.course_value_norms).

Jobs run on the insight runner; `captured_for` keeps the last captured run (the value and lens
views share it). Qt-free; torch only inside the runs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ...core.config import ConfigError
from ..i18n import QT_TRANSLATE_NOOP
from ..models.sources import source_for

VARIANTS = ("as_is", "drop_first", "repeat_first")
NO_MODEL = QT_TRANSLATE_NOOP(
    "core", "{model} gives its attention only (no value vectors, no hidden states): value norms and "
    "the logit lens need a model the app runs itself")
ONE_TOKEN = QT_TRANSLATE_NOOP("core", "one token only: there is no first token to drop")
OTHER_AXES = QT_TRANSLATE_NOOP("core", "{model}: its run on edited tokens has other axes than its tokens "
                               "(virtual tokens): the sink shares are shown as they are")


@dataclass(frozen=True, eq=False)
class Inputs:
    """The shown source's attention over its tokens (compared by identity: one per picture)."""

    source: str                   # the registry name (app.models.sources)
    title: str                    # how a sentence names it, in the UI language
    attentions: np.ndarray        # (layers, heads, n, n), padding included
    labels: tuple[str, ...]       # readable tokens (axis labels), n of them
    pieces: tuple[str, ...]       # the tokenizer's own pieces (() for the course and trained models)
    ids: tuple[int, ...]          # the token ids (the text's only: no virtual tokens)
    n_real: int                   # positions before the padding
    padding: int                  # padding tokens at the end of ids
    decoder: bool                 # causal attention (a decoder, the course's causal switch)
    course: object = None         # the course model's AttentionResult (its one layer)
    analysis: object = None       # a model's Analysis (app.models.learned)

    @property
    def layers(self) -> int:
        return self.attentions.shape[0]

    @property
    def real(self) -> np.ndarray:
        """(layers, heads, n_real, n_real): the real tokens' rows and columns."""
        n = self.n_real
        return self.attentions[:, :, :n, :n]


def inputs_now(shown, state) -> Inputs | None:
    """What the shown source gives now (app.shown.Shown; `state` the course model's AppState)."""
    source = shown.source
    if shown.course:
        result = state.result
        if result is None:
            return None
        n = len(result.tokens)
        return Inputs(source.name, source.title(), result.weights[None], tuple(result.tokens), (), (), n, 0,
                      bool(result.config.causal), course=result)
    a = shown.analysis
    if a is None:
        return None
    return Inputs(source.name, source.title(), a.attentions, tuple(a.labels), tuple(a.pieces), tuple(a.ids),
                  a.n_real, a.padding, a.spec.kind == "decoder", analysis=a)


def text_ids(inputs: Inputs) -> list[int]:
    """The ids the source read, padding left out."""
    return list(inputs.ids[:len(inputs.ids) - inputs.padding])


def edit(sequence: list, variant: str) -> list:
    """The sequence without its first item, with it twice, or as it is."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    if variant == "drop_first":
        if len(sequence) < 2:
            raise ConfigError.of(ONE_TOKEN)
        return sequence[1:]
    return [sequence[0], *sequence] if variant == "repeat_first" else list(sequence)


def model_of(source, device: str, should_stop=None):
    """The source's loaded model when it has one with a tokenizer (a core.learned LoadedModel or
    alike), else None (the trained model, a test's fake source: nothing to load)."""
    model = source.load(device, should_stop)
    return model if model is not None and hasattr(model, "tokenizer") else None


@dataclass(frozen=True)
class EditedRun:
    attentions: np.ndarray      # (layers, heads, n, n)
    labels: tuple[str, ...]
    pieces: tuple[str, ...]     # () where the source has none
    n_real: int


def edited_run(inputs: Inputs, variant: str, device: str, should_stop=None) -> EditedRun:
    """The shown source on its tokens edited by `variant` (module docstring: how each source does it)."""
    if variant == "as_is":
        return EditedRun(inputs.attentions, inputs.labels, inputs.pieces, inputs.n_real)
    if inputs.course is not None:
        return _course_run(inputs.course, variant)
    source = source_for(inputs.source)
    model = model_of(source, device, should_stop)
    if model is None:  # its tokens are words (integer tokens, a fake source's): edit its text
        text = " ".join(edit(list(inputs.labels[:inputs.n_real]), variant))
        a = source.analyse(device, text, "text", 0, 0, should_stop)
        return EditedRun(a.attentions, tuple(a.labels), tuple(a.pieces), a.n_real)
    from ...core.learned.analysis import run
    tokens = model.tokenizer.encode_ids(edit(text_ids(inputs), variant))
    result = run(model, tokens)
    a = result.attentions  # (layers, heads, n, n)
    if a.shape[-1] != a.shape[-2] or a.shape[-1] != len(tokens.ids):
        raise ConfigError.of(OTHER_AXES, model=inputs.title)
    return EditedRun(a, tuple(result.tokens.labels), tuple(result.tokens.pieces), len(tokens.ids))


def _course_run(result, variant: str) -> EditedRun:
    """The course model's sliders on the edited sentence (its padding positions moved along)."""
    from ...core import forward, validate
    config = result.config
    tokens = edit(list(config.tokens), variant)
    shift = -1 if variant == "drop_first" else 1
    padding = frozenset(p + shift for p in config.padding if 0 <= p + shift < len(tokens))
    edited = forward(validate(config.replace(tokens=tuple(tokens), padding=padding)))
    return EditedRun(edited.weights[None], tuple(edited.tokens), (), len(tokens))


_captured: dict = {}  # {(source, device, ids): (model, Captured)}: the last one (the insight runner's thread)
_captured_lock = threading.Lock()


def captured_for(inputs: Inputs, device: str, should_stop=None):
    """(loaded model, core.insight Captured over the source's own ids): values, key norms and
    hidden states; ConfigError with one line when the source cannot give them."""
    from ...core.insight import captured_run
    source = source_for(inputs.source)
    key = (inputs.source, device, tuple(text_ids(inputs)))
    with _captured_lock:
        if key in _captured:
            return _captured[key]
    model = model_of(source, device, should_stop)
    if model is None:
        raise ConfigError.of(NO_MODEL, model=inputs.title)
    captured = captured_run(model, model.tokenizer.encode_ids(list(key[2])))
    with _captured_lock:
        _captured.clear()
        _captured[key] = (model, captured)
    return model, captured
