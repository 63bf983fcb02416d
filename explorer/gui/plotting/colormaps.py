"""Colour for every view: the colormap lookup, the colour-scale levels, the text-contrast rule.

Perceptually uniform colormaps for attention weights (no rainbow maps: they invent edges);
`resolve_colormap` also takes pyqtgraph names (the diverging CET-D1 of signed matrices).
"""

from __future__ import annotations

import functools

import numpy as np
import pyqtgraph as pg
from .i18n import QT_TRANSLATE_NOOP

DEFAULT_COLORMAP = "viridis"

# display name -> pyqtgraph colormap name; all ship with pyqtgraph (no network needed).
COLORMAPS: dict[str, str] = {
    "viridis": "viridis",
    "magma": "magma",
    "inferno": "inferno",
    "plasma": "plasma",
    QT_TRANSLATE_NOOP("plotting.colormaps", "cividis (colour-blind safe)"): "cividis",
    QT_TRANSLATE_NOOP("plotting.colormaps",
                      "greyscale"): "CET-L1",   # perceptually linear grey ramp, black -> white
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


def resolve_colormap(cmap) -> pg.ColorMap:
    """A ColorMap from a ColorMap, an app colormap name, or any pyqtgraph map name (CET-…)."""
    if isinstance(cmap, pg.ColorMap):
        return cmap
    try:
        return get_colormap(cmap)
    except KeyError:
        return pg.colormap.get(cmap)


def symmetric_levels(*arrays: np.ndarray) -> tuple[float, float]:
    """(-m, m) with m the largest |value| over the arrays, so zero sits mid-scale (m = 1 when
    there is nothing finite to scale to)."""
    m = max((float(np.nanmax(np.abs(a))) for a in arrays if a is not None and np.size(a)), default=1.0)
    m = m if m > 0 and np.isfinite(m) else 1.0
    return -m, m


def is_greyscale(name: str) -> bool:
    return _pg_name(name) == "CET-L1"


@functools.lru_cache(maxsize=None)
def luminance_table(name: str, n_points: int = 256) -> np.ndarray:
    """Relative luminance (0..1) of the colormap sampled at n_points over 0..1."""
    lut = get_colormap(name).getLookupTable(0.0, 1.0, n_points, alpha=False)  # (n_points, 3) uint8
    return relative_luminance(lut.astype(np.float64) / 255.0)  # (n_points,)


def relative_luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of sRGB colours in 0..1, shape (..., 3) -> (...)."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


# Contrast with black (L+0.05)/0.05 equals contrast with white 1.05/(L+0.05) at L ~ 0.179.
DARK_TEXT_LUMINANCE = 0.179


def dark_text_mask(name: str, values: np.ndarray) -> np.ndarray:
    """True where dark text reads better than white on the cell colour of `values` (0..1)."""
    table = luminance_table(name)
    idx = np.clip(np.rint(np.nan_to_num(values) * (len(table) - 1)), 0, len(table) - 1).astype(int)
    return table[idx] > DARK_TEXT_LUMINANCE


def dark_text_on(colormap: pg.ColorMap, fractions: np.ndarray) -> np.ndarray:
    """The same rule for any ColorMap: True where dark text reads better on the colour at each
    fraction (0..1) of the map."""
    rgba = colormap.map(np.clip(np.ravel(fractions), 0, 1), mode="float")  # (n, 4)
    return (relative_luminance(rgba[:, :3]) > DARK_TEXT_LUMINANCE).reshape(np.shape(fractions))
