"""Topic 5: head pruning — which heads matter, and what removing them changes.

The output is a sum over heads: output = concat · W_O = Σ_h head_out_h · W_O[rows of h],
where "rows of h" are rows h·d_head … (h+1)·d_head − 1 of W_O. So each head's
contribution c_h = head_out_h · W_O[rows of h] is an (n, d) matrix, and pruning a
head (mask 0) simply drops its term.

Importance of a head: ‖c_h‖ (Frobenius norm of its contribution to the output) — the
amount the output moves if that head alone is removed; its share ‖c_h‖ / Σ‖c_g‖; and
the mean softmax entropy of the head (low entropy = sharp, focused pattern) as a
second, pattern-based indicator.

All heads pruned: the attention output is defined as the zero matrix (the empty sum),
‖Δoutput‖ = ‖output‖, and `PruneResult.note` says so; in a Transformer block the
residual connection would still carry X through.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import AttentionResult, model_input
from ..config import QT_TRANSLATE_NOOP, ConfigError
from ..backends.numpy_ops import merge_heads

ALL_PRUNED_NOTE = ("all heads are pruned: the attention output is all zeros "
                   "(in a Transformer block the residual connection still passes X through)")


def _w_o(result: AttentionResult, w_o) -> np.ndarray:
    return np.asarray(model_input(result.config)[0].w_o) if w_o is None else w_o  # cached draw


def head_contributions(result: AttentionResult, w_o: np.ndarray | None = None) -> np.ndarray:
    """(h, n, d): head h's share of the output, head_out_h @ W_O[h·d_head:(h+1)·d_head].

    Holds h·n·d numbers: for large settings use `head_contribution_norms` / `prune_heads`,
    which never hold more than one (n, d) matrix per head at a time.
    """
    h, n, d_head = result.head_outputs.shape
    w_rows = _w_o(result, w_o).reshape(h, d_head, -1)  # (h, d_head, d): rows of W_O per head
    return result.head_outputs @ w_rows  # (h, n, d)


def head_contribution_norms(result: AttentionResult, w_o: np.ndarray | None = None) -> np.ndarray:
    """(h,) ‖c_h‖ Frobenius, one head at a time."""
    h, n, d_head = result.head_outputs.shape
    w_rows = _w_o(result, w_o).reshape(h, d_head, -1)  # (h, d_head, d)
    return np.array([np.linalg.norm(result.head_outputs[i] @ w_rows[i]) for i in range(h)])


@dataclass(frozen=True)
class HeadImportance:
    contribution_norm: np.ndarray  # (h,) ‖c_h‖ Frobenius
    share: np.ndarray              # (h,) ‖c_h‖ / Σ_g ‖c_g‖ (0 when every head contributes 0)
    mean_entropy: np.ndarray       # (h,) mean softmax entropy over non-empty query rows

    def ranking(self) -> np.ndarray:
        """Head indices, most important (largest ‖c_h‖) first."""
        return np.argsort(-self.contribution_norm, kind="stable")


def head_importance(result: AttentionResult, w_o: np.ndarray | None = None) -> HeadImportance:
    norms = head_contribution_norms(result, w_o)  # (h,)
    total = norms.sum()
    share = norms / total if total > 0 else np.zeros_like(norms)
    entropy = result.stats.entropy[:, ~result.empty_rows]  # (h, m)
    mean_entropy = entropy.mean(axis=-1) if entropy.shape[-1] else np.zeros(norms.shape[0])
    return HeadImportance(norms, share, mean_entropy)


@dataclass(frozen=True)
class PruneResult:
    head_mask: np.ndarray    # (h,) bool, True = head kept
    output: np.ndarray       # (n, d) with only the kept heads
    full_output: np.ndarray  # (n, d) every head (the forward output)
    delta: np.ndarray        # (n, d) output - full_output
    delta_norm: float        # ‖Δoutput‖ Frobenius
    relative: float          # ‖Δoutput‖ / ‖full output‖ (0 when the full output is 0)
    all_pruned: bool
    note: str                # empty unless something needs saying (all heads pruned)


def validate_head_mask(head_mask, n_heads: int) -> np.ndarray:
    """The mask as a (h,) bool array, or ConfigError for a wrong length or values."""
    arr = np.asarray(head_mask)
    if arr.shape != (n_heads,):
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "head mask needs one entry per head ({heads}), got shape {shape}"),
                             heads=n_heads, shape=arr.shape)
    if arr.dtype != bool and not np.isin(arr, (0, 1)).all():
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "head mask entries must be on/off (True/False or 1/0)"))
    return arr.astype(bool)


def prune_heads(result: AttentionResult, head_mask, w_o: np.ndarray | None = None) -> PruneResult:
    """The output with only the heads where `head_mask` is True: (masked concat) · W_O."""
    keep = validate_head_mask(head_mask, result.head_outputs.shape[0])
    full = result.output
    if keep.any():
        kept = result.head_outputs * keep[:, None, None]  # (h, n, d_head), pruned heads zeroed
        output = merge_heads(kept) @ _w_o(result, w_o)  # (n, d)
    else:
        output = np.zeros_like(full)
    delta = output - full
    delta_norm = float(np.linalg.norm(delta))
    full_norm = float(np.linalg.norm(full))
    return PruneResult(keep, output, full, delta, delta_norm,
                       delta_norm / full_norm if full_norm > 0 else 0.0,
                       not keep.any(), "" if keep.any() else ALL_PRUNED_NOTE)
