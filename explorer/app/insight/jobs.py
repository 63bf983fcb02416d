"""The Inside attention tab's numbers: one job per view, run on the insight runner.

    sinks_view(inputs, "drop_first", "cpu")      # SinkView: shares per layer of the edited tokens
    rollout_view(inputs)                         # RolloutView: R_l for every layer
    flow_view(inputs, layer)                     # core.insight Flow (weights None + reason when too big)
    values_view(inputs, "cpu")                   # ValuesView: α and ‖α v W_O‖ per layer and head
    lens_view(inputs, "cpu", start=0)            # LensView: a window of positions

Every number is core.insight's for the same input (the tests compare them); the rows and
columns are the real tokens (padding left out: no real query attends to it). Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.config import ConfigError
from ...core.insight.lens import NOT_A_DECODER
from ..i18n import QT_TRANSLATE_NOOP
from .inputs import Inputs, captured_for, edited_run

LENS_POSITIONS = 10  # positions the lens table shows at once (SmolLM2: about 0.1 s each, one core)
COURSE_LENS = QT_TRANSLATE_NOOP(
    "core", "the course model is one attention layer with no vocabulary: the logit lens needs a decoder "
    "(choose smollm2-135m under Model source)")


@dataclass(frozen=True)
class SinkView:
    """The sink shares (core.insight.SinkShares) of the tokens `labels` (the variant's)."""

    shares: object
    labels: tuple[str, ...]
    variant: str


def sinks_view(inputs: Inputs, variant: str, device: str, should_stop=None) -> SinkView:
    from ...core.insight import sink_shares
    run = edited_run(inputs, variant, device, should_stop)
    names = run.pieces if len(run.pieces) == len(run.labels) else run.labels
    shares = sink_shares(run.attentions, list(names), causal=inputs.decoder, n_real=run.n_real)
    return SinkView(shares, run.labels[:run.n_real], variant)


@dataclass(frozen=True)
class RolloutView:
    rollout: np.ndarray            # (layers, n, n): R_l, rows the positions, columns the input tokens
    labels: tuple[str, ...]
    causal: bool

    def max_flow_tokens(self, layer: int) -> int:
        from ...core.insight import max_tokens_for_flow
        return max_tokens_for_flow(layer + 1, self.causal)


def rollout_view(inputs: Inputs, should_stop=None) -> RolloutView:
    from ...core.insight import rollout
    return RolloutView(rollout(inputs.real), inputs.labels[:inputs.n_real], inputs.decoder)


def flow_view(inputs: Inputs, layer: int, should_stop=None):
    """core.insight.attention_flow after `layer` (its reason instead of weights when too big)."""
    from ...core.insight import attention_flow
    return attention_flow(inputs.real, layer)


@dataclass(frozen=True)
class ValuesView:
    attentions: np.ndarray         # (layers, heads, n, n): α (the run the norms come from)
    norms: np.ndarray              # (layers, heads, n, n): ‖α_ij v_j W_O^h‖
    disagreement: np.ndarray       # (layers, heads): total variation between α and the norms, 0..1
    labels: tuple[str, ...]


def values_view(inputs: Inputs, device: str, should_stop=None) -> ValuesView:
    from ...core.insight import course_value_norms, norm_disagreement, value_norms
    n = inputs.n_real
    if inputs.course is not None:
        attentions, norms = inputs.course.weights[None], course_value_norms(inputs.course)
    else:
        _model, captured = captured_for(inputs, device, should_stop)
        attentions = captured.attentions[:, :, :n, :n]  # (layers, heads, n, n)
        norms = value_norms(attentions, captured.key_norms[:, :, :n])
    return ValuesView(attentions, norms, norm_disagreement(attentions, norms), inputs.labels[:n])


@dataclass(frozen=True)
class LensView:
    positions: tuple[int, ...]     # the columns: positions of the sequence
    top: tuple[tuple[str, ...], ...]  # (rows, positions): each row's likeliest next token, readable
    top_p: np.ndarray              # (rows, positions)
    final_p: np.ndarray            # (rows, positions): the final answer's probability in each row
    first_row: np.ndarray          # (positions,): the first row whose top token is the final answer
    settled_row: np.ndarray        # (positions,): from this row on it stays the top token
    final: tuple[str, ...]         # the model's own answer per position
    labels: tuple[str, ...]        # every real token (the window's columns are some of them)

    @property
    def rows(self) -> int:
        return self.top_p.shape[0]


def lens_view(inputs: Inputs, device: str, start: int = 0, count: int = LENS_POSITIONS,
              should_stop=None) -> LensView:
    """The logit lens of positions start .. start + count − 1 (clamped to the real tokens)."""
    from ...core.insight import logit_lens
    if inputs.course is not None:
        raise ConfigError.of(COURSE_LENS)
    if not inputs.decoder:
        raise ConfigError.of(NOT_A_DECODER, model=inputs.title)
    model, captured = captured_for(inputs, device, should_stop)
    n = captured.n_real
    start = max(0, min(start, n - 1))
    positions = tuple(range(start, min(n, start + count)))
    lens = logit_lens(model, captured.hidden_states, n, positions=list(positions), should_stop=should_stop)
    names = model.tokenizer.encode_ids
    top = tuple(tuple(names([int(i) for i in row]).labels) for row in lens.top_ids)
    final = tuple(names([int(i) for i in lens.final]).labels)
    return LensView(positions, top, lens.top_p, lens.final_p, lens.first_row, lens.settled_row, final,
                    inputs.labels[:inputs.n_real])
