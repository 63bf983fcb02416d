"""What the heads grid draws: one declared shape for every source's heads.

`HeadsPicture` is the protocol: weights (h, n, n), the tokens, the mask, the empty rows, per-row
stats, and two texts the picture itself knows best, a head's title and a cell's description. The
pictures are:

- `CoursePicture`: the course model's `AttentionResult` (this module);
- `app.learned.LayerPicture`: one layer of a model source's `Analysis` (pretrained, trained, a
  user's own), its titles carrying each head's role;
- `gui.training.picture.ProbePicture`: the Train tab's snapshot, every layer's heads.

The grid reads only what the protocol declares, so a new source needs no new drawing code.
Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..core.attention import AttentionResult
from .i18n import translate


class HeadsPicture(Protocol):
    weights: np.ndarray     # (h, n, n): rows are queries
    mask: np.ndarray        # (n, n) bool: True = may attend
    empty_rows: np.ndarray  # (n,) bool: every key masked for this query (weights all 0)

    @property
    def tokens(self) -> tuple[str, ...]: ...

    @property
    def stats(self):  # .entropy (h, n) nats, .argmax (h, n)
        ...

    @property
    def n_heads(self) -> int: ...

    def head_title(self, head: int) -> str | None:
        """The panel's title; None: the grid's own (the head and its mean row entropy)."""

    def describe_cell(self, head: int, query: int, key: int) -> str:
        """What one cell is (the hover line), in the UI language."""


@dataclass(frozen=True)
class CoursePicture:
    """The course model's result as a HeadsPicture (`result` keeps the config and the scores)."""

    result: AttentionResult

    @property
    def weights(self) -> np.ndarray:
        return self.result.weights

    @property
    def mask(self) -> np.ndarray:
        return self.result.mask

    @property
    def empty_rows(self) -> np.ndarray:
        return self.result.empty_rows

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.result.tokens

    @property
    def stats(self):
        return self.result.stats

    @property
    def n_heads(self) -> int:
        return self.result.weights.shape[0]

    def head_title(self, head: int) -> None:
        return None

    def describe_cell(self, head: int, query: int, key: int) -> str:
        r = self.result
        tokens = r.tokens
        where = translate("heads.grid", "head {head}: {query} → {key}").format(head=head, query=tokens[query],
                                                                               key=tokens[key])
        raw = float(r.raw_scores[head, query, key])
        if r.empty_rows[query]:
            return translate("heads.grid",
                             "{where}: every key is masked for this query (weights all 0)").format(where=where)
        if not r.mask[query, key]:
            return translate("heads.grid",
                             "{where}: masked (weight 0; raw score {raw} not used)").format(where=where, raw=f"{raw:.2f}")
        text = translate("heads.grid", "{where}, weight {weight}, raw score {raw}").format(
            where=where, weight=f"{float(r.weights[head, query, key]):.2f}", raw=f"{raw:.2f}")
        if r.config.scaled:
            text += translate("heads.grid",
                              " (scaled {scaled})").format(scaled=f"{float(r.scores[head, query, key]):.2f}")
        return text


def heads_picture(shown) -> HeadsPicture:
    """What the heads grid draws of `shown`: a picture as it is; the course model's
    AttentionResult (the exports rebuilt from a config: figures, CLI) as its CoursePicture."""
    return CoursePicture(shown) if isinstance(shown, AttentionResult) else shown
