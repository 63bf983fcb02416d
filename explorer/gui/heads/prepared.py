"""The heads grid's images made on the compute thread: block-max pooled and colour-mapped.

At 512 tokens x 16 heads, pooling each 512 x 512 matrix to the panel's pixels and colour-mapping
it cost the GUI thread ~10 ms per result. `ImagePreparer` is installed as the compute worker's
``after_forward`` hook (``app.compute.ComputeWorker``): after each fresh forward pass it makes,
on that thread, the image every visible head will need, for the lookup table, levels and
device pixels of the grid's last paint (``HeatmapImageItem.on_paint`` reports them). The grid
takes them with the result (`take`) and hands them to each head's image item, which draws them
only where they still match (a colormap change, a resize or an export at another scale: the
item pools and colour-maps itself, as before). The pixels are the same either way: both paths
call pyqtgraph's ``try_make_qimage`` on the same pooled values (``make_prepared``).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from ..plotting.heatmap_item import make_prepared, pool_factor, same_table

KEEP_RESULTS = 3  # results prepared but not yet taken (a drag may finish a few before a paint);
# held by weak reference to their weights: a result nobody shows is not kept alive here


@dataclass(frozen=True, eq=False)
class _Spec:
    lut: object
    levels: list
    fmt: object
    rows_px: float
    cols_px: float


class ImagePreparer:
    """Thread-safe: `note_paint`, `set_heads`, `take` on the GUI thread, `__call__` on the
    compute thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._spec: _Spec | None = None
        self._heads: tuple[int, ...] = ()
        self._ready: list[tuple[weakref.ref, dict]] = []  # (weights, {head: {(r, c): Prepared}})
        self.prepared = 0  # results prepared (tests, benchmarks)

    def note_paint(self, lut, levels, fmt, rows_px: float, cols_px: float) -> None:
        old = self._spec  # each head's item has its own (equal) table: compared by content
        if old is None or (old.levels, old.fmt, old.rows_px, old.cols_px) != (
                levels, fmt, rows_px, cols_px) or not same_table(old.lut, lut):
            self._spec = _Spec(lut, levels, fmt, rows_px, cols_px)  # one reference swap

    def set_heads(self, heads) -> None:
        self._heads = tuple(heads)

    def __call__(self, result) -> None:
        """Make the visible heads' images of `result` (compute thread)."""
        spec, heads = self._spec, self._heads
        weights = result.weights  # (h, n, n)
        if spec is None or weights.ndim != 3:
            return
        n_rows, n_cols = weights.shape[1:]
        factors = (pool_factor(n_rows, spec.rows_px), pool_factor(n_cols, spec.cols_px))
        images = {}
        for head in heads:
            if head < weights.shape[0]:
                made = make_prepared(weights[head], *factors, spec.lut, spec.levels, spec.fmt)
                if made is not None:
                    images[head] = {factors: made}
        with self._lock:
            self._ready = [entry for entry in self._ready
                           if entry[0]() is not None and entry[0]() is not weights]
            self._ready = (self._ready + [(weakref.ref(weights), images)])[-KEEP_RESULTS:]
            self.prepared += 1

    def take(self, weights) -> dict:
        """{head: {(rows, cols): Prepared}} made for this weights array ({} when none)."""
        with self._lock:
            for i, (made_for, images) in enumerate(self._ready):
                if made_for() is weights:
                    del self._ready[: i + 1]  # older ones will not be shown any more
                    return images
        return {}
