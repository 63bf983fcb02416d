"""Matrices with more cells than the screen has pixels, reduced so no maximum disappears.

Drawing a 512 x 512 matrix into a 300-pixel panel makes the raster engine sample 300 of the 512
rows and columns: the rest, and any row's largest weight among them, are simply not shown (and
the whole image is colour-mapped and scaled on every paint). Block max-pooling keeps every
block's largest value, so each row's most-attended key still lights up its block.
"""

from __future__ import annotations

import math

import numpy as np


def pool_factor(cells: int, pixels: float) -> int:
    """Cells per block along one axis: 1 while every cell gets at least one pixel, else the
    fewest cells per block that leave a block no smaller than a pixel."""
    if pixels <= 0 or cells <= pixels:
        return 1
    return math.ceil(cells / pixels)


def max_pool(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(ceil(n / rows), ceil(m / cols)) block maxima of a (n, m) matrix; the last blocks may
    hold fewer cells. `matrix` itself when both factors are 1."""
    if rows == 1 and cols == 1:
        return matrix
    return _pool_rows(_pool_rows(matrix, rows).T, cols).T


def _pool_rows(matrix: np.ndarray, rows: int) -> np.ndarray:
    """Maxima of blocks of `rows` consecutive rows: an elementwise maximum of `rows` strided
    views (a few whole-array passes; numpy's max over a reshaped block axis is ~10x slower)."""
    if rows == 1:
        return matrix
    out = matrix[0::rows].copy()  # (out_n, m)
    for offset in range(1, rows):
        part = matrix[offset::rows]  # out_n or out_n - 1 rows: the last block may be short
        np.maximum(out[: len(part)], part, out=out[: len(part)])
    return out
