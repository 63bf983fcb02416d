"""Shared by the topic tests: show a view, feed it a result, wait for its picture; and the
arguments of the one float rule (tests/numeric.py) for the topic computations.

(Holds no tests itself.)
"""

from __future__ import annotations

import numpy as np

from explorer.core.topics.encoder import LN_EPS

WAIT_MS = 30_000


def show_view(qtbot, view_class, result=None, state=None, size=(1200, 800)):
    """A shown view of `view_class`; if `result` is given, wait until it is drawn."""
    view = view_class(state)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    if result is not None:
        feed(qtbot, view, result)
    return view


def feed(qtbot, view, result) -> None:
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        view.set_result(result)


def redraw(qtbot, view, change) -> None:
    """Run `change()` (a control edit) and wait for the view's next picture."""
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        change()


# -- the rule's arguments (assert_close(actual, expected, dtype, reduction, scale)) -------------
# reduction counts the terms of every sum along the path to the result (their rounding errors
# add up like a random walk: √(Σ terms)); scale is what the errors are proportional to.

def softmax_scale(scores) -> float:
    """The size a softmax's rounding errors scale with: an absolute error ε of a score is a
    relative error ε of every weight in its row, so the weights (and what they average) carry
    errors of eps · max |score| (masked, non-finite scores left out)."""
    scores = np.asarray(scores)
    return max(1.0, float(np.abs(scores[np.isfinite(scores)]).max(initial=0.0)))


def attention_reduction(d_model: int, d_head: int, n_keys: int, output: bool = True) -> int:
    """One attention layer's sums: x·W_Q (d_model terms), q·k (d_head), the softmax's
    denominator (n_keys); for the output also weights·V (n_keys) and concat·W_O (d_model)."""
    weights = d_model + d_head + n_keys
    return weights + n_keys + d_model if output else weights


def attention_output_scale(scores, output) -> float:
    """The weights' relative error (softmax_scale) carried by outputs of size max |output|."""
    return softmax_scale(scores) * max(1.0, float(np.abs(output).max(initial=0.0)))


def layer_norm_gain(a) -> float:
    """LayerNorm divides each row of `a` by its √(var + eps): an error of eps · |a| in its input
    comes out as eps · max |a| / √(var + eps) — this gain (at least 1), the worst row's."""
    a = np.asarray(a)
    sigma = np.sqrt(a.var(axis=-1) + LN_EPS)  # (n,)
    return max(1.0, float((np.abs(a).max(axis=-1, initial=0.0) / sigma).max(initial=0.0)))


def encoder_rule(block, norms: bool = False) -> dict:
    """reduction and scale for the output of an encoder block (`EncoderResult`), or with
    norms=True for its row norms (a row of d errors moves the norm by at most √d of them).

    reduction: the attention layer, each LayerNorm's mean and variance (2 · d_model), the FFN's
    z·W_1 (d_model) and hidden·W_2 (d_ff). scale: the softmax's scores, times the gain of both
    LayerNorms (Post-LN: their inputs x + attention and h + FFN; Pre-LN: x and h), times the
    output's size."""
    att = block.config.attention
    d, n = att.d_model, att.n_tokens
    reduction = attention_reduction(d, att.d_head, n) + 2 * (2 * d) + d + block.config.ffn_width
    stages = dict(block.stages)
    if block.config.norm_first:
        normed = (stages["x"], stages["h = x + attention"])
    else:
        normed = (stages["x + attention"], stages["h + FFN"])
    scale = (softmax_scale(block.attention["scores"]) * layer_norm_gain(normed[0])
             * layer_norm_gain(normed[1]) * max(1.0, float(np.abs(block.output).max())))
    return {"dtype": "float64", "reduction": reduction * (d if norms else 1), "scale": scale}
