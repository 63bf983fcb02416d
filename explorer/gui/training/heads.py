"""Every head of a training snapshot on the fixed probe, in one heads grid.

The grid is the heads view's own `HeadsGrid` (gui/heads), fed a `ProbePicture` (all layers,
layer-major), so the colours, argmax marks, hover text, presentation sizes and the choice of
columns are the heads tab's. Views do not import each other: the window hands the grid class in
(`make_grid`). `set_snapshot` only swaps data into the existing panels (cheap as training goes).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..plotting.fonts import ui_font
from ..plotting.i18n import translate
from .picture import blank_picture, probe_picture


class SnapshotHeads(QWidget):
    def __init__(self, make_grid, parent=None):
        """`make_grid()` → a new heads grid (gui.heads.grid.HeadsGrid)."""
        super().__init__(parent)
        self.caption = QLabel(" ")
        self.caption.setWordWrap(True)
        self.grid = make_grid()
        self.snapshot = None
        self._probe = None
        self._compact = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.grid, 1)
        self.set_presentation(False)

    def set_snapshot(self, snapshot, probe: np.ndarray) -> None:
        """Show `snapshot` (core.training.Snapshot); `probe` the probe's token ids (n,)."""
        self.grid.set_result(probe_picture(snapshot, probe, self._compact))
        self.snapshot, self._probe = snapshot, probe
        self.caption.setText(translate("training.heads", "Step {step} (the curves' x axis is the training step): "
                                       "every head on the fixed probe; title: layer, head, previous-token "
                                       "score | induction score; held-out loss {loss}").format(
            step=snapshot.step, loss=f"{snapshot.heldout_loss:.3f}"))

    def prepare(self, layers: int, heads: int, probe: np.ndarray) -> None:
        """Empty panels in this shape while there is no snapshot (built now, not mid-training)."""
        if self.snapshot is None:
            self.grid.set_result(blank_picture(layers, heads, probe, self._compact))
            self.caption.setText(translate("training.heads", "No snapshot yet: press Start or Step."))

    def clear(self) -> None:
        self.snapshot = None

    def head_image(self, layer: int, head: int) -> np.ndarray:
        """The image drawn for one head (tests)."""
        return self.grid.head_image(layer * self.snapshot.attention.shape[1] + head)

    def shown_step(self) -> int | None:
        return None if self.snapshot is None else self.snapshot.step

    def set_colormap(self, name: str) -> None:
        self.grid.set_colormap(name)

    def set_presentation(self, on: bool) -> None:
        self.caption.setFont(ui_font(10))
        self.caption.setVisible(not on)  # presentation: the room goes to the heads (the timeline shows the step)
        self.grid.set_presentation(on)
        self._compact = bool(on)
        if self.snapshot is not None:
            self.set_snapshot(self.snapshot, self._probe)
