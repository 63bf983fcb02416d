"""The value-weighted page: α beside ‖α v W_O‖ for one head of the window's layer, and how they differ.

Left the head's weights α_ij, right the norms ‖α_ij · v_j W_O^h‖ (Kobayashi et al. 2020: a big
weight on a small value vector moves little); under them each head's disagreement, the
total-variation distance between the two rows averaged over the queries (0: the same story,
1: another). Numbers from app.insight.jobs.values_view (core.insight), for the layer the Heads
tab shows; the head is this page's own choice.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from ..plotting.i18n import translate
from .plots import TokenHeatmap, axis_label, fixed_plot, graphics, text_label

CONTEXT = "insight.values"
BAR, CHOSEN = "#9bbcd8", "#d62728"


class ValuesPage(QWidget):
    def __init__(self, insight, parent: QWidget | None = None):
        super().__init__(parent)
        self._insight = insight
        self.about = text_label()
        self.head = QSpinBox()
        self.head.valueChanged.connect(lambda value: setattr(insight, "head", value))
        insight.head_changed.connect(self._on_head)
        self.where = QLabel()
        self.view = graphics()
        self.weights = TokenHeatmap(fixed_plot(self.view.addPlot(row=0, col=0)))
        self.norms = TokenHeatmap(fixed_plot(self.view.addPlot(row=0, col=1)))
        self.bars_plot = fixed_plot(self.view.addPlot(row=1, col=0, colspan=2))
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brushes=[])
        self.bars_plot.addItem(self.bars)
        self.bars_plot.setYRange(0, 1, padding=0.02)
        self.view.ci.layout.setRowStretchFactor(0, 3)
        self.view.ci.layout.setRowStretchFactor(1, 1)
        self.note = text_label(selectable=True)
        bar = QHBoxLayout()
        bar.addWidget(self.head)
        bar.addWidget(self.where, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.about)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.note)
        self._view = None
        self.retranslate()

    def show_result(self, view) -> None:
        """Draw a ValuesView (app.insight.jobs) at the window's layer, or clear (None)."""
        self._view = view
        if view is None:
            for heatmap in (self.weights, self.norms):
                heatmap.clear()
            self.bars.setOpts(x=[], height=[], brushes=[])
            self.note.setText(" ")
            return
        layer = min(self._insight.layer, view.attentions.shape[0] - 1)
        heads = view.attentions.shape[1]
        head = min(self._insight.head, heads - 1)
        with QSignalBlocker(self.head):
            self.head.setRange(0, heads - 1)
            self.head.setValue(head)
        self.where.setText(translate("insight.values", "layer {layer} (the Heads tab's layer)").format(layer=layer))
        alpha, norms = view.attentions[layer, head], view.norms[layer, head]
        self.weights.show(alpha, view.labels, (0.0, 1.0), translate("insight.values", "α: the weights"))
        self.norms.show(norms, view.labels, None, translate("insight.values", "‖α · v W_O‖: what each key adds"))
        tv = view.disagreement[layer]  # (heads,)
        self.bars.setOpts(x=np.arange(heads), height=tv, width=0.7,
                          brushes=[pg.mkBrush(CHOSEN if h == head else BAR) for h in range(heads)])
        self.bars_plot.setXRange(-0.6, heads - 0.4, padding=0)
        self.bars_plot.getAxis("bottom").setTicks([[(float(h), str(h)) for h in range(heads)]])
        self.note.setText(translate("insight.values", "Head {head}: disagreement {tv} (0: α and the norms tell the same "
                                    "story, 1: they put their mass on different keys). Most in layer {layer}: "
                                    "head {worst} ({most}).").format(
            head=head, tv=f"{tv[head]:.2f}", layer=layer, worst=int(np.argmax(tv)), most=f"{tv.max():.2f}"))

    def drawn(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(α, norms, disagreement per head) as drawn (tests)."""
        return self.weights.matrix(), self.norms.matrix(), np.asarray(self.bars.opts["height"])

    def _on_head(self, head: int) -> None:
        with QSignalBlocker(self.head):
            self.head.setValue(head)
        if self._view is not None:
            self.show_result(self._view)

    def retranslate(self) -> None:
        self.about.setText(translate("insight.values", "A head's output is Σ_j α_ij · v_j W_O: a big weight on a small "
                                     "value vector moves little. ‖α_ij · v_j W_O‖ (Kobayashi et al. 2020) "
                                     "says how much key j really adds to query i; a sink often has a small "
                                     "vector."))
        self.head.setPrefix(translate("insight.values", "head "))
        axis_label(self.bars_plot, "bottom", translate("insight.values", "head"))
        axis_label(self.bars_plot, "left", translate("insight.values", "disagreement"))
        if self._view is not None:
            self.show_result(self._view)
