"""The training curves: loss (train, held-out), task accuracy, and each head's role scores.

Four plots side by side over the training step: loss, accuracy, previous-token score and induction score of
every head (one colour per head, layer 0 solid, layer 1 dashed), with a dotted line at the
switch-on threshold and a ring on each curve where its head switched on (core.training's
switch-step rule). A vertical line marks the step the heads below show (the scrubber's).
`set_curves` takes the arrays of `Trainer.curves()`-style records; nothing is computed here
but the drawing.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt

from ...core.training import ROLES, SWITCH_THRESHOLD, switch_steps
from ..plotting.axes import fraction_ticks, set_legend_size, style_axes
from ..plotting.fonts import css_pt
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from ..plotting.matrix import free_title_width, keep_auto_button_off_views

# Okabe-Ito without the yellow (as the PE curves; views do not import each other)
CURVE_COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999")
LOSS_COLOURS = {"train": "#999999", "heldout": "#0072B2"}


def records_arrays(records) -> dict:
    """LogRecords → arrays: steps (n,), train_loss (n,), heldout_loss (n,), accuracy (n,), scores (n, L, h, 2)."""
    return {"steps": np.array([r.step for r in records]),
            "train_loss": np.array([r.train_loss for r in records], dtype=float),
            "heldout_loss": np.array([r.heldout_loss for r in records], dtype=float),
            "accuracy": np.array([r.accuracy for r in records], dtype=float),
            "scores": np.stack([r.scores for r in records])}


TITLES = (QT_TRANSLATE_NOOP("training.curves", "Loss"), QT_TRANSLATE_NOOP("training.curves", "Accuracy (held-out)"),
          QT_TRANSLATE_NOOP("training.curves", "Previous-token score"),
          QT_TRANSLATE_NOOP("training.curves", "Induction score"))
LOSS_NAMES = {"train": QT_TRANSLATE_NOOP("training.curves", "train loss"),
              "heldout": QT_TRANSLATE_NOOP("training.curves", "held-out loss")}
DASHES = QT_TRANSLATE_NOOP("training.curves", "layer 1 (dashed)")
UNIT_TICKS = fraction_ticks(1.0)  # 0.5, then 0 and 1, then the quarters where they fit


def _plot(layout: pg.GraphicsLayoutWidget, row: int, col: int, title: str) -> pg.PlotItem:
    plot = layout.addPlot(row=row, col=col)
    free_title_width(plot)  # a long title must not hold the layout wider than the tab
    plot.setTitle(title, color="k")
    # no axis titles: the plot's title says what is drawn, and the x axis is the step (the
    # caption says so); on a 1024 × 768 projector their rows left the curves no height
    plot.setMenuEnabled(False)
    plot.hideButtons()
    keep_auto_button_off_views(plot)  # _arrange removes and re-adds the plots
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.setMouseEnabled(False, False)
    return plot


def _grid_width(widths: list[float], columns: int) -> float:
    """The width of entries laid out row by row in `columns` columns (pyqtgraph's LegendItem
    order): the sum of each column's widest entry."""
    return sum(max(widths[c::columns]) for c in range(columns))


