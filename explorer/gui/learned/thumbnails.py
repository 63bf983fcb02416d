"""Every layer × head of an analysis as small tiles in ONE image (numpy; drawn by overview.py).

A redraw while typing must stay cheap at 30 × 9 heads: no plot items, just (layers, heads, n, n)
sampled to (layers, heads, t, t) by nearest index, coloured through a 256-entry lookup table and
written into a white canvas through a strided view. `TileLayout` says where each tile is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MASKED_RGB = (226, 226, 226)   # cells a decoder cannot see (above the diagonal)
MIN_TILE, MAX_TILE = 6, 160
ROLE_COLOURS = {               # frame colour per role (core.learned.roles.ROLES)
    "previous-token": "#1f77b4", "next-token": "#17becf", "first-token": "#9467bd",
    "induction": "#d62728", "broad": "#2ca02c", "mixed": "#c8c8c8",
}


@dataclass(frozen=True)
class TileLayout:
    """Tiles on a regular pitch, in bands: `by_layer_rows` puts layers on rows and heads on
    columns (else heads on rows, layers on columns); the columns wrap into `bands` bands, each
    with its own column headers (30 layers × 9 heads fit a 4:3 page better as 2 bands of 15)."""

    layers: int
    heads: int
    tile: int          # tile side, px
    gap: int           # px between tiles
    label_h: int       # px under each tile for its label (0: no labels)
    left: int          # px for the row headers
    top: int           # px for the column headers above each band
    by_layer_rows: bool
    bands: int = 1

    @property
    def minor(self) -> int:
        """Rows in a band."""
        return self.layers if self.by_layer_rows else self.heads

    @property
    def major(self) -> int:
        """Columns over all bands."""
        return self.heads if self.by_layer_rows else self.layers

    @property
    def cols(self) -> int:
        return math.ceil(self.major / self.bands)

    @property
    def pitch_x(self) -> int:
        return self.tile + self.gap

    @property
    def pitch_y(self) -> int:
        return self.tile + self.gap + self.label_h

    @property
    def band_h(self) -> int:
        return self.top + self.minor * self.pitch_y

    def size(self) -> tuple[int, int]:
        """(width, height) in px, headers included."""
        return self.left + self.cols * self.pitch_x, self.bands * self.band_h

    def place(self, layer: int, head: int) -> tuple[int, int, int]:
        """(band, row in the band, column) of a tile."""
        minor, major = (layer, head) if self.by_layer_rows else (head, layer)
        return major // self.cols, minor, major % self.cols

    def origin(self, layer: int, head: int) -> tuple[int, int]:
        """Top-left pixel (x, y) of a tile in widget coordinates."""
        band, row, col = self.place(layer, head)
        return self.left + col * self.pitch_x, band * self.band_h + self.top + row * self.pitch_y

    def hit(self, x: float, y: float) -> tuple[int, int] | None:
        """(layer, head) of the tile (or its label) under a widget position."""
        band = math.floor(y / self.band_h)
        row = math.floor((y - band * self.band_h - self.top) / self.pitch_y)
        col = math.floor((x - self.left) / self.pitch_x)
        major = band * self.cols + col
        if not (0 <= band < self.bands and 0 <= row < self.minor and 0 <= col < self.cols
                and major < self.major) or y - band * self.band_h < self.top:
            return None
        return (row, major) if self.by_layer_rows else (major, row)


def fit_layout(layers: int, heads: int, width: int, height: int, label_h: int,
               header: tuple[int, int] = (34, 18), gap: int = 4) -> TileLayout:
    """The orientation, bands and tile size that make the tiles largest in width × height."""
    best = None
    for by_layer_rows in (True, False):
        minor, major = (layers, heads) if by_layer_rows else (heads, layers)
        for bands in range(1, min(4, major) + 1):
            cols = math.ceil(major / bands)
            room_x = (width - header[0]) / cols - gap
            for lh in (label_h, 0):  # labels first; without them when the tiles would be tiny
                room_y = (height / bands - header[1]) / minor - gap - lh
                tile = int(min(room_x, room_y))
                if tile >= 3 * lh or lh == 0:
                    break
            tile = max(MIN_TILE, min(MAX_TILE, tile))
            layout = TileLayout(layers, heads, tile, gap, lh, header[0], header[1], by_layer_rows, bands)
            if best is None or (layout.tile, layout.label_h) > (best.tile, best.label_h):
                best = layout
    return best


def lookup_table(colormap) -> np.ndarray:
    """(256, 3) uint8 colours of a pyqtgraph ColorMap over 0..1."""
    return np.asarray(colormap.getLookupTable(0.0, 1.0, 256, alpha=False), dtype=np.uint8)


def sample(attentions: np.ndarray, tile: int) -> np.ndarray:
    """(layers, heads, n, n) -> (layers, heads, tile, tile) by nearest index (each cell a block)."""
    n = attentions.shape[-1]
    idx = (np.arange(tile) * n) // tile  # (tile,)
    return attentions[:, :, idx[:, None], idx[None, :]]


WHITE, MASKED = 256, 257  # extra entries after the colormap's 256 in the lookup table


def compose(attentions: np.ndarray, layout: TileLayout, lut: np.ndarray, causal: bool) -> np.ndarray:
    """The tiles image (height, width - left, 3) uint8, white between tiles and under headers;
    drawn at x = layout.left, y = 0. Tiles are placed as colour indices (2 bytes a pixel) and
    coloured by one lookup at the end."""
    t, cols = layout.tile, layout.cols
    small = sample(attentions, t)  # (layers, heads, t, t)
    index = np.empty(small.shape, np.uint16)
    np.multiply(small, 255.0, out=small)
    np.add(small, 0.5, out=small)
    np.clip(small, 0, 255, out=small)
    index[...] = small  # truncation after + 0.5: rounding
    if causal:
        n = attentions.shape[-1]
        idx = (np.arange(t) * n) // t
        index[:, :, idx[None, :] > idx[:, None]] = MASKED
    if not layout.by_layer_rows:
        index = index.transpose(1, 0, 2, 3)  # (heads, layers, t, t): (minor, major, ...)
    width, height = layout.size()
    canvas = np.full((height, width - layout.left), WHITE, np.uint16)
    for band in range(layout.bands):
        block = index[:, band * cols:(band + 1) * cols]  # (minor, c, t, t)
        c = block.shape[1]
        y0 = band * layout.band_h + layout.top
        area = canvas[y0:y0 + layout.minor * layout.pitch_y, :c * layout.pitch_x]
        view = area.reshape(layout.minor, layout.pitch_y, c, layout.pitch_x)
        view[:, :t, :, :t] = block.transpose(0, 2, 1, 3)  # (minor, t, c, t)
    table = np.concatenate([lut, [(255, 255, 255), MASKED_RGB]]).astype(np.uint8)  # (258, 3)
    return table[canvas]
