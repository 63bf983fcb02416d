"""Every head of a training snapshot on the fixed probe, in one heads grid.

The grid is the heads view's own `HeadsGrid` (gui/heads), fed a `ProbePicture` (all layers,
layer-major), so the colours, argmax marks, hover text, presentation sizes and the choice of
columns are the heads tab's. Views do not import each other: the window hands the grid class in
(`make_grid`). `set_snapshot` only swaps data into the existing panels (cheap as training goes).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..plotting.fonts import ui_font
from ..plotting.i18n import translate
from .picture import blank_picture, probe_picture

# Presentation sizes are used only if they leave each heatmap at least this side (px); below it
# the grid keeps the normal sizes (at 1024 × 768, or in a 1400 × 900 window on a large screen,
# presentation axes and titles left 8 heads of both layers as slivers ~15 px high).
MIN_PRESENTATION_SIDE_PX = 90


class SnapshotHeads(QWidget):
    def __init__(self, make_grid, parent=None):
        """`make_grid()` → a new heads grid (gui.heads.grid.HeadsGrid)."""
        super().__init__(parent)
        self.caption = QLabel(" ")
        self.caption.setWordWrap(True)
        self.grid = make_grid()
        self.snapshot = None
        self._probe = None
        self._compact: bool | None = None  # the grid's presentation sizes (None: not set yet)
        self._presenting = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.grid, 1)
        self.set_presentation(False)

    def set_snapshot(self, snapshot, probe: np.ndarray) -> None:
        """Show `snapshot` (core.training.Snapshot); `probe` the probe's token ids (n,)."""
        self.grid.set_result(probe_picture(snapshot, probe, bool(self._compact)))
        self.snapshot, self._probe = snapshot, probe
        self.caption.setText(translate("training.heads", "Step {step} (the curves' x axis is the training step): "
                                       "every head on the fixed probe; title: layer, head, previous-token "
                                       "score | induction score; held-out loss {loss}").format(
            step=snapshot.step, loss=f"{snapshot.heldout_loss:.3f}"))

    def prepare(self, layers: int, heads: int, probe: np.ndarray) -> None:
        """Empty panels in this shape while there is no snapshot (built now, not mid-training)."""
        if self.snapshot is None:
            self.grid.set_result(blank_picture(layers, heads, probe, bool(self._compact)))
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

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the caption, and the titles of the grid
            if self.snapshot is not None:
                self.set_snapshot(self.snapshot, self._probe)
            elif self.grid.visible_heads():
                self.caption.setText(translate("training.heads", "No snapshot yet: press Start or Step."))

    def set_presentation(self, on: bool) -> None:
        self.caption.setFont(ui_font(10))
        self.caption.setVisible(not on)  # presentation: the room goes to the heads (the timeline shows the step)
        self._presenting = bool(on)
        self._apply_sizes()

    def _apply_sizes(self) -> None:
        """The grid's presentation sizes (and compact titles) only while the heatmaps keep
        MIN_PRESENTATION_SIDE_PX under them; normal sizes otherwise."""
        count = len(self.grid.visible_heads()) or 8
        big = self._presenting and self.grid.heatmap_side(True, count) >= MIN_PRESENTATION_SIDE_PX
        if big == self._compact:
            return
        self.grid.set_presentation(big)
        self._compact = big
        if self.snapshot is not None:
            self.set_snapshot(self.snapshot, self._probe)

    def uses_presentation_sizes(self) -> bool:
        return bool(self._compact)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._presenting:
            self._apply_sizes()
