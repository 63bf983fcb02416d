"""The loss curve of a LoRA fine-tune on typed sentences: one point per step, drawn as it comes.

Step i's point is the loss the step saw (before its update; step 1's is the base's own loss, since
B starts at 0), and a dotted line marks the base's loss, so the drop is read against it. Nothing
is computed here: the losses are app.models.lora_tuning's.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt

from ..plotting.axes import style_axes
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

CONTEXT = "learned.lora_curve"
TITLE = QT_TRANSLATE_NOOP("learned.lora_curve", "Next-token loss on the sentences")
X_LABEL = QT_TRANSLATE_NOOP("learned.lora_curve", "step")
Y_LABEL = QT_TRANSLATE_NOOP("learned.lora_curve", "loss (nats)")


class LossCurve(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.showGrid(x=True, y=True, alpha=0.25)
        plot.setMouseEnabled(False, False)
        style_axes(plot, False)
        self.curve = plot.plot(pen=pg.mkPen("#0072B2", width=2), symbol="o", symbolSize=4,
                               symbolBrush="#0072B2", symbolPen=None)
        self.base_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#555555", width=1, style=Qt.PenStyle.DotLine))
        self.base_line.setVisible(False)
        plot.addItem(self.base_line)
        self.setMinimumHeight(150)
        self.retranslate()

    def set_losses(self, losses, steps: int) -> None:
        """The losses so far (one per step) on a step axis 1 … steps."""
        plot = self.getPlotItem()
        plot.setXRange(1, max(2, steps), padding=0.03)
        if not losses:
            self.curve.clear()
            self.base_line.setVisible(False)
            return
        self.curve.setData(np.arange(1, len(losses) + 1), np.asarray(losses, dtype=float))
        self.base_line.setPos(losses[0])
        self.base_line.setVisible(True)

    def points(self) -> int:
        """How many steps the curve shows (tests)."""
        data = self.curve.getData()[0]
        return 0 if data is None else len(data)

    def retranslate(self) -> None:
        plot = self.getPlotItem()
        plot.setTitle(translate(CONTEXT, TITLE), color="k")
        plot.setLabel("bottom", translate(CONTEXT, X_LABEL))
        plot.setLabel("left", translate(CONTEXT, Y_LABEL))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
