"""A training snapshot in the shape the heads grid draws (like app.learned.LayerPicture).

The grid draws anything with weights (h, n, n), tokens, mask, empty_rows, stats.argmax/entropy,
and optionally head_title / describe_cell. A `ProbePicture` is every head of every layer of a
`Snapshot` (core.training) on the fixed probe sequence, layer-major (panel i = layer i // heads,
head i % heads), so the Train tab reuses the heads grid unchanged: one colour bar, and the grid
chooses the columns that make the heatmaps largest in the space there is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.stats import row_entropy
from ..plotting.i18n import translate


@dataclass(frozen=True)
class ProbeStats:
    entropy: np.ndarray   # (L·h, n) nats per query row
    argmax: np.ndarray    # (L·h, n) most-attended key per query


@dataclass(frozen=True)
class ProbePicture:
    step: int
    n_layer_heads: int      # heads per layer
    weights: np.ndarray     # (L·h, n, n) attention on the probe, layer-major
    scores: np.ndarray      # (L·h, 2) previous-token, induction (core.training.ROLES order)
    tokens: tuple           # the probe's token ids as text
    mask: np.ndarray        # (n, n) bool: causal
    empty_rows: np.ndarray  # (n,) all False
    stats: ProbeStats
    compact: bool = False   # presentation mode: titles without spaces (larger fonts, same width)
    blank: bool = False     # no snapshot yet: empty panels, titles without scores

    @property
    def n_heads(self) -> int:
        return self.weights.shape[0]

    def layer_head(self, index: int) -> tuple[int, int]:
        return divmod(index, self.n_layer_heads)

    def head_title(self, index: int) -> str:
        # short: at 1024 pixels a panel is narrow (the caption says what the two numbers are)
        layer, head = self.layer_head(index)
        if self.blank:
            return f"L{layer}h{head}" if self.compact else f"L{layer} h{head}"
        prev, ind = self.scores[index]
        if self.compact:
            return f"L{layer}h{head} {prev:.2f}|{ind:.2f}".replace("0.", ".")  # 'L0h0 .51|.03'
        return f"L{layer} h{head}  {prev:.2f} | {ind:.2f}"

    def describe_cell(self, index: int, query: int, key: int) -> str:
        layer, head = self.layer_head(index)
        if self.blank:
            return translate("training.picture", "L{layer} head {head}: no snapshot yet").format(layer=layer, head=head)
        where = translate("training.picture", "step {step}, L{layer} head {head}: position {query} → {key}").format(
            step=self.step, layer=layer, head=head, query=query, key=key)
        if not self.mask[query, key]:
            return translate("training.picture", "{where}: masked (causal)").format(where=where)
        prev, ind = self.scores[index]
        return translate("training.picture", "{where}, weight {weight}  ·  previous-token score {prev}, "
                         "induction score {ind}").format(
            where=where, weight=f"{float(self.weights[index, query, key]):.3f}", prev=f"{prev:.2f}",
            ind=f"{ind:.2f}")


def probe_picture(snapshot, probe: np.ndarray, compact: bool = False) -> ProbePicture:
    """Every head of a core.training Snapshot; `probe` the probe's token ids (n,)."""
    layers, heads, n, _ = snapshot.attention.shape
    weights = snapshot.attention.reshape(layers * heads, n, n)  # (L·h, n, n)
    stats = ProbeStats(entropy=row_entropy(weights), argmax=weights.argmax(axis=-1))
    return ProbePicture(snapshot.step, heads, weights, snapshot.scores.reshape(layers * heads, -1),
                        tuple(str(int(t)) for t in probe), np.tril(np.ones((n, n), bool)),
                        np.zeros(n, bool), stats, compact)


def blank_picture(layers: int, heads: int, probe: np.ndarray, compact: bool = False) -> ProbePicture:
    """Empty panels (zero weights, no scores) in a snapshot's shape: the grid's panels are built
    before training starts, not while its first snapshot arrives (~150 ms on the GUI thread)."""
    n = len(probe)
    weights = np.zeros((layers * heads, n, n), np.float32)  # (L·h, n, n)
    stats = ProbeStats(entropy=np.zeros((layers * heads, n)), argmax=np.full((layers * heads, n), -1))
    return ProbePicture(0, heads, weights, np.zeros((layers * heads, 2)), tuple(str(int(t)) for t in probe),
                        np.tril(np.ones((n, n), bool)), np.zeros(n, bool), stats, compact, blank=True)
