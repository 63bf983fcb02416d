"""The attention sinks page: per layer, the share of attention on the first token and on separators.

One sentence says what a sink is; the chart draws core.insight's `sink_shares` per layer (the
heads' mean over the real queries); the switch runs the same source on its tokens without the
first one, or with it twice (app.insight.inputs.edited_run, in the background), so the sink
moves before the user's eyes.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from .plots import FOREGROUND, axis_label, fixed_plot, graphics, text_label
from .switches import Segmented

CONTEXT = "insight.sinks"
VARIANT_CHOICES = (("as_is", QT_TRANSLATE_NOOP("insight.sinks", "as it is")),
                   ("drop_first", QT_TRANSLATE_NOOP("insight.sinks", "drop the first token")),
                   ("repeat_first", QT_TRANSLATE_NOOP("insight.sinks", "repeat the first token")))
FIRST_COLOUR, SEPARATOR_COLOUR = "#1f77b4", "#ff7f0e"


class SinksPage(QWidget):
    def __init__(self, insight, parent: QWidget | None = None):
        super().__init__(parent)
        self.about = text_label()
        self.variant = Segmented(insight, "variant", CONTEXT, VARIANT_CHOICES,
                                 title=QT_TRANSLATE_NOOP("insight.sinks", "first token:"))
        self.view = graphics()
        self.plot = fixed_plot(self.view.addPlot(row=0, col=0))
        self.plot.setYRange(0, 1, padding=0.02)
        self.legend = self.plot.addLegend(offset=(-10, 10), labelTextColor=FOREGROUND)
        self.first = self.plot.plot([], [], pen=pg.mkPen(FIRST_COLOUR, width=2), symbol="o", symbolSize=7,
                                    symbolBrush=FIRST_COLOUR, name=" ")
        self.separators = self.plot.plot([], [], pen=pg.mkPen(SEPARATOR_COLOUR, width=2), symbol="s",
                                         symbolSize=6, symbolBrush=SEPARATOR_COLOUR, name=" ")
        self.summary = text_label(selectable=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.about)
        layout.addWidget(self.variant)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)
        self._view = None
        self.retranslate()

    def show_result(self, view) -> None:
        """Draw a SinkView (app.insight.jobs), or clear (None)."""
        self._view = view
        if view is None:
            self.first.setData([], [])
            self.separators.setData([], [])
            self.summary.setText(" ")
            return
        shares = view.shares
        layers = np.arange(len(shares.first_by_layer))
        self.first.setData(layers, shares.first_by_layer)
        self.separators.setData(layers, shares.separators_by_layer if shares.separator_positions else [])
        self.separators.setVisible(bool(shares.separator_positions))
        self._fill_legend()
        self.plot.setXRange(-0.5, max(0.5, len(layers) - 0.5), padding=0)
        axis = self.plot.getAxis("bottom")
        step = max(1, len(layers) // 15)
        axis.setTicks([[(float(i), str(i)) for i in range(0, len(layers), step)]])
        self._summarise(view)

    def curves(self) -> tuple[np.ndarray, np.ndarray]:
        """(first-token share, separator share) per layer as drawn (tests)."""
        return self.first.getData()[1], self.separators.getData()[1]

    def _summarise(self, view) -> None:
        shares = view.shares
        by_layer = shares.first_by_layer
        top = int(np.argmax(by_layer))
        text = translate("insight.sinks", "First token {token}: {mean} of the attention on average over the layers, "
                         "most in layer {layer} ({top}).").format(
            token=shares.first_piece, mean=f"{by_layer.mean():.0%}", layer=top, top=f"{by_layer[top]:.0%}")
        if shares.separator_positions:
            text += " " + translate("insight.sinks", "Separators (positions {where}): {mean} on average.").format(
                where=", ".join(str(p) for p in shares.separator_positions),
                mean=f"{shares.separators_by_layer.mean():.0%}")
        tokens = " ".join(view.labels[:24]) + (" …" if len(view.labels) > 24 else "")
        self.summary.setText(text + "\n" + translate("insight.sinks", "Tokens read: {tokens}").format(tokens=tokens))

    def _fill_legend(self) -> None:
        """The legend names what is drawn (no separator entry for a text without one)."""
        self.legend.clear()
        self.legend.addItem(self.first, translate("insight.sinks", "on the first token"))
        if self.separators.isVisible():
            self.legend.addItem(self.separators, translate("insight.sinks", "on separators"))

    def retranslate(self) -> None:
        self.about.setText(translate("insight.sinks", "An attention sink is a token that gets a large share of every "
                                     "row whatever the sentence says: a softmax row must sum to 1, so a head "
                                     "with nothing to look for parks its weight on the first token ([CLS], <s>, "
                                     "a decoder's first word) or a separator. Drop or repeat the first token "
                                     "and watch the share move."))
        axis_label(self.plot, "bottom", translate("insight.sinks", "layer"))
        axis_label(self.plot, "left", translate("insight.sinks", "share of attention (mean over heads and queries)"))
        self._fill_legend()
        self.variant.retranslate()
        if self._view is not None:
            self._summarise(self._view)
