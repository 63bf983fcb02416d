"""A few columns of the PE table drawn across positions, so their frequencies show."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt

from ...core.positional import frequencies
from ..plotting.axes import set_count_ticks, set_legend_size, style_axes
from ..plotting.fonts import css_pt
from ..plotting.i18n import translate

MAX_CURVES = 8
MAX_LEGEND_COLUMNS = 3
LEGEND_GAP = 30  # px between legend columns, with the legend's own spacing
GUIDE_SAMPLES = 12      # per position, for the thin continuous sinusoid behind the markers
GUIDE_MAX_POSITIONS = 64
# Okabe-Ito, without the yellow that vanishes on white.
CURVE_COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")


def dim_label(dim: int) -> str:
    """'dim 2 sin (i=1)': columns 2i are sines, 2i+1 cosines of the same frequency."""
    return translate("pe.curves", "dim {dim} {fn} (i={i})").format(dim=dim,
                                                                   fn="sin" if dim % 2 == 0 else "cos",
                                                                  i=dim // 2)


class PECurvesView(pg.GraphicsLayoutWidget):
    """One curve per chosen column: the table's values (markers when few) plus, for short
    ranges, the continuous sin / cos they sample, so 4 positions still read as waves."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground("w")
        self.plot = self.addPlot(row=0, col=0)
        self.plot.setTitle(translate("pe.curves", "PE columns across positions"), color="k")
        self.plot.setLabel("bottom", translate("pe.curves", "position"))
        self.plot.setLabel("left", translate("pe.curves", "PE value"))
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setYRange(-1.08, 1.08, padding=0)
        self.legend = pg.LegendItem(labelTextSize="9pt", labelTextColor="k",
                                    colCount=MAX_LEGEND_COLUMNS)
        self.addItem(self.legend, row=1, col=0)
        self.ci.layout.setRowStretchFactor(0, 1)
        self.ci.layout.setRowStretchFactor(1, 0)
        self.end_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#444444", width=1, style=Qt.DashLine))
        self.plot.addItem(self.end_line)
        style_axes(self.plot, False)
        self.curves: dict[int, pg.PlotDataItem] = {}
        self.guides: dict[int, pg.PlotDataItem] = {}
        self._width = 2

    def set_dims(self, dims: list[int]) -> None:
        """Replace the drawn columns (their data arrive with set_table)."""
        for item in list(self.curves.values()) + list(self.guides.values()):
            self.plot.removeItem(item)
        self.legend.clear()
        self.curves, self.guides = {}, {}
        for i, dim in enumerate(dims):
            color = CURVE_COLORS[i % len(CURVE_COLORS)]
            guide = pg.PlotDataItem(pen=pg.mkPen(color, width=self._width - 1))
            curve = pg.PlotDataItem(pen=pg.mkPen(color, width=self._width))
            self.plot.addItem(guide)
            self.plot.addItem(curve)
            self.legend.addItem(curve, dim_label(dim))
            self.curves[dim], self.guides[dim] = curve, guide
        self._fit_legend()

    def set_table(self, table: np.ndarray, n_tokens: int) -> None:
        """table: (P, d) from the core; a dashed line marks the sentence's last position."""
        p, d = table.shape
        positions = np.arange(p)
        few = p <= GUIDE_MAX_POSITIONS
        fine = np.linspace(0, p - 1, (p - 1) * GUIDE_SAMPLES + 1) if few else None
        for i, (dim, curve) in enumerate(self.curves.items()):
            color = CURVE_COLORS[i % len(CURVE_COLORS)]
            curve.setData(positions, table[:, dim], symbol="o" if few else None,
                          symbolSize=3 * self._width + 1, symbolBrush=color, symbolPen=None,
                          pen=None if few else pg.mkPen(color, width=self._width))
            if few:
                angle = fine * frequencies(d)[dim]
                self.guides[dim].setData(fine, np.sin(angle) if dim % 2 == 0 else np.cos(angle))
            self.guides[dim].setVisible(few)
        self.end_line.setPos(n_tokens - 1)
        self.end_line.setVisible(p > n_tokens)
        self.plot.setXRange(0, max(1, p - 1), padding=0.02)
        set_count_ticks(self.plot.getAxis("bottom"), p)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.plot.setTitle(translate("pe.curves", "PE columns across positions"), color="k")
            self.plot.setLabel("bottom", translate("pe.curves", "position"))
            self.plot.setLabel("left", translate("pe.curves", "PE value"))
            dims = {id(curve): dim for dim, curve in self.curves.items()}
            for sample, label in self.legend.items:
                if id(sample.item) in dims:
                    label.setText(dim_label(dims[id(sample.item)]))

    def set_presentation(self, on: bool) -> None:
        self._width = 4 if on else 2
        style_axes(self.plot, on)
        set_legend_size(self.legend, css_pt(13) if on else "9pt")
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As many legend columns (up to 3) as fit the width: three at 13 pt were wider than
        the plot, and the legend and the curves' right end were cut off."""
        if not getattr(self, "legend", None) or not self.legend.items:  # (resized in __init__)
            return
        entry = max(sample.boundingRect().width() + label.item.boundingRect().width()
                    for sample, label in self.legend.items) + LEGEND_GAP  # text, not its cell
        columns = max(1, min(MAX_LEGEND_COLUMNS, int((self.viewport().width() - 16) // entry)))
        if columns != self.legend.columnCount:
            self.legend.setColumnCount(columns)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_legend()
