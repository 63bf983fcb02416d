"""Sinusoidal positional encoding (Vaswani et al. 2017).

PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
For an odd d the last column is a sine whose cosine partner would fall outside.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

BASE = 10000.0


def frequencies(d_model: int) -> np.ndarray:
    """Angular frequency of each column: column 2i and 2i+1 share 1 / 10000^(2i/d)."""
    pair_index = np.arange(d_model) // 2  # (d,)  i for columns 2i and 2i+1
    return 1.0 / BASE ** (2.0 * pair_index / d_model)  # (d,)


@lru_cache(maxsize=8)
def _table(n_positions: int, d_model: int) -> np.ndarray:
    pos = np.arange(n_positions, dtype=np.float64)[:, None]  # (n, 1)
    angles = pos * frequencies(d_model)[None, :]  # (n, d)
    pe = np.empty((n_positions, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    pe.setflags(write=False)
    return pe


def sinusoidal_table(n_positions: int, d_model: int) -> np.ndarray:
    """The (n_positions, d_model) float64 table, read-only and cached."""
    if n_positions < 0 or d_model < 1:
        raise ValueError("n_positions must be >= 0 and d_model >= 1")
    return _table(int(n_positions), int(d_model))


def offset_map(d_model: int, k: int) -> np.ndarray:
    """The fixed (d, d) matrix M_k with PE(pos + k) = PE(pos) @ M_k for every pos.

    Each (sin, cos) pair rotates by angle k * w_i, independent of pos: this is why
    attention can read relative offsets from absolute encodings. For an odd d the
    lone last sine column has no partner, so no such linear map exists for it;
    it is given the best it can have (it is left out of the rotation, identity).
    """
    w = frequencies(d_model)
    m = np.eye(d_model)
    for c in range(0, d_model - 1, 2):
        a = k * w[c]
        # [sin(p+a), cos(p+a)] = [sin p, cos p] @ [[cos a, -sin a], [sin a, cos a]]
        m[c:c + 2, c:c + 2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    return m


def similarity(pe: np.ndarray) -> np.ndarray:
    """PE(i) . PE(j) for all pairs: (n, n). Depends (for even d) only on i - j."""
    return pe @ pe.T  # (n, n)
