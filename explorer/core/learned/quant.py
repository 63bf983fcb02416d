"""Dequantisers for ggml's block formats (32 weights a block), vectorised in numpy.

Q4_0: fp16 scale d, 16 bytes of nibbles; w = (q - 8) * d.
Q4_1: fp16 scale d, fp16 minimum m, 16 bytes of nibbles; w = q * d + m.
Q8_0: fp16 scale d, 32 int8; w = q * d.
In a block, the low nibbles of the 16 bytes are weights 0-15 and the high nibbles weights 16-31.
"""

from __future__ import annotations

import numpy as np


def _nibbles(qs: np.ndarray) -> np.ndarray:
    """(blocks, 16) uint8 -> (blocks, 32) values 0..15 in weight order."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=1)


def dequantize_q4_0(raw: np.ndarray) -> np.ndarray:
    blocks = raw.reshape(-1, 18)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    q = _nibbles(blocks[:, 2:]).astype(np.float32)  # (blocks, 32)
    return ((q - 8.0) * d).reshape(-1)


def dequantize_q4_1(raw: np.ndarray) -> np.ndarray:
    blocks = raw.reshape(-1, 20)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    m = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    q = _nibbles(blocks[:, 4:]).astype(np.float32)  # (blocks, 32)
    return (q * d + m).reshape(-1)


def dequantize_q8_0(raw: np.ndarray) -> np.ndarray:
    blocks = raw.reshape(-1, 34)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    q = blocks[:, 2:].copy().view(np.int8).astype(np.float32)  # (blocks, 32)
    return (q * d).reshape(-1)
