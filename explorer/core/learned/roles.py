"""What each head does, scored on one attention picture (numpy only).

Scores, each in [0, 1], for head weights A (n, n) (rows are queries):
- previous-token: mean over i >= 1 of A[i, i-1]
- next-token: mean over i < n-1 of A[i, i+1] (0 in a causal model, which cannot look ahead)
- first-token: mean over i >= 1 of A[i, 0]; the [CLS] / <s> / first-token "sink" where heads park
- induction: only on a sequence with a repeat (tokens start..start+L-1 repeat the L tokens before
  them): mean over the queries i of the repeat of A[i, i - L + 1] (the token after i's earlier copy)
- broad: mean over rows with >= 2 keys of the row's entropy / log(keys it may see)
A head's role is its highest positional score (previous, next, first, induction) when that is at
least ROLE_THRESHOLD; otherwise "broad" when its broad score is at least ROLE_THRESHOLD, else "mixed".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import row_entropy

ROLE_THRESHOLD = 0.5
ROLES = ("previous-token", "next-token", "first-token", "induction", "broad", "mixed")


@dataclass(frozen=True)
class HeadRole:
    layer: int
    head: int
    role: str
    score: float
    scores: dict

    def to_dict(self) -> dict:
        return {"layer": self.layer, "head": self.head, "role": self.role,
                "score": round(self.score, 4), "scores": {k: round(v, 4) for k, v in self.scores.items()}}


def find_repeat(ids, tail: int = 1) -> tuple[int, int] | None:
    """(start, L) of the longest repeat (L >= 2) ending at most `tail` tokens before the end.

    ids[start:start+L] == ids[start-L:start]; `tail` allows a closing [SEP] or </s> after it.
    """
    ids = list(ids)
    for length in range(len(ids) // 2, 1, -1):
        for end in range(len(ids), len(ids) - tail - 1, -1):
            start = end - length
            if start - length >= 0 and ids[start:end] == ids[start - length:start]:
                return start, length
    return None


def _diagonal_mean(a: np.ndarray, offset: int, rows: slice) -> np.ndarray:
    """(layers, heads, n, n) -> (layers, heads) mean of A[i, i + offset] over the query rows `rows`."""
    n = a.shape[-1]
    q = np.arange(n)[rows]
    q = q[(q + offset >= 0) & (q + offset < n)]
    if q.size == 0:
        return np.zeros(a.shape[:2])
    return a[..., q, q + offset].mean(axis=-1)


def _broad(a: np.ndarray, causal: bool) -> np.ndarray:
    """(layers, heads, n, n) -> (layers, heads) mean normalised row entropy over the rows with >= 2
    keys. One layer at a time: its temporaries stay in the cache (the whole (30, 9, 256, 256) at
    once took three times as long), and the rows are a slice, not a copy."""
    n = a.shape[-1]
    keys = np.arange(1, n + 1) if causal else np.full(n, n)  # keys each query may see
    if n < 2:
        return np.zeros(a.shape[:2])
    first = 1 if causal else 0  # the rows from here on see >= 2 keys
    entropy = np.stack([row_entropy(layer[:, first:]) for layer in a])  # (layers, heads, r)
    return (entropy / np.log(keys[first:])).mean(-1)


def score_heads(attentions: np.ndarray, causal: bool,
                repeat: tuple[int, int] | None = None) -> list[HeadRole]:
    """One HeadRole per (layer, head) of attentions (layers, heads, n, n); repeat from find_repeat."""
    a = np.asarray(attentions, dtype=np.float32)  # float32: (30, 9, 256, 256) in float64 is 140 MB
    n = a.shape[-1]
    scores = {
        "previous-token": _diagonal_mean(a, -1, slice(1, None)),
        "next-token": _diagonal_mean(a, 1, slice(0, n - 1)),
        "first-token": a[..., 1:, 0].mean(-1) if n > 1 else np.zeros(a.shape[:2]),
    }
    if repeat:
        start, length = repeat
        scores["induction"] = _diagonal_mean(a, 1 - length, slice(start, start + length))
    broad = _broad(a, causal)
    roles = []
    for layer in range(a.shape[0]):
        for head in range(a.shape[1]):
            own = {name: float(s[layer, head]) for name, s in scores.items()}
            best = max(own, key=own.get)
            role, score = best, own[best]
            if score < ROLE_THRESHOLD:
                wide = float(broad[layer, head])
                role, score = ("broad", wide) if wide >= ROLE_THRESHOLD else ("mixed", score)
            own["broad"] = float(broad[layer, head])
            roles.append(HeadRole(layer, head, role, score, own))
    return roles
