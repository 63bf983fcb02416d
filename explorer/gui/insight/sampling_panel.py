"""The Generate tab's sampling: greedy, or temperature, top-k and top-p with a seed; and what each draw saw.

The controls are app.insight's SamplingChoice (one control, one field); the Generate button runs
`choice.job()` on LearnedState's generation channel (app.insight.sampling.sampled_generation:
core.insight's Sampler, in the background). For the step the Generate tab's slider shows, four
bar charts give the next-token distribution of the model's likeliest tokens before and after
each stage (the model's softmax, ÷ temperature, top-k, top-p: renormalised over what is kept; a
token a stage cut keeps a grey bar of what it had before), the drawn token red; the line under
them names it.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSignalBlocker
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QSpinBox, QVBoxLayout, QWidget

from ...core.config import SEED_MAX
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from ..plotting.token_ticks import display_token
from .plots import FOREGROUND, fixed_plot, graphics, text_label
from .switches import Segmented

CONTEXT = "insight.sampling"
MODE_CHOICES = (("greedy", QT_TRANSLATE_NOOP("insight.sampling", "greedy")),
                ("sample", QT_TRANSLATE_NOOP("insight.sampling", "sample")))
STAGE_TITLES = (QT_TRANSLATE_NOOP("insight.sampling", "model"), QT_TRANSLATE_NOOP("insight.sampling", "÷ temperature"),
                QT_TRANSLATE_NOOP("insight.sampling", "top-k"), QT_TRANSLATE_NOOP("insight.sampling", "top-p"))
TOP_BARS = 10
KEPT, DROPPED, DRAWN = "#1f77b4", "#cccccc", "#d62728"


class SamplingPanel(QWidget):
    """Controls and the stage bars (module docstring)."""

    def __init__(self, choice, parent: QWidget | None = None):
        super().__init__(parent)
        self.choice = choice
        self.mode = Segmented(choice, "mode", CONTEXT, MODE_CHOICES)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.05, 5.0)
        self.temperature.setSingleStep(0.1)
        self.top_k = QSpinBox()
        self.top_k.setRange(0, 1000)
        self.top_p = QDoubleSpinBox()
        self.top_p.setRange(0.05, 1.0)
        self.top_p.setSingleStep(0.05)
        self.seed = QSpinBox()
        self.seed.setRange(0, min(SEED_MAX, 2**31 - 1))
        self._bind()
        self.view = graphics()
        self.plots, self.bars, self.ghosts = [], [], []
        for stage in range(4):
            plot = fixed_plot(self.view.addPlot(row=0, col=stage))
            plot.getViewBox().invertY(True)
            plot.setXRange(0, 1, padding=0.02)
            if stage:
                plot.getAxis("left").setStyle(showValues=False)  # the first plot names the tokens
                plot.setYLink(self.plots[0])
            ghosts = pg.BarGraphItem(x0=[], y=[], width=[], height=0.7, brush=DROPPED, pen=pg.mkPen(None))
            bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.7, brushes=[])
            plot.addItem(ghosts)  # what this stage cut: the probability it had before, grey
            plot.addItem(bars)
            self.plots.append(plot)
            self.bars.append(bars)
            self.ghosts.append(ghosts)
        self.view.setMinimumHeight(140)
        self.view.setMaximumHeight(210)
        self.caption = text_label(selectable=True)
        controls = QHBoxLayout()
        for widget in (self.mode, self.temperature, self.top_k, self.top_p, self.seed):
            controls.addWidget(widget)
        controls.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)
        self._run, self._record, self._rows = None, None, []
        self.retranslate()
        self._enable()

    def _bind(self) -> None:
        c = self.choice
        for widget, name in ((self.temperature, "temperature"), (self.top_k, "top_k"), (self.top_p, "top_p"),
                             (self.seed, "seed")):
            widget.setValue(getattr(c, name))
            widget.valueChanged.connect(lambda value, name=name: setattr(c, name, value))
            getattr(c, f"{name}_changed").connect(lambda value, widget=widget: self._set_quietly(widget, value))
        c.mode_changed.connect(lambda _m: self._enable())

    @staticmethod
    def _set_quietly(widget, value) -> None:
        with QSignalBlocker(widget):
            widget.setValue(value)

    def _enable(self) -> None:
        """The sampling settings and the stage bars while sampling; greedy needs neither (the
        Generate tab's top 5 says what greedy takes), and the K/V cache keeps the room."""
        sampling = self.choice.mode == "sample"
        for widget in (self.temperature, self.top_k, self.top_p, self.seed):
            widget.setEnabled(sampling)
        for widget in (self.view, self.caption):
            widget.setVisible(sampling)

    # ----- the draw ------------------------------------------------------------------------
    def show_draw(self, run, record: int | None) -> None:
        """The bars of the draw made after fed token `record` of `run` (a SampledRun), or a line
        saying what to do (no run, a greedy run of another kind, a step of the sentence)."""
        self._run, self._record = run, record
        draw = run.draw_at(record) if run is not None and hasattr(run, "draw_at") and record is not None else None
        if draw is None:
            for bars in (*self.bars, *self.ghosts):
                bars.setOpts(x0=[], y=[], width=[], brushes=None)
            self._rows = []
            self.caption.setText(self._no_draw_text(run))
            return
        self._draw_bars(run, draw)

    def _no_draw_text(self, run) -> str:
        if run is None or not hasattr(run, "draw_at"):
            return translate("insight.sampling", "Generate to see each new token drawn: the model's distribution, then "
                             "after temperature, top-k and top-p.")
        return translate("insight.sampling", "This step feeds a token of the sentence: move the slider to a step that "
                         "chose a new token.")

    def _draw_bars(self, run, draw) -> None:
        top = list(draw.top[:TOP_BARS])
        if draw.token not in {i for i, _ in top}:
            found = [entry for entry in draw.top if entry[0] == draw.token]
            top += found[:1]
        self._rows = [i for i, _ in top]
        y = np.arange(len(top))
        before = None
        for stage, bars in enumerate(self.bars):
            probs = np.array([ps[stage] for _i, ps in top])  # renormalised over what this stage kept
            brushes = [pg.mkBrush(DRAWN if i == draw.token else KEPT) for i, _ps in top]
            bars.setOpts(x0=np.zeros(len(top)), y=y, width=probs, height=0.7, brushes=brushes)
            cut = np.where((probs == 0) & (before > 0), before, 0.0) if before is not None else np.zeros(len(top))
            self.ghosts[stage].setOpts(x0=np.zeros(len(top)), y=y, width=cut, height=0.7)
            self.plots[stage].setXRange(0, max(0.05, float(np.maximum(probs, cut).max(initial=0))) * 1.1, padding=0)
            before = probs
        names = [display_token(run.names.get(i, str(i)), 10) for i in self._rows]
        self.plots[0].getAxis("left").setTicks([[(float(k), name) for k, name in enumerate(names)]])
        self.plots[0].setYRange(-0.5, len(top) - 0.5, padding=0)
        j = self._record - (run.prompt_tokens - 1)
        settings = run.settings
        how = (translate("insight.sampling", "greedy: the likeliest") if settings.greedy else
               translate("insight.sampling", "drawn with seed {seed} from {kept} tokens kept").format(seed=settings.seed,
                                                                                          kept=draw.kept))
        text = translate("insight.sampling", "New token {j}: {token} (p = {p} after the last stage; {how}).").format(
            j=j + 1, token=run.names.get(draw.token, str(draw.token)), p=f"{draw.probability:.3f}", how=how)
        if draw.token not in self._rows:
            text += " " + translate("insight.sampling", "It is not among the model's {n} likeliest tokens the "
                                    "bars show.").format(n=len(draw.top))
        self.caption.setText(text)

    def stage_bars(self, stage: int) -> tuple[list[int], np.ndarray, int | None]:
        """(token ids, probabilities, the id of the red bar) of one stage as drawn (tests)."""
        brushes = self.bars[stage].opts["brushes"] or []
        red = [i for i, brush in zip(self._rows, brushes) if brush.color().name() == DRAWN]
        return list(self._rows), np.asarray(self.bars[stage].opts["width"]), (red[0] if red else None)

    def retranslate(self) -> None:
        self.mode.retranslate()
        self.temperature.setPrefix(translate("insight.sampling", "temperature "))
        self.top_k.setPrefix(translate("insight.sampling", "top-k "))
        self.top_k.setSpecialValueText(translate("insight.sampling", "top-k off"))
        self.top_p.setPrefix(translate("insight.sampling", "top-p "))
        self.top_p.setToolTip(translate("insight.sampling",
                                        "keep the likeliest tokens whose probabilities reach p (1: off)"))
        self.top_k.setToolTip(translate("insight.sampling", "keep the k likeliest tokens (0: off)"))
        self.temperature.setToolTip(translate("insight.sampling",
                                              "divide the scores by T: below 1 sharper, above 1 flatter"))
        self.seed.setPrefix(translate("insight.sampling", "seed "))
        self.seed.setToolTip(translate("insight.sampling", "the same seed draws the same tokens"))
        for plot, title in zip(self.plots, STAGE_TITLES):
            plot.setTitle(translate(CONTEXT, title), color=FOREGROUND, size="9pt")
        self.show_draw(self._run, self._record)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
