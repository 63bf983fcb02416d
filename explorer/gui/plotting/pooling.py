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
    n, m = matrix.shape
    out_n, out_m = -(-n // rows), -(-m // cols)
    padded = np.full((out_n * rows, out_m * cols), -np.inf, dtype=np.result_type(matrix, np.float32))
    padded[:n, :m] = matrix
    blocks = padded.reshape(out_n, rows, out_m, cols)  # (out_n, rows, out_m, cols)
    return blocks.max(axis=(1, 3))  # (out_n, out_m)