class TrainingCurves(pg.GraphicsLayoutWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground("w")
        self.loss_plot = _plot(self, 0, 0, translate("training.curves", TITLES[0]))
        self.accuracy_plot = _plot(self, 0, 1, translate("training.curves", TITLES[1]))
        self.accuracy_plot.setYRange(0, 1.02, padding=0)
        self.accuracy_plot.getAxis("left").setTicks(UNIT_TICKS)
        self.role_plots = {ROLES[0]: _plot(self, 0, 2, translate("training.curves", TITLES[2])),
                           ROLES[1]: _plot(self, 0, 3, translate("training.curves", TITLES[3]))}
        self.plots = [self.loss_plot, self.accuracy_plot, *self.role_plots.values()]
        # one legend under the plots: the two losses, then which colour is which head (layer 1
        # dashed); its columns follow the width (_fit_legend)
        self.legend = pg.LegendItem(labelTextSize="9pt", labelTextColor="k", colCount=5)
        self._columns = 4
        self.addItem(self.legend, row=1, col=0, colspan=4)
        self.ci.layout.setRowStretchFactor(0, 1)
        self.ci.layout.setRowStretchFactor(1, 0)
        self.loss_curves = {}
        for key, name in LOSS_NAMES.items():
            self.loss_curves[key] = self.loss_plot.plot(pen=pg.mkPen(LOSS_COLOURS[key], width=2))
            self.legend.addItem(self.loss_curves[key], translate("training.curves", name))
        self.accuracy_curve = self.accuracy_plot.plot(pen=pg.mkPen("#009E73", width=2))
        for plot in self.role_plots.values():
            plot.setYRange(0, 1.02, padding=0)
            plot.getAxis("left").setTicks(UNIT_TICKS)
            plot.addItem(pg.InfiniteLine(SWITCH_THRESHOLD, angle=0,
                                         pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DotLine)))
        self.step_lines = [pg.InfiniteLine(0, angle=90, pen=pg.mkPen("#CC0000", width=1.5,
                                                                     style=Qt.PenStyle.DashLine))
                           for _ in self.plots]
        for plot, line in zip(self.plots, self.step_lines):
            plot.addItem(line)
            line.setVisible(False)
        self.role_curves: dict = {}   # (role, layer, head) -> PlotDataItem
        self._dashes = None           # the legend's sample for layer 1
        self.switch_marks: dict = {}  # role -> ScatterPlotItem
        self._shape = None
        self._width = 2
        self._x_end = None            # the step axes' fixed end (set_records' span)
        self.switches: list = []

    def clear_curves(self) -> None:
        """Empty every curve (GraphicsLayoutWidget.clear would remove the plots themselves)."""
        for curve in (*self.loss_curves.values(), self.accuracy_curve, *self.role_curves.values()):
            curve.clear()
        for marks in self.switch_marks.values():
            marks.clear()
        self.switches = []
        self.set_marked_step(None)
        self._x_end = None
        for plot in self.plots:
            plot.enableAutoRange(x=True)

    def _ensure_heads(self, layers: int, heads: int) -> None:
        if self._shape == (layers, heads):
            return
        for (role, layer, _), curve in self.role_curves.items():
            if role == ROLES[0] and layer == 0:
                self.legend.removeItem(curve)
            self.role_plots[role].removeItem(curve)
        if self._dashes is not None:
            self.legend.removeItem(self._dashes)
            self._dashes = None
        self.role_curves = {}
        for role, plot in self.role_plots.items():
            for layer in range(layers):
                for head in range(heads):
                    colour = CURVE_COLORS[head % len(CURVE_COLORS)]
                    style = Qt.PenStyle.SolidLine if layer == 0 else Qt.PenStyle.DashLine
                    curve = plot.plot(pen=pg.mkPen(colour, width=self._width, style=style))
                    self.role_curves[role, layer, head] = curve
                    if role == ROLES[0] and layer == 0:
                        self.legend.addItem(curve, f"h{head}")
            if role == ROLES[0] and layers > 1:  # one entry says what the dashes are
                self._dashes = pg.PlotDataItem(pen=pg.mkPen("#555555", width=self._width,
                                                            style=Qt.PenStyle.DashLine))
                self.legend.addItem(self._dashes, translate("training.curves", DASHES))
            if role not in self.switch_marks:
                self.switch_marks[role] = pg.ScatterPlotItem(size=12, pen=pg.mkPen("k", width=2),
                                                             brush=None, symbol="o")
                plot.addItem(self.switch_marks[role])
        self._shape = (layers, heads)
        self._fit_legend()

    def set_records(self, records, span: int | None = None) -> None:
        """Draw all logged records so far (LogRecords of one run). With `span` (the run's steps)
        the step axes are fixed at 0 … span (or the last step, if further): the curves grow across
        them, and the axes are not laid out again at every redraw (they were most of the Train
        tab's repaint while training)."""
        if not records:
            self.clear_curves()
            return
        c = records_arrays(records)
        steps = c["steps"]
        if span is not None:
            self._fix_steps(max(int(span), int(steps[-1])))
        _, layers, heads, _ = c["scores"].shape
        self._ensure_heads(layers, heads)
        self.loss_curves["train"].setData(steps[1:], c["train_loss"][1:])  # nan at step 0
        self.loss_curves["heldout"].setData(steps, c["heldout_loss"])
        self.accuracy_curve.setData(steps, c["accuracy"])
        for (role, layer, head), curve in self.role_curves.items():
            curve.setData(steps, c["scores"][:, layer, head, ROLES.index(role)])
        self.switches = switch_steps(steps, c["scores"])
        for r, role in enumerate(ROLES):
            spots = []
            for layer in range(layers):
                for head in range(heads):
                    at = self.switches[layer][head][role]
                    if at is not None:
                        i = int(np.searchsorted(steps, at))
                        spots.append({"pos": (at, float(c["scores"][i, layer, head, r])),
                                      "pen": pg.mkPen(CURVE_COLORS[head % len(CURVE_COLORS)], width=3)})
            self.switch_marks[role].setData(spots)

    def _fix_steps(self, end: int) -> None:
        if end != self._x_end:
            self._x_end = end
            for plot in self.plots:
                plot.setXRange(0, end, padding=0.02)  # (turns the x auto-range off)

    def switch_count(self, role: str) -> int:
        """How many switch-on marks the role's plot shows (tests)."""
        return len(self.switch_marks[role].data) if role in self.switch_marks else 0

    def set_marked_step(self, step: int | None) -> None:
        for line in self.step_lines:
            line.setVisible(step is not None)
            if step is not None:
                line.setPos(step)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """The plot titles and the legend's names in the UI language."""
        for plot, title in zip(self.plots, TITLES):
            plot.setTitle(translate("training.curves", title), color="k")
        names = {id(curve): LOSS_NAMES[key] for key, curve in self.loss_curves.items()}
        if self._dashes is not None:
            names[id(self._dashes)] = DASHES
        for sample, label in self.legend.items:
            if id(sample.item) in names:
                label.setText(translate("training.curves", names[id(sample.item)]))

    def set_presentation(self, on: bool) -> None:
        self._width = 4 if on else 2
        for plot in self.plots:
            style_axes(plot, on)
        for curve in self.role_curves.values():
            pen = curve.opts["pen"]
            pen.setWidthF(self._width)
            curve.setPen(pen)
        set_legend_size(self.legend, css_pt(13) if on else "9pt")
        self._arrange()
        self._fit_legend()

    def _fit_legend(self) -> None:
        """The most legend columns whose grid fits the width (a fixed count held the plots wider
        than a 1024-pixel screen; one column width for every entry left four rows at 1024 × 768,
        and the curves above them no height): each column is as wide as its widest entry."""
        legend = getattr(self, "legend", None)
        if legend is None or not legend.items:
            return
        widths = [sample.boundingRect().width() + label.item.boundingRect().width() + 24
                  for sample, label in legend.items]
        room = self.viewport().width() - 16
        columns = next((c for c in range(len(widths), 1, -1) if _grid_width(widths, c) <= room), 1)
        if columns != legend.columnCount:
            legend.setColumnCount(columns)

    def _arrange(self) -> None:
        """Four plots in a row when each gets ≥ MIN_PLOT_PX of width, else two rows of two."""
        if not hasattr(self, "legend"):  # (resized inside __init__)
            return
        columns = 4 if self.viewport().width() >= 4 * self._min_plot_px() else 2
        if columns == self._columns:
            return
        for plot in (*self.plots, self.legend):
            self.ci.removeItem(plot)
        for i, plot in enumerate(self.plots):
            self.ci.addItem(plot, row=i // columns, col=i % columns)
        rows = 4 // columns
        self.ci.addItem(self.legend, row=rows, col=0, colspan=columns)
        for row in range(rows + 1):
            self.ci.layout.setRowStretchFactor(row, 0 if row == rows else 1)
        self._columns = columns

    def _min_plot_px(self) -> int:
        return 360 if getattr(self, "_width", 2) > 2 else 230  # presentation: larger fonts need more

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._arrange()
        self._fit_legend()
