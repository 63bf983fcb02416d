"""Drawing pieces the Inside attention pages share: a fixed plot, a token heatmap, a text line.

Heatmaps are the one labelled-matrix primitive (gui/plotting/matrix.MatrixHeatmap): row-major,
row 0 on top, token names through the one tick rule; their numbers are read back from
`image.image` by the tests.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ..plotting.colormaps import DEFAULT_COLORMAP
from ..plotting.fonts import ui_font
from ..plotting.labels import plain_label
from ..plotting.matrix import MatrixHeatmap

FOREGROUND = "#222222"
TICK_PT = 8


def fixed_plot(plot: pg.PlotItem) -> pg.PlotItem:
    """No mouse panning, context menu or auto-range button; readable axes."""
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.getViewBox().setMouseEnabled(False, False)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(pg.mkPen(FOREGROUND))
        axis.setTextPen(pg.mkPen(FOREGROUND))
        axis.setStyle(tickFont=ui_font(TICK_PT))
        axis.enableAutoSIPrefix(False)
    return plot


def axis_label(plot: pg.PlotItem, name: str, text: str) -> None:
    plot.getAxis(name).setLabel(text, color=FOREGROUND)
    plot.getAxis(name).label.setFont(ui_font(TICK_PT + 1))


class TokenHeatmap(MatrixHeatmap):
    """A matrix over tokens (rows the positions or queries, columns the keys or inputs)."""

    def __init__(self, plot: pg.PlotItem, colormap: str = DEFAULT_COLORMAP):
        super().__init__(plot, colormap)
        plot.getViewBox().setAspectLocked(True)  # square cells, as the heads grid's
        self.style_axes(FOREGROUND, TICK_PT)
        self.bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=self.image.getColorMap(), interactive=False, width=12)
        self.bar.setImageItem(self.image, insert_in=plot)

    def show(self, matrix: np.ndarray, labels, levels: tuple[float, float] | None = None, title: str = "") -> None:
        matrix = np.asarray(matrix, dtype=np.float64)
        if levels is None:
            levels = (0.0, max(float(matrix.max(initial=0.0)), 1e-12))
        self.set_image(matrix, levels)
        self.bar.setLevels(levels)
        self.set_token_ticks("left", labels, 8)
        self.set_token_ticks("bottom", labels, 5)
        self.set_title(title, color=FOREGROUND, size="9pt")

    def clear(self, title: str = "") -> None:
        self.image.clear()
        self.shape = (0, 0)
        self.set_ticks("left", [])
        self.set_ticks("bottom", [])
        self.set_title(title, color=FOREGROUND, size="9pt")

    def matrix(self) -> np.ndarray | None:
        """The numbers drawn (tests)."""
        return self.image.image


def text_label(text: str = "", selectable: bool = False) -> QLabel:
    """A wrapping line of explanation, plain text (tokens such as <s> are shown as written)."""
    label = plain_label(QLabel(text))
    label.setWordWrap(True)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def graphics() -> pg.GraphicsLayoutWidget:
    view = pg.GraphicsLayoutWidget()
    view.setBackground("w")
    return view
