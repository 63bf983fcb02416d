"""Every head of a training snapshot on the fixed probe: one heads grid per layer.

The grids are the heads view's own `HeadsGrid` (gui/heads), fed a `ProbePicture` per layer, so
the colours, the argmax marks, the hover text and the presentation sizes are the heads tab's.
Views do not import each other: the window hands the grid class in (`make_grid`).
`set_snapshot` only swaps data into the existing panels (cheap enough to call as training goes).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..plotting.fonts import ui_font
from ..plotting.i18n import translate
from .picture import probe_picture


class SnapshotHeads(QWidget):
    def __init__(self, make_grid, parent=None):
        """`make_grid()` → a new heads grid (gui.heads.grid.HeadsGrid)."""
        super().__init__(parent)
        self._make_grid = make_grid
        self.caption = QLabel(" ")
        self.caption.setWordWrap(True)
        self.grids: list = []  # one HeadsGrid per layer
        self.snapshot = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        self._layout.addWidget(self.caption)
        self._colormap = None
        self._presentation = False
        self.set_presentation(False)

    def set_snapshot(self, snapshot, probe: np.ndarray) -> None:
        """Show `snapshot` (core.training.Snapshot); `probe` the probe's token ids (n,)."""
        layers = snapshot.attention.shape[0]
        while len(self.grids) < layers:
            grid = self._make_grid()
            if self._colormap:
                grid.set_colormap(self._colormap)
            grid.set_presentation(self._presentation)
            self.grids.append(grid)
            self._layout.addWidget(grid, 1)
        for layer, grid in enumerate(self.grids):
            grid.setVisible(layer < layers)
            if layer < layers:
                grid.set_result(probe_picture(snapshot, layer, probe))
        self.snapshot = snapshot
        self.caption.setText(translate("training.heads", "Step {step}: every head on the fixed probe "
                                       "(layer 0 above, layer 1 below); held-out loss {loss}").format(
            step=snapshot.step, loss=f"{snapshot.heldout_loss:.3f}"))

    def shown_step(self) -> int | None:
        return None if self.snapshot is None else self.snapshot.step

    def set_colormap(self, name: str) -> None:
        self._colormap = name
        for grid in self.grids:
            grid.set_colormap(name)

    def set_presentation(self, on: bool) -> None:
        self._presentation = bool(on)
        self.caption.setFont(ui_font(14 if on else 10))
        for grid in self.grids:
            grid.set_presentation(on)
