"""Perceptually uniform colormaps for attention weights (no rainbow maps: they invent edges)."""

from __future__ import annotations

import functools

import numpy as np
import pyqtgraph as pg

DEFAULT_COLORMAP = "viridis"

# display name -> pyqtgraph colormap name; all ship with pyqtgraph (no network needed).
COLORMAPS: dict[str, str] = {
    "viridis": "viridis",
    "magma": "magma",
    "inferno": "inferno",
    "plasma": "plasma",
    "cividis (colour-blind safe)": "cividis",
    "greyscale": "CET-L1",   # perceptually linear grey ramp, black -> white
}


def _pg_name(name: str) -> str:
    if name in COLORMAPS:
        return COLORMAPS[name]
    if name in COLORMAPS.values():
        return name
    raise KeyError(f"unknown colormap {name!r} (choose {', '.join(COLORMAPS)})")


@functools.lru_cache(maxsize=None)
def _load(pg_name: str) -> pg.ColorMap:
    return pg.colormap.get(pg_name)


def get_colormap(name: str) -> pg.ColorMap:
    """The pyqtgraph ColorMap for a display name (or its pyqtgraph name). KeyError if unknown."""
    return _load(_pg_name(name))


def is_greyscale(name: str) -> bool:
    return _pg_name(name) == "CET-L1"


@functools.lru_cache(maxsize=None)
def luminance_table(name: str, n_points: int = 256) -> np.ndarray:
    """Relative luminance (0..1) of the colormap sampled at n_points over 0..1."""
    lut = get_colormap(name).getLookupTable(0.0, 1.0, n_points, alpha=False)  # (n_points, 3) uint8
    rgb = lut.astype(np.float64) / 255.0
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])  # (n_points,)


def dark_text_mask(name: str, values: np.ndarray) -> np.ndarray:
    """True where dark text reads better than white on the cell colour of `values` (0..1)."""
    table = luminance_table(name)
    idx = np.clip(np.rint(np.nan_to_num(values) * (len(table) - 1)), 0, len(table) - 1).astype(int)
    # Contrast with black (L+0.05)/0.05 vs with white 1.05/(L+0.05): equal at L ~ 0.179.
    return table[idx] > 0.179
