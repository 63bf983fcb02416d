"""Every head of a LoRA fine-tune on the fixed probe: before, after, and their difference.

One triple per head (layer-major): the base's attention (step 0 of the fine-tune, where B = 0),
the adapted model's at the shown step, and after − before in a diverging map (CET-D1: white is
no change, red more attention, blue less) on one symmetric scale shared by every head, so the
heads the LoRA changed most stand out. The triples are laid out in as many columns as make the
heatmaps largest (the heads grid's rule, counted in triples). Nothing is computed here but the
subtraction of two snapshots for the picture; the hover line names the cell and its values.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..plotting.colormaps import DEFAULT_COLORMAP, get_colormap, resolve_colormap, symmetric_levels
from ..plotting.fonts import ui_font
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from ..plotting.labels import plain_label
from ..plotting.matrix import MatrixHeatmap

DIFFERENCE_COLORMAP = "CET-D1"
MAX_HEADS = 16             # as the heads grid: more are not drawn (the caption says so)
PANEL_OVERHEAD_PX = (3, 3)   # spacing around a heatmap (width, height)
LABEL_PX = 34                # a triple's "L0h1" at its left
HEADER_PX = 20               # the column headings' row
BARS_PX = 50                 # the two colour bars under the heads, with their tick labels (height)
CONTEXT = "training.lora_heads"
# the column headings; Δ = after − before (the caption says so)
KINDS = (QT_TRANSLATE_NOOP("training.lora_heads", "before"), QT_TRANSLATE_NOOP("training.lora_heads", "after"), "Δ")


def triple_columns(count: int, width: float, height: float) -> int:
    """How many triples (a label and three heatmaps) per row make each heatmap's side largest."""
    best, best_side = 1, -math.inf
    for cols in range(1, max(1, count) + 1):
        rows = math.ceil(count / cols)
        side = min((width / cols - LABEL_PX) / 3 - PANEL_OVERHEAD_PX[0], height / rows - PANEL_OVERHEAD_PX[1])
        if side > best_side + 0.5:
            best, best_side = cols, side
    return best


class _Title(pg.LabelItem):
    """A triple's title that never holds the layout wider than its three panels (a long
    Korean or English line is cut at the panels' edge instead of pushing them off the view)."""

    def updateMin(self) -> None:  # noqa: N802 - pyqtgraph's name
        super().updateMin()
        height = self.itemRect().height()
        self.setMinimumWidth(0)
        self.setMaximumHeight(height)  # the heatmap rows take the height, not the titles
        self._sizeHint[Qt.SizeHint.MinimumSize] = (0, height)
        self._sizeHint[Qt.SizeHint.PreferredSize] = (self.itemRect().width(), height)
        self.updateGeometry()


def _panel() -> MatrixHeatmap:
    heatmap = MatrixHeatmap()
    for name in ("left", "bottom"):
        heatmap.plot.hideAxis(name)
    heatmap.plot.setContentsMargins(1, 1, 1, 1)
    heatmap.plot.getViewBox().setAspectLocked(True)  # square cells, as the heads grid's
    return heatmap


