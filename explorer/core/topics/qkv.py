"""Topic 1: the Q, K, V projections and how each head takes its own columns.

Nothing is recomputed here: Q, K, V and the per-head split come from an
`AttentionResult` the app already has; the projection matrices are the cached
draw of `model_input`. Head i uses columns i·d_head … (i+1)·d_head − 1 of Q, K
and V (that is all `reshape(n, h, d_head).transpose(1, 0, 2)` does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import AttentionResult, model_input


@dataclass(frozen=True)
class HeadSlice:
    """The columns of Q, K, V that head `head` works with."""

    head: int
    first_col: int  # inclusive
    last_col: int   # inclusive
    q: np.ndarray   # (n, d_head)
    k: np.ndarray   # (n, d_head)
    v: np.ndarray   # (n, d_head)

    @property
    def label(self) -> str:
        return f"head {self.head}: columns {self.first_col} … {self.last_col}"


@dataclass(frozen=True)
class QKVBreakdown:
    """X, the three projection matrices, their products and the head split."""

    tokens: tuple[str, ...]
    x_in: np.ndarray  # (n, d) what is projected (X, plus PE when enabled)
    w_q: np.ndarray   # (d, d)
    w_k: np.ndarray   # (d, d)
    w_v: np.ndarray   # (d, d)
    q: np.ndarray     # (n, d)
    k: np.ndarray     # (n, d)
    v: np.ndarray     # (n, d)
    qh: np.ndarray    # (h, n, d_head)
    kh: np.ndarray    # (h, n, d_head)
    vh: np.ndarray    # (h, n, d_head)

    @property
    def n_heads(self) -> int:
        return self.qh.shape[0]

    @property
    def d_head(self) -> int:
        return self.qh.shape[-1]

    def head_columns(self, head: int) -> range:
        """Columns of Q (and K, V) that belong to `head`."""
        if not 0 <= head < self.n_heads:
            raise IndexError(f"head {head} out of range 0..{self.n_heads - 1}")
        return range(head * self.d_head, (head + 1) * self.d_head)

    def head_slice(self, head: int) -> HeadSlice:
        cols = self.head_columns(head)
        return HeadSlice(head, cols.start, cols.stop - 1,
                         self.qh[head], self.kh[head], self.vh[head])

    def matrices(self) -> list[tuple[str, np.ndarray]]:
        """(name, array) in the order the course draws and multiplies them."""
        return [("X", self.x_in), ("W_Q", self.w_q), ("W_K", self.w_k), ("W_V", self.w_v),
                ("Q = X·W_Q", self.q), ("K = X·W_K", self.k), ("V = X·W_V", self.v)]


def qkv_breakdown(result: AttentionResult) -> QKVBreakdown:
    """The Q/K/V picture for `result` (cheap: no matrix product is redone)."""
    weights, _, _ = model_input(result.config)
    return QKVBreakdown(
        tokens=result.tokens, x_in=result.x_in,
        w_q=np.asarray(weights.w_q), w_k=np.asarray(weights.w_k), w_v=np.asarray(weights.w_v),
        q=result.q, k=result.k, v=result.v, qh=result.qh, kh=result.kh, vh=result.vh,
    )
