"""Cumulative FLOPs over all steps, with and without the cache, and where we are now."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

from ...core import KVTrace
from ..plotting.axes import set_legend_size, set_stride_ticks, set_title, style_axes
from ..plotting.fonts import css_pt, ui_font
from ..plotting.i18n import translate

CACHED_COLOR = "#0072B2"
RECOMPUTE_COLOR = "#D55E00"
MAX_STEP_LABELS = 8  # steps numbered on the x axis: 0, 2, 4, … from 9 steps (13 ran together at 1024 px)


class KVFlopsPlot(QWidget):
    """Two curves set once per trace; a step moves one line and two dots."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.log_check = QCheckBox(translate("kv.flops_plot", "log scale (FLOPs)"))
        self.log_check.toggled.connect(self.set_log)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.log_check)
        self.plot = self.graphics.addPlot(row=0, col=0)
        self._fit_title()
        self.plot.setLabel("bottom", translate("kv.flops_plot", "step t"))
        self.plot.setLabel("left", translate("kv.flops_plot", "cumulative"), units="FLOP")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(False, False)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.cached_curve = pg.PlotDataItem(pen=pg.mkPen(CACHED_COLOR, width=2))
        self.recompute_curve = pg.PlotDataItem(pen=pg.mkPen(RECOMPUTE_COLOR, width=2))
        self.marker_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#444444", width=1, style=Qt.DashLine))
        self.marker_dots = pg.PlotDataItem(pen=None, symbol="o", symbolSize=10, symbolPen=pg.mkPen("k"),
                                           symbolBrush=[pg.mkBrush(CACHED_COLOR),
                                                        pg.mkBrush(RECOMPUTE_COLOR)])
        for item in (self.cached_curve, self.recompute_curve, self.marker_line, self.marker_dots):
            self.plot.addItem(item)
        # One column, short labels: a wide legend would widen the layout past its widget.
        self.legend = pg.LegendItem(labelTextSize="9pt", labelTextColor="k")
        self.legend.addItem(self.cached_curve, translate("kv.flops_plot", "with KV cache (≈ linear)"))
        self.legend.addItem(self.recompute_curve, translate("kv.flops_plot",
                                                            "recomputing the prefix (≈ quadratic)"))
        self.graphics.addItem(self.legend, row=1, col=0)
        self.graphics.ci.layout.setRowStretchFactor(0, 1)
        self._legend_inside = False
        style_axes(self.plot, False)
        self.log_check.setFont(ui_font(10))
        self._cached = self._recompute = None  # (n,) cumulative FLOPs once a trace is set
        self._presentation = False

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.log_check.setText(translate("kv.flops_plot", "log scale (FLOPs)"))
            self.plot.setLabel("bottom", translate("kv.flops_plot", "step t"))
            for (_sample, label), text in zip(self.legend.items, (
                    translate("kv.flops_plot", "with KV cache (≈ linear)"),
                    translate("kv.flops_plot", "recomputing the prefix (≈ quadratic)"))):
                label.setText(text)
            self.set_presentation(self._presentation)  # the y label and the title

    def set_trace(self, trace: KVTrace) -> None:
        steps = np.arange(len(trace.steps))
        self._cached = np.array([s.cum_flops_cached for s in trace.steps], dtype=np.float64)
        self._recompute = np.array([s.cum_flops_recompute for s in trace.steps], dtype=np.float64)
        self.cached_curve.setData(steps, self._cached)
        self.recompute_curve.setData(steps, self._recompute)
        set_stride_ticks(self.plot.getAxis("bottom"), len(steps), MAX_STEP_LABELS)
        self._frame()

    def _fit_title(self) -> None:
        """The title in full where it fits beside the left axis, else shorter: at 1024 px it was
        wider than the plot, and the layout it widened was cut off at the right (title, ticks)."""
        room = self.graphics.width() - self.plot.getAxis("left").width() - 16
        set_title(self.plot, translate("kv.flops_plot", "cumulative FLOPs up to step t"))
        if self.plot.titleLabel.item.boundingRect().width() > room:
            set_title(self.plot, translate("kv.flops_plot", "FLOPs up to step t"))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_title()

    def _frame(self) -> None:
        if self._cached is None:
            return
        last = max(1, len(self._cached) - 1)
        if self.log_check.isChecked():
            low, high = np.log10(self._cached[0]), np.log10(self._recompute[-1])
            self.plot.setRange(xRange=(0, last), yRange=(low, high), padding=0.03)
        else:
            self.plot.setRange(xRange=(0, last), yRange=(0, self._recompute[-1]), padding=0.03)

    def set_log(self, on: bool) -> None:
        """Log y: both curves readable at once (the cached one hugs zero on a linear axis)."""
        if self.log_check.isChecked() != on:
            self.log_check.setChecked(on)  # comes back here through toggled
            return
        self.plot.setLogMode(y=on)
        self._frame()

    def show_step(self, t: int) -> None:
        self.marker_line.setPos(t)
        self.marker_dots.setData([t, t], [self._cached[t], self._recompute[t]])

    def set_presentation(self, on: bool) -> None:
        self._presentation = on
        width = 4 if on else 2
        self.cached_curve.setPen(pg.mkPen(CACHED_COLOR, width=width))
        self.recompute_curve.setPen(pg.mkPen(RECOMPUTE_COLOR, width=width))
        set_legend_size(self.legend, css_pt(13) if on else "9pt")
        self._place_legend(inside=on)
        # the title says "cumulative FLOPs": on a projector the rotated y label is only the
        # unit, e.g. "(kFLOP)", so it fits the plot's height (the long one was cut off)
        self.plot.setLabel("left", "" if on else translate("kv.flops_plot", "cumulative"),
                           units="FLOP")
        # the ticks count the steps and the title names t: the axis title gives way on a projector
        self.plot.showLabel("bottom", not on)
        style_axes(self.plot, on)
        self._fit_title()
        self.log_check.setFont(ui_font(14 if on else 10))

    def _place_legend(self, inside: bool) -> None:
        """Under the plot, or (presentation mode) in its top-left corner, where the curves are
        not (they start at 0 and rise to the right): at 1024 x 768 the legend's own rows left
        the curves ~20 px of height."""
        if inside == self._legend_inside:
            return
        self._legend_inside = inside
        if inside:
            self.graphics.ci.removeItem(self.legend)  # (also takes it off the scene)
            self.legend.setParentItem(self.plot.getViewBox())
            self.legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(6, 4))
        else:
            self.legend.setParentItem(None)
            self.plot.getViewBox().scene().removeItem(self.legend)
            self.graphics.addItem(self.legend, row=1, col=0)
