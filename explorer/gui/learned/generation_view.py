"""The Generate tab: SmolLM2 stepped with its real KV cache.

"generate" runs LearnedState.generate(k) (off the GUI thread): the sentence is fed token by token,
then k tokens the model chooses (greedy). A step slider walks the steps: the token fed, the
top 5 next tokens with their probabilities, the cache's bytes with the formula and what
grouped-query attention saves, FLOPs with and without the cache, the check against the full
causal pass, and the real K and V cache of the chosen layer and KV head up to that step.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, QSignalBlocker, Qt
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox, QVBoxLayout,
                               QWidget)

from ...app.models.learned_generation import cache_text, flops_text
from ...app.models.learned_state import LearnedState
from ...app.models.sources import source_for
from .adapter_views import NextTokenTable
from ..plotting.colormaps import symmetric_levels
from ..plotting.fonts import ui_font
from ..plotting.i18n import translate
from ..plotting.matrix import matrix_image, matrix_view

BAR_CHARS = 30


def top5_html(top5) -> str:
    rows = "".join(f"<tr><td>{html.escape(label)}</td><td align='right'>&nbsp;{p:.3f}&nbsp;</td>"
                   f"<td><span style='color:#1f77b4'>{'█' * max(1, round(p * BAR_CHARS))}</span></td></tr>"
                   for label, p, _id in top5)
    return "<b>" + translate("learned.generation_view", "next token, top 5") + f"</b><table>{rows}</table>"


class GenerationView(QWidget):
    """Generate button, step slider, step facts, and the K/V cache heatmaps (module docstring)."""

    def __init__(self, state: LearnedState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self._run = None
        self.count = QSpinBox()
        self.count.setRange(1, 64)
        self.count.setValue(8)
        self.count.setPrefix(translate("learned.generation_view", "generate "))
        self.count.setSuffix(translate("learned.generation_view", " tokens"))
        self.button = QPushButton(translate("learned.generation_view", "step through with the KV cache"))
        self.job = None  # () -> the generation job (the window's sampling choice, gui/insight); None: greedy
        self.button.clicked.connect(lambda: state.generate(self.count.value(), job=self.job() if self.job else None))
        self.kv_head = QSpinBox()
        self.kv_head.setPrefix(translate("learned.generation_view", "KV head "))
        self.kv_head.valueChanged.connect(lambda _v: self._show_step())
        self.text = QLabel(" ")
        self.text.setWordWrap(True)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.valueChanged.connect(lambda _v: self._show_step())
        self.step_label, self.top5, self.cache, self.flops = QLabel(), QLabel(), QLabel(), QLabel()
        for label in (self.cache, self.flops, self.step_label):
            label.setWordWrap(True)
        self.which = QLabel()
        self.next_tokens = NextTokenTable()  # filled by the window (AdapterState.next_tokens)
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground("w")
        self.images = {}
        for col, name in enumerate(("K", "V")):
            plot = matrix_view(self.plots.addPlot(row=0, col=col))
            plot.setLabel("left", translate("learned.generation_view", "position"))
            plot.setLabel("bottom", "d_head")
            plot.setTitle(translate("learned.generation_view", "{name} cache").format(name=name), color="#222222", bold=True)
            self.images[name] = (plot, matrix_image(plot, "CET-D1"))  # signed values: diverging
        self._build_layout()
        state.generation_changed.connect(self.set_run)
        state.source_changed.connect(lambda _s: self._sync_source())
        state.layer_changed.connect(lambda _l: self._show_step())
        self._sync_source()

    def _build_layout(self) -> None:
        bar = QHBoxLayout()
        for widget in (self.count, self.button, self.kv_head):
            bar.addWidget(widget)
        bar.addStretch(1)
        facts = QVBoxLayout()
        for widget in (self.step_label, self.cache, self.flops):
            facts.addWidget(widget)
        facts.addStretch(1)
        middle = QHBoxLayout()
        middle.addWidget(self.top5)
        middle.addWidget(self.next_tokens)  # an adapted decoder: base vs adapted (adapter_views)
        middle.addLayout(facts, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.text)
        layout.addWidget(self.slider)
        layout.addLayout(middle)
        layout.addWidget(self.which)
        layout.addWidget(self.plots, 1)

    def _sync_source(self) -> None:
        source = self._state.model
        spec = source.spec()
        decoder = spec is not None and source.capabilities.generation
        self.button.setEnabled(decoder)
        self.count.setEnabled(decoder)
        if decoder:
            self.kv_head.setRange(0, spec.kv_heads - 1)
        if self._state.generation is None:
            self.set_run(None)

    def set_run(self, run) -> None:
        self._run = run
        for widget in (self.slider, self.kv_head, self.plots, self.which):
            widget.setVisible(run is not None)
        if run is None:
            decoder = self.button.isEnabled()
            self.text.setText(translate("learned.generation_view", "Press the button to feed the sentence through the decoder "
                                        "token by token and let it continue.") if decoder else
                              translate("learned.generation_view", "Generation needs a decoder: choose smollm2-135m, or a "
                                        "model trained in the Train tab, under Model source."))
            for label in (self.step_label, self.top5, self.cache, self.flops):
                label.setText("")
            self.next_tokens.show_step(None, 0)
            return
        gap = " " if source_for(run.model).capabilities.integer_tokens else ""  # integer tokens: apart
        prompt = "".join(r.token + gap for r in run.records[:run.prompt_tokens]).replace("▁", " ")
        chosen = gap.join(run.generated).replace("▁", " ")
        self.text.setText(f"{html.escape(prompt)}<b style='color:#d62728'>{html.escape(chosen)}</b>"
                          "&nbsp;&nbsp;<span style='color:#555555'>" + translate("learned.generation_view", "(red: chosen by the model)")
                          + "</span>")
        with QSignalBlocker(self.kv_head), QSignalBlocker(self.slider):
            # the run's own KV heads: a new trained model under the same name may have fewer
            self.kv_head.setRange(0, run.model_spec.kv_heads - 1)
            self.slider.setRange(0, len(run.records) - 1)
            self.slider.setValue(len(run.records) - 1)
        self._show_step()

    def _show_step(self) -> None:
        run = self._run
        if run is None:
            return
        spec = run.model_spec
        record = run.records[self.slider.value()]
        kind = (translate("learned.generation_view", "generated by the model") if record.generated
                else translate("learned.generation_view", "from the sentence"))
        self.step_label.setText(translate("learned.generation_view", "<b>step {position}</b>: fed {token} ({kind})").format(
            position=record.position, token=html.escape(record.token), kind=kind))
        self.top5.setText(top5_html(record.top5))
        self.next_tokens.show_step(run, self.slider.value())
        self.cache.setText(cache_text(spec, record))
        self.flops.setText(flops_text(record))
        layer = min(self._state.layer, spec.layers - 1)
        head = self.kv_head.value()
        for name, cache in (("K", run.keys), ("V", run.values)):
            plot, image = self.images[name]
            data = cache[layer, head, :record.cached]  # (positions, d_head)
            image.setImage(data, levels=symmetric_levels(data))
            image.setRect(QRectF(-0.5, -0.5, data.shape[1], data.shape[0]))
            plot.getViewBox().setRange(xRange=(-0.5, data.shape[1] - 0.5),
                                       yRange=(-0.5, data.shape[0] - 0.5), padding=0)
        if spec.kv_heads == spec.heads:  # every head its own K/V (the trained model)
            self.which.setText(translate("learned.generation_view", "the real cache of layer {layer}, head {head}, "
                                         "positions 0–{end}").format(layer=layer, head=head, end=record.cached - 1))
            return
        self.which.setText(translate("learned.generation_view", "the real cache of layer {layer}, KV head {head} (shared by "
                                     "query heads {first}–{last}), positions 0–{end}").format(
            layer=layer, head=head, first=head * spec.heads // spec.kv_heads,
            last=(head + 1) * spec.heads // spec.kv_heads - 1, end=record.cached - 1))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # texts built from data: build them again
            self.count.setPrefix(translate("learned.generation_view", "generate "))
            self.count.setSuffix(translate("learned.generation_view", " tokens"))
            self.button.setText(translate("learned.generation_view", "step through with the KV cache"))
            self.kv_head.setPrefix(translate("learned.generation_view", "KV head "))
            for name, (plot, _image) in self.images.items():
                plot.setLabel("left", translate("learned.generation_view", "position"))
                plot.setTitle(translate("learned.generation_view", "{name} cache").format(name=name),
                              color="#222222", bold=True)
            self.set_run(self._run)

    def add_panel(self, widget: QWidget) -> None:
        """A panel under the controls row (the window's sampling controls and their bars)."""
        self.layout().insertWidget(1, widget)

    def cache_image(self, name: str) -> np.ndarray:
        """The drawn cache matrix (tests read it back)."""
        return self.images[name][1].image

    def set_presentation(self, on: bool) -> None:
        font = ui_font(14 if on else 10)
        for label in (self.text, self.step_label, self.top5, self.cache, self.flops, self.which):
            label.setFont(font)
