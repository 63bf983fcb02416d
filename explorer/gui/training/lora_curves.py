"""The LoRA fine-tune's curves: the new task's loss and accuracy, LoRA against a full fine-tune.

Two plots over the fine-tune's step: held-out loss (and the batch's train loss) of the adapted
model, with the full fine-tune's held-out loss overlaid (dashed, when it runs) and a dotted line
at the base's loss on the new task (step 0: B = 0, the base itself); and held-out accuracy of
both. Nothing is computed here but the drawing of the records the session delivered.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt

from ..plotting.axes import fraction_ticks, set_legend_size, style_axes
from ..plotting.fonts import css_pt
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from ..plotting.matrix import free_title_width

CONTEXT = "training.lora_curves"
TITLES = (QT_TRANSLATE_NOOP("training.lora_curves", "Loss on the new task"), QT_TRANSLATE_NOOP("training.lora_curves", "Accuracy (held-out)"))
NAMES = {"lora": QT_TRANSLATE_NOOP("training.lora_curves", "LoRA held-out"),
         "lora_train": QT_TRANSLATE_NOOP("training.lora_curves", "LoRA train"),
         "full": QT_TRANSLATE_NOOP("training.lora_curves", "full fine-tune held-out"),
         "base": QT_TRANSLATE_NOOP("training.lora_curves", "base (step 0)")}
PENS = {"lora": ("#0072B2", Qt.PenStyle.SolidLine, 2), "lora_train": ("#999999", Qt.PenStyle.SolidLine, 1),
        "full": ("#D55E00", Qt.PenStyle.DashLine, 2), "base": ("#555555", Qt.PenStyle.DotLine, 1)}


def _pen(key: str, scale: float = 1.0):
    colour, style, width = PENS[key]
    return pg.mkPen(colour, width=width * scale, style=style)


def _plot(layout, col: int) -> pg.PlotItem:
    plot = layout.addPlot(row=0, col=col)
    free_title_width(plot)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.setMouseEnabled(False, False)
    return plot


def _xy(records, key: str, skip_first: bool = False):
    steps = np.array([r.step for r in records])
    values = np.array([getattr(r, key) for r in records], dtype=float)
    return (steps[1:], values[1:]) if skip_first else (steps, values)


class LoraCurves(pg.GraphicsLayoutWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground("w")
        self.loss_plot, self.accuracy_plot = _plot(self, 0), _plot(self, 1)
        self.accuracy_plot.setYRange(0, 1.02, padding=0)
        self.accuracy_plot.getAxis("left").setTicks(fraction_ticks(1.0))
        self.plots = (self.loss_plot, self.accuracy_plot)
        self.legend = pg.LegendItem(labelTextSize="9pt", labelTextColor="k", colCount=4)
        self.addItem(self.legend, row=1, col=0, colspan=2)
        self.ci.layout.setRowStretchFactor(0, 1)
        self.ci.layout.setRowStretchFactor(1, 0)
        self._scale = 1.0
        self.loss = {key: self.loss_plot.plot(pen=_pen(key)) for key in ("lora_train", "lora", "full")}
        self.base_line = pg.InfiniteLine(angle=0, pen=_pen("base"))
        self.base_line.setVisible(False)
        self.loss_plot.addItem(self.base_line)
        self._base_sample = pg.PlotDataItem(pen=_pen("base"))
        self.accuracy = {key: self.accuracy_plot.plot(pen=_pen(key)) for key in ("lora", "full")}
        for key in ("lora", "lora_train", "full"):
            self.legend.addItem(self.loss[key], translate(CONTEXT, NAMES[key]))
        self.legend.addItem(self._base_sample, translate(CONTEXT, NAMES["base"]))
        self.retranslate()

    def clear_curves(self) -> None:
        for curve in (*self.loss.values(), *self.accuracy.values()):
            curve.clear()
        self.base_line.setVisible(False)
        for plot in self.plots:
            plot.enableAutoRange(x=True)

    def set_records(self, records, full_records, span: int | None = None) -> None:
        """The adapted model's LogRecords and the full fine-tune's (may be empty); `span` fixes
        the step axes at 0 … span."""
        if not records:
            self.clear_curves()
            return
        if span is not None:
            for plot in self.plots:
                plot.setXRange(0, max(span, records[-1].step), padding=0.02)
        self.loss["lora"].setData(*_xy(records, "heldout_loss"))
        self.loss["lora_train"].setData(*_xy(records, "train_loss", skip_first=True))
        self.accuracy["lora"].setData(*_xy(records, "accuracy"))
        self.base_line.setPos(records[0].heldout_loss)
        self.base_line.setVisible(True)
        if full_records:
            self.loss["full"].setData(*_xy(full_records, "heldout_loss"))
            self.accuracy["full"].setData(*_xy(full_records, "accuracy"))
        else:
            self.loss["full"].clear()
            self.accuracy["full"].clear()

    def curve_points(self, key: str) -> int:
        """How many points the loss curve `key` holds (tests)."""
        data = self.loss[key].getData()[0]
        return 0 if data is None else len(data)

    def retranslate(self) -> None:
        for plot, title in zip(self.plots, TITLES):
            plot.setTitle(translate(CONTEXT, title), color="k")
        names = {id(self.loss[k]): NAMES[k] for k in self.loss} | {id(self._base_sample): NAMES["base"]}
        for sample, label in self.legend.items:
            if id(sample.item) in names:
                label.setText(translate(CONTEXT, names[id(sample.item)]))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def set_presentation(self, on: bool) -> None:
        self._scale = 2.0 if on else 1.0
        for plot in self.plots:
            style_axes(plot, on)
        for key, curve in (*self.loss.items(), *self.accuracy.items()):
            curve.setPen(_pen(key, self._scale))
        set_legend_size(self.legend, css_pt(13) if on else "9pt")
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As many legend columns as fit the width (four held the plots wider than the room at
        1024 pixels, the accuracy plot cut off at the right)."""
        legend = getattr(self, "legend", None)
        if legend is None or not legend.items:
            return
        entry = max(sample.boundingRect().width() + label.item.boundingRect().width()
                    for sample, label in legend.items) + 30
        columns = max(1, min(len(legend.items), int((self.viewport().width() - 16) // entry)))
        if columns != legend.columnCount:
            legend.setColumnCount(columns)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_legend()