class LoraHeads(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.caption = QLabel(" ")
        self.caption.setWordWrap(True)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        self.grid = self.view.ci.addLayout(row=0, col=0, colspan=2)
        self.grid.layout.setHorizontalSpacing(PANEL_OVERHEAD_PX[0])
        self.grid.layout.setVerticalSpacing(PANEL_OVERHEAD_PX[1])
        # the colour bars lie under the heads: the width is what the triples lack at 1024 pixels
        self.weight_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=get_colormap(DEFAULT_COLORMAP),
                                          interactive=False, width=10, orientation="horizontal")
        self.difference_bar = pg.ColorBarItem(values=(-1.0, 1.0), interactive=False, width=10,
                                              colorMap=resolve_colormap(DIFFERENCE_COLORMAP),
                                              orientation="horizontal")
        self.view.ci.addItem(self.weight_bar, row=1, col=0)
        self.view.ci.addItem(self.difference_bar, row=1, col=1)
        self.view.ci.layout.setRowStretchFactor(0, 1)
        self.view.ci.layout.setRowStretchFactor(1, 0)
        self.hover = plain_label(QLabel(" "))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.hover)
        self.panels: list[tuple[MatrixHeatmap, MatrixHeatmap, MatrixHeatmap]] = []
        self.titles: list[pg.LabelItem] = []  # one per triple, over its three panels
        self.headers: list[pg.LabelItem] = []  # "before", "after", "difference" over each column
        self.before = self.after = self.difference = None  # (L·h, n, n)
        self.heads_per_layer = 1
        self.step: int | None = None
        self._columns = 0
        self._colormap = DEFAULT_COLORMAP
        self.view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.set_presentation(False)

    # -- data ---------------------------------------------------------------------------
    def clear(self) -> None:
        self.before = self.after = self.difference = None
        self.step = None
        for triple in self.panels:
            for panel in triple:
                panel.image.clear()
        self._caption()

    def set_attention(self, before: np.ndarray, after: np.ndarray, step: int) -> None:
        """before, after: (layers, heads, n, n) attention on the probe; `step` the after's."""
        layers, heads, n, _ = before.shape
        self.heads_per_layer = heads
        self.before = before.reshape(layers * heads, n, n)  # (L·h, n, n)
        self.after = after.reshape(layers * heads, n, n)
        self.difference = self.after - self.before  # (L·h, n, n), signed
        self.step = step
        self._ensure_panels(min(layers * heads, MAX_HEADS))
        levels = symmetric_levels(self.difference[:MAX_HEADS])
        for index, (b, a, d) in enumerate(self.panels):
            b.set_image(self.before[index], (0.0, 1.0))
            a.set_image(self.after[index], (0.0, 1.0))
            d.set_image(self.difference[index], levels)
        self.difference_bar.setLevels(levels)
        self._titles()
        self._caption()

    def difference_image(self, layer: int, head: int) -> np.ndarray:
        """The difference drawn for one head (tests)."""
        return self.panels[layer * self.heads_per_layer + head][2].image.image

    def set_colormap(self, name: str) -> None:
        """The window's colormap for the weights (the difference keeps its diverging map)."""
        self._colormap = name
        cmap = get_colormap(name)
        self.weight_bar.setColorMap(cmap)
        for b, a, _ in self.panels:
            b.image.setColorMap(cmap)
            a.image.setColorMap(cmap)

    # -- layout -------------------------------------------------------------------------
    def _ensure_panels(self, count: int) -> None:
        if len(self.panels) == count:
            return
        self.grid.clear()
        self.panels = []
        self.titles = [_Title("", color="k") for _ in range(count)]
        cmap, diverging = get_colormap(self._colormap), resolve_colormap(DIFFERENCE_COLORMAP)
        for _ in range(count):
            before, after, difference = _panel(), _panel(), _panel()
            before.image.setColorMap(cmap)
            after.image.setColorMap(cmap)
            difference.image.setColorMap(diverging)
            self.panels.append((before, after, difference))
        self._columns = 0
        self._relayout()

    def _relayout(self) -> None:
        """Row 0: "before", "after", "Δ" over each column of triples; then one row per row of
        triples: its "L0h1" label at the left and the three heatmaps."""
        if not self.panels:
            return
        height = self.view.height() - BARS_PX - HEADER_PX  # the bars, the column headings
        columns = triple_columns(len(self.panels), max(1, self.view.width() - 8), max(1, height))
        if columns == self._columns:
            return
        self.grid.clear()  # (removes the items from the layout; they are added again below)
        used = min(columns, len(self.panels))
        self.headers = [_Title("", color="k") for _ in range(3 * used)]
        for i, header in enumerate(self.headers):
            self.grid.addItem(header, row=0, col=4 * (i // 3) + 1 + i % 3)
        for index, (title, triple) in enumerate(zip(self.titles, self.panels)):
            row, col = divmod(index, columns)
            self.grid.addItem(title, row=1 + row, col=4 * col)
            self.grid.layout.setAlignment(title, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight)
            for k, panel in enumerate(triple):
                self.grid.addItem(panel.plot, row=1 + row, col=4 * col + 1 + k)
        for row in range(1 + math.ceil(len(self.panels) / columns)):
            self.grid.layout.setRowStretchFactor(row, 0 if row == 0 else 1)
        for col in range(4 * used):
            self.grid.layout.setColumnStretchFactor(col, 0 if col % 4 == 0 else 1)
        self._columns = columns
        self._titles()

    def _titles(self) -> None:
        """The column headings and each triple's "L0 h1"."""
        size = f"{self._title_pt}pt"
        words = [translate(CONTEXT, kind) if kind != "Δ" else kind for kind in KINDS]
        for i, header in enumerate(self.headers):
            header.setText(words[i % 3], size=size, color="#444444")
        for index, title in enumerate(self.titles):
            layer, head = divmod(index, self.heads_per_layer)
            title.setText(f"L{layer}h{head}", size=size, color="k", bold=True)

    def _caption(self) -> None:
        if self.step is None:
            self.caption.setText(translate("training.lora_heads", "Before / after / difference of every head "
                                                    "appear when the fine-tune starts."))
            return
        text = translate("training.lora_heads", "Every head on the probe: before (the base), after (LoRA, step "
                                  "{step}) and Δ = after − before (red: more attention, blue: less; "
                                  "one scale for all heads, ±{top})").format(
            step=self.step, top=f"{self.difference_bar.levels()[1]:.2f}")
        total = len(self.before)
        if total > MAX_HEADS:
            text += " " + translate("training.lora_heads", "(heads 0–{last} of {count})").format(
                last=MAX_HEADS - 1, count=total)
        self.caption.setText(text)

    # -- events -------------------------------------------------------------------------
    def _on_mouse_moved(self, scene_pos) -> None:
        text = " "
        for index, triple in enumerate(self.panels):
            for panel in triple:
                if self.before is not None and panel.plot.sceneBoundingRect().contains(scene_pos):
                    point = panel.plot.getViewBox().mapSceneToView(scene_pos)
                    q, k = int(round(point.y())), int(round(point.x()))
                    n = self.before.shape[-1]
                    if 0 <= q < n and 0 <= k < n:
                        layer, head = divmod(index, self.heads_per_layer)
                        text = translate("training.lora_heads", "L{layer} head {head}: position {query} → {key}: "
                                                  "before {before}, after {after}, difference {diff}").format(
                            layer=layer, head=head, query=q, key=k,
                            before=f"{self.before[index, q, k]:.3f}", after=f"{self.after[index, q, k]:.3f}",
                            diff=f"{self.difference[index, q, k]:+.3f}")
        self.hover.setText(text)

    def set_presentation(self, on: bool) -> None:
        self._title_pt = 13 if on else 8
        font = ui_font(14 if on else 9)
        self.caption.setFont(font)
        self.hover.setFont(font)
        if self.before is not None:
            self._titles()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            if self.before is not None:
                self._titles()
            self._caption()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._relayout()
