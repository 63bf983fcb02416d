"""Head role scores and the step where a head "switched on" (numpy only).

Definitions (the same as ../shared/learned-models.md):
- previous-token score of a head = mean over query positions i ≥ 1 of A[i, i − 1];
- induction score = mean over the second-half query positions i of A[i, i − L + 1], on a sequence
  whose second half (length L) repeats the first: the head looks at the token *after* the earlier
  occurrence of the current token, which is what it must copy next.
Both are 1 for a perfect head and about 1/(i + 1) for the uniform causal attention of a fresh model.
"""

from __future__ import annotations

import numpy as np

ROLES = ("previous_token", "induction")
SWITCH_THRESHOLD = 0.3  # a score this high is ≥ 3× its value at initialisation (see module doc)


def previous_token_score(attention: np.ndarray) -> np.ndarray:
    """Mean of A[i, i−1] over i ≥ 1. attention (..., T, T) → (...)."""
    t = attention.shape[-1]
    rows = np.arange(1, t)
    return attention[..., rows, rows - 1].mean(axis=-1)


def induction_score(attention: np.ndarray) -> np.ndarray:
    """Mean of A[i, i−L+1] over i in [L, 2L), L = T // 2. attention (..., T, T) → (...)."""
    half = attention.shape[-1] // 2
    if half < 2:
        raise ValueError("an induction score needs a probe of at least 4 tokens")
    rows = np.arange(half, 2 * half)
    return attention[..., rows, rows - half + 1].mean(axis=-1)


def role_scores(attention: np.ndarray) -> np.ndarray:
    """(..., T, T) attention on the probe → (..., 2) scores in ROLES order."""
    return np.stack([previous_token_score(attention), induction_score(attention)], axis=-1)


def switch_step(steps, scores, threshold: float = SWITCH_THRESHOLD):
    """The first logged step from which the score stays ≥ threshold at every later logged step.

    None if the latest score is below the threshold (the head has not, or not yet, switched on).
    "Stays" keeps a blip that falls back from counting; while training runs the answer can move
    later (if the score dips again) but never earlier.
    steps (n,), scores (n,)
    """
    scores = np.asarray(scores, dtype=float)
    if scores.size == 0 or scores[-1] < threshold:
        return None
    below = np.flatnonzero(scores < threshold)
    first = 0 if below.size == 0 else below[-1] + 1
    return int(steps[first])


def switch_steps(steps, scores: np.ndarray, threshold: float = SWITCH_THRESHOLD) -> list:
    """scores (n_logged, layers, heads, roles) → [layer][head] {role: step or None}."""
    scores = np.asarray(scores)
    _, layers, heads, _ = scores.shape
    return [[{role: switch_step(steps, scores[:, layer, head, r], threshold)
              for r, role in enumerate(ROLES)}
             for head in range(heads)] for layer in range(layers)]


def phase_change_step(switches: list):
    """The first step at which a layer-0 previous-token head AND a layer-1 induction head are both on.

    None if either never switched on (or the model has one layer).
    """
    if len(switches) < 2:
        return None
    prev = [h["previous_token"] for h in switches[0] if h["previous_token"] is not None]
    ind = [h["induction"] for h in switches[1] if h["induction"] is not None]
    if not prev or not ind:
        return None
    return max(min(prev), min(ind))
