"""One layer of a training snapshot in the shape the heads grid draws (like app.learned.LayerPicture).

The grid draws anything with weights (h, n, n), tokens, mask, empty_rows, stats.argmax/entropy,
and optionally head_title / describe_cell; a `ProbePicture` is one layer of a `Snapshot`
(core.training) on the fixed probe sequence, so the Train tab reuses the heads grid unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.stats import row_entropy
from ..plotting.i18n import translate


@dataclass(frozen=True)
class ProbeStats:
    entropy: np.ndarray   # (h, n) nats per query row
    argmax: np.ndarray    # (h, n) most-attended key per query


@dataclass(frozen=True)
class ProbePicture:
    layer: int
    step: int
    weights: np.ndarray     # (h, n, n) attention of this layer on the probe
    scores: np.ndarray      # (h, 2) previous-token, induction (core.training.ROLES order)
    tokens: tuple           # the probe's token ids as text
    mask: np.ndarray        # (n, n) bool: causal
    empty_rows: np.ndarray  # (n,) all False
    stats: ProbeStats

    @property
    def n_heads(self) -> int:
        return self.weights.shape[0]

    def head_title(self, head: int) -> str:
        prev, ind = self.scores[head]
        return translate("training.picture", "L{layer} h{head}  ·  prev {prev}  ind {ind}").format(
            layer=self.layer, head=head, prev=f"{prev:.2f}", ind=f"{ind:.2f}")

    def describe_cell(self, head: int, query: int, key: int) -> str:
        where = translate("training.picture", "step {step}, L{layer} head {head}: position {query} → {key}").format(
            step=self.step, layer=self.layer, head=head, query=query, key=key)
        if not self.mask[query, key]:
            return translate("training.picture", "{where}: masked (causal)").format(where=where)
        return translate("training.picture", "{where}, weight {weight}").format(
            where=where, weight=f"{float(self.weights[head, query, key]):.3f}")


def probe_picture(snapshot, layer: int, probe: np.ndarray) -> ProbePicture:
    """Layer `layer` of a core.training Snapshot; `probe` the probe's token ids (n,)."""
    weights = snapshot.attention[layer]  # (h, n, n)
    n = weights.shape[-1]
    stats = ProbeStats(entropy=row_entropy(weights), argmax=weights.argmax(axis=-1))
    return ProbePicture(layer, snapshot.step, weights, snapshot.scores[layer],
                        tuple(str(int(t)) for t in probe), np.tril(np.ones((n, n), bool)),
                        np.zeros(n, bool), stats)
