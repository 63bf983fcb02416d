"""Topic 6 view: one encoder block — stage norms, per-token norms, input / middle / output.

Controls: Post-LN or Pre-LN, GELU or ReLU, and d_ff (4·d_model unless unticked; 0 is refused
with the core's message). Left: mean per-token norm of every stage as horizontal bars, in
computation order. Right: the same norms per token (stages × tokens). Bottom: x, the first
sub-layer's result h and the block output (n × d_model, one diverging scale each).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QSpinBox

from ...app.course.topics import encoder_job
from ...core.topics import EncoderResult
from ...core.topics.encoder import MAX_D_FF
from ..plotting.fonts import ui_font
from ..plotting.colormaps import symmetric_levels
from .base import TopicView
from .bindings import bind_combo
from .widgets import (DIVERGING, FOREGROUND, MatrixPlot, checkbox_style,
                      plot_pt, set_plot_title)
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

BAR_COLOUR = "#1f5fbf"
GROUP_SPACING_PX = 16
NORM_COLOURS = "viridis"


class EncoderView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("encoder_norm", "encoder_activation")

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"encoder_norm": self.norm_combo, "encoder_activation": self.act_combo}
    key = "encoder"

    def build(self) -> None:
        self.norm_combo = QComboBox()
        self.norm_combo.addItem(translate("topics.encoder_view", "Post-LN (2017)"), False)
        self.norm_combo.addItem(translate("topics.encoder_view", "Pre-LN (GPT-2)"), True)
        self.act_combo = QComboBox()
        self.act_combo.addItem(translate("topics.encoder_view", "GELU"), "gelu")
        self.act_combo.addItem(translate("topics.encoder_view", "ReLU"), "relu")
        self.auto_ff = QCheckBox()
        self.tr_text(self.auto_ff.setText, "topics.encoder_view",
                     QT_TRANSLATE_NOOP("topics.encoder_view", "d_ff = 4·d_model"))
        self.auto_ff.setChecked(True)
        self.ff_spin = QSpinBox()
        self.ff_spin.setRange(0, MAX_D_FF)
        self.ff_spin.setValue(32)
        self.ff_spin.setEnabled(False)
        self.ff_spin.setKeyboardTracking(False)
        bind_combo(self.norm_combo, self.topics, "encoder_norm_first")
        bind_combo(self.act_combo, self.topics, "encoder_activation")
        self.auto_ff.toggled.connect(self._on_auto_ff)
        self.ff_spin.valueChanged.connect(self._on_ff_spin)
        self.topics.encoder_d_ff_changed.connect(self._show_d_ff)
        self._show_d_ff(self.topics.encoder_d_ff)
        for name in ("encoder_norm_first", "encoder_activation", "encoder_d_ff"):
            getattr(self.topics, name + "_changed").connect(lambda _v: self.invalidate())
        groups = ((self.tr_label("topics.encoder_view", "LayerNorm:"), self.norm_combo),
                  (self.tr_label("topics.encoder_view", "FFN:"), self.act_combo),
                  (self.auto_ff, self._ff_label(), self.ff_spin))
        for i, group in enumerate(groups):
            if i:
                self.controls.addSpacing(GROUP_SPACING_PX)  # "4·d_model" ran into "d_ff"
            for widget in group:
                self.controls.addWidget(widget)
        self._build_plots()
        self.block: EncoderResult | None = None
        self.restyle(False)

    def _ff_label(self) -> QLabel:
        label = self.tr_label("topics.encoder_view", "d_ff")
        label.setContentsMargins(GROUP_SPACING_PX // 2, 0, 0, 0)  # apart from the check box's text
        return label

    def retranslate(self) -> None:
        for combo, texts in ((self.norm_combo, ("Post-LN (2017)", "Pre-LN (GPT-2)")),
                             (self.act_combo, ("GELU", "ReLU"))):
            for i, text in enumerate(texts):
                combo.setItemText(i, translate("topics.encoder_view", text))

    def _build_plots(self) -> None:
        """Top: the per-token norms (stages x tokens, the stage names on its left) and beside it
        the mean of each stage as a bar on the same rows, so the long stage names are written
        once; bottom: x, h and the output, equal widths. Two nested rows: the top row's
        long labels no longer widen the bottom's first column (at 1024 x 768 the bars' own
        names overlapped and the third matrix's title was cut)."""
        ci = self.graphics.ci
        top, bottom = ci.addLayout(row=0, col=0), ci.addLayout(row=1, col=0)
        for row in (top, bottom):
            row.setContentsMargins(0, 0, 0, 0)
        self.token_norms = MatrixPlot()
        # every stage named while the names fit their rows (pyqtgraph's default lets tick text
        # fill 80 % of an axis: at 1024 x 768 it dropped every other stage name)
        self.token_norms.plot.getAxis("left").setStyle(textFillLimits=[(0, 0.98)])
        top.addItem(self.token_norms.plot, row=0, col=0)
        self.bars_plot = top.addPlot(row=0, col=1)
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.7, brush=BAR_COLOUR)
        self.bars_plot.addItem(self.bars)
        self.bars_plot.getViewBox().invertY(True)
        self.bars_plot.getAxis("left").setStyle(showValues=False)  # the heatmap names the rows
        self.bars_plot.setMenuEnabled(False)
        self.bars_plot.hideButtons()
        self.bars_plot.getViewBox().setMouseEnabled(False, False)
        self.bar_texts: list[pg.TextItem] = []
        for col in range(2):
            top.layout.setColumnStretchFactor(col, 1)
        self.stage_plots = {name: MatrixPlot() for name in ("x", "h", "output")}
        for col, plot in enumerate(self.stage_plots.values()):
            bottom.addItem(plot.plot, row=0, col=col)
            bottom.layout.setColumnStretchFactor(col, 1)
        self._rows = (top, bottom)

    # -- d_ff: the check box and the spin box share one field (None: 4·d_model) ----------------
    def _on_auto_ff(self, auto: bool) -> None:
        self.topics.encoder_d_ff = None if auto else self.ff_spin.value()

    def _on_ff_spin(self, value: int) -> None:
        if not self.auto_ff.isChecked():
            self.topics.encoder_d_ff = int(value)

    def _show_d_ff(self, d_ff) -> None:
        """Follow the field with both controls' signals blocked (no echo back into it)."""
        auto = d_ff is None
        for widget in (self.auto_ff, self.ff_spin):
            widget.blockSignals(True)
        self.auto_ff.setChecked(auto)
        self.ff_spin.setEnabled(not auto)
        if auto and self.result is not None:
            self.ff_spin.setValue(min(4 * self.result.config.d_model, MAX_D_FF))
        elif not auto:
            self.ff_spin.setValue(d_ff)
        for widget in (self.auto_ff, self.ff_spin):
            widget.blockSignals(False)

    def set_result(self, result) -> None:
        if self.topics.encoder_d_ff is None:
            self.ff_spin.blockSignals(True)
            self.ff_spin.setValue(min(4 * result.config.d_model, MAX_D_FF))
            self.ff_spin.blockSignals(False)
        super().set_result(result)

    def request(self) -> tuple:
        return encoder_job(self.result, self.topics)

    def draw(self, block: EncoderResult | None) -> None:
        if block is None:  # stopped for a newer request (never delivered: belt and braces)
            return
        self.block = block
        names = block.stage_names()
        row_norms = block.row_norms()  # (stages, n)
        means = row_norms.mean(axis=1)  # (stages,)
        y = np.arange(len(names))
        self.bars.setOpts(x0=np.zeros(len(names)), y=y, width=means, height=0.7)
        shown_names = [translate("topics.encoder_view",
                                 s) for s in names]  # core's stage names, in the UI language
        self.bars_plot.getAxis("left").setTicks([[(float(i), s) for i, s in enumerate(shown_names)]])
        self.bars_plot.setYRange(-0.5, len(names) - 0.5, padding=0)  # the heatmap's rows
        n_tokens = block.config.attention.n_tokens
        self.graphics.ci.layout.setRowStretchFactor(0, len(names))  # each row's height follows
        self.graphics.ci.layout.setRowStretchFactor(1, max(n_tokens, 4))  # what it lists
        self.bars_plot.setXRange(0, float(means.max(initial=0)) * 1.25 or 1.0, padding=0)
        self._label_bars(means)
        cfg = block.config
        mode = "Pre-LN" if cfg.norm_first else "Post-LN"
        # on a projector the controls row above says the mode, activation and d_ff: a short title
        title = (translate("topics.encoder_view", "mean ‖token‖ per stage  (√d_model = {root})")
                 if self.presentation else
                 translate("topics.encoder_view",
                           "mean ‖token‖ per stage · {mode}, {act}, d_ff {d_ff}  (√d_model = {root})"))
        set_plot_title(self.bars_plot, title.format(mode=mode, act=cfg.activation.upper(),
                                                    d_ff=cfg.ffn_width,
                                                    root=f"{np.sqrt(cfg.attention.d_model):.2f}"),
                       plot_pt(self.presentation) + 1)
        tokens = cfg.attention.tokens
        self.token_norms.set_matrix(row_norms, (0.0, float(row_norms.max(initial=0)) or 1.0),
                                    NORM_COLOURS, row_labels=shown_names, col_labels=tokens,
                                    title=translate("topics.encoder_view", "‖token‖ per stage and token"),
                                    values=row_norms.size <= 64, fmt="{:.1f}",
                                    literal_row_labels=True)
        middle = names[3]  # "x + attention" (Post-LN) / "h = x + attention" (Pre-LN)
        if not cfg.norm_first:
            middle = "h = LN(x + attention)"
        shown = {"x": (translate("topics.encoder_view", "x (input)"), block.stage("x")),
                 "h": (translate("topics.encoder_view", middle), block.stage(middle)),
                 "output": (translate("topics.encoder_view", "block output"), block.output)}
        for key, (title, arr) in shown.items():
            self.stage_plots[key].set_matrix(arr, symmetric_levels(arr), DIVERGING,
                                             row_labels=tokens,
                                             title=f"{title} ({arr.shape[0]}, {arr.shape[1]})")

    def _label_bars(self, means: np.ndarray) -> None:
        for item in self.bar_texts:
            self.bars_plot.removeItem(item)
        self.bar_texts = []
        font = ui_font(plot_pt(self.presentation))
        for i, v in enumerate(means):
            item = pg.TextItem(f"{v:.2f}", color=FOREGROUND, anchor=(0, 0.5))
            item.setFont(font)
            item.setPos(float(v), float(i))
            self.bars_plot.addItem(item)
            self.bar_texts.append(item)

    def bar_values(self) -> np.ndarray:
        """The bar lengths as drawn (tests)."""
        return np.asarray(self.bars.opts["width"], dtype=float)

    def restyle(self, on: bool) -> None:
        pt = plot_pt(on)
        for name in ("left", "bottom"):
            axis = self.bars_plot.getAxis(name)
            axis.setStyle(tickFont=ui_font(pt))
            axis.setPen(pg.mkPen(FOREGROUND, width=2 if on else 1))
            axis.setTextPen(pg.mkPen(FOREGROUND))
        self.auto_ff.setStyleSheet(checkbox_style(on))
        for plot in [self.token_norms, *self.stage_plots.values()]:
            plot.set_presentation(on)
        if self.block is not None:
            self.draw(self.block)
