"""The rollout page: attention rollout after each layer, or attention flow where n is small enough.

The heatmap is R_l of core.insight.rollout (rows the positions, columns the input tokens: how
much of each input reaches each position after layer l, the residual stream counted); the
slider picks l. With "flow" the same layers are read as pipes (core.insight.attention_flow,
computed in the background for the layer shown); beyond its size limit the page says why and
keeps the rollout.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from ...app.i18n import error_text
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from .plots import TokenHeatmap, fixed_plot, graphics, text_label
from .switches import Segmented

CONTEXT = "insight.rollout"
FLOW_CHOICES = ((False, QT_TRANSLATE_NOOP("insight.rollout", "rollout")),
                (True, QT_TRANSLATE_NOOP("insight.rollout", "flow")))


class RolloutPage(QWidget):
    def __init__(self, insight, parent: QWidget | None = None):
        super().__init__(parent)
        self._insight = insight
        self.about = text_label()
        self.mode = Segmented(insight, "flow", CONTEXT, FLOW_CHOICES)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(lambda value: setattr(insight, "rollout_layer", value))
        self.layer_label = QLabel()
        insight.rollout_layer_changed.connect(self._show_layer)
        self.view = graphics()
        self.heatmap = TokenHeatmap(fixed_plot(self.view.addPlot(row=0, col=0)))
        self.note = text_label()
        bar = QHBoxLayout()
        bar.addWidget(self.mode)
        bar.addWidget(self.layer_label)
        bar.addWidget(self.slider, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.about)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.note)
        self._rollout = self._flow = None
        self.retranslate()

    def show_result(self, rollout, flow=None) -> None:
        """Draw the RolloutView's layer (or the Flow when flow is chosen and computed)."""
        self._rollout, self._flow = rollout, flow
        insight = self._insight
        if rollout is None:
            self.heatmap.clear()
            self.note.setText(" ")
            return
        layers = rollout.rollout.shape[0]
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, layers - 1)
            self.slider.setValue(insight.rollout_layer)
        self._show_layer(insight.rollout_layer, redraw=False)
        layer = min(insight.rollout_layer, layers - 1)
        if insight.flow and flow is not None and flow.layer == layer and flow.weights is not None:
            self.heatmap.show(flow.weights, rollout.labels, title=translate(
                "insight.rollout", "attention flow into each position after layer {layer} (rows: positions, "
                "columns: input tokens)").format(layer=layer))
            self.note.setText(translate("insight.rollout", "Flow: the maximum flow from each input token to each "
                                        "position through the layers' pipes (capacities Â = ½·A + ½·I)."))
            return
        self.heatmap.show(rollout.rollout[layer], rollout.labels, title=translate(
            "insight.rollout", "rollout after layer {layer} (rows: positions, columns: input tokens)").format(layer=layer))
        if insight.flow and flow is not None and flow.weights is None:
            self.note.setText(error_text(flow.reason))
        elif insight.flow:
            self.note.setText(translate("insight.rollout", "computing the flow…"))
        else:
            self.note.setText(translate("insight.rollout", "Each row sums to 1. Flow is computed up to {n} tokens at this "
                                        "layer.").format(n=rollout.max_flow_tokens(layer)))

    def matrix(self):
        return self.heatmap.matrix()

    def _show_layer(self, layer: int, redraw: bool = True) -> None:
        with QSignalBlocker(self.slider):
            self.slider.setValue(layer)
        self.layer_label.setText(translate("insight.rollout", "after layer {layer}").format(layer=layer))
        if redraw and self._rollout is not None:
            self.show_result(self._rollout, self._flow)

    def retranslate(self) -> None:
        self.about.setText(translate("insight.rollout", "Rollout (Abnar & Zuidema 2020) follows each input token through "
                                     "the layers with the residual stream: each layer's Â = ½·(mean over heads "
                                     "of A) + ½·I, rows renormalised (forgetting I is the usual mistake), "
                                     "multiplied layer by layer. Row i: what each input token contributes to "
                                     "position i."))
        self.mode.retranslate()
        self._show_layer(self._insight.rollout_layer, redraw=False)
        if self._rollout is not None:
            self.show_result(self._rollout, self._flow)
