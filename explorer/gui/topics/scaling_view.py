"""Topic 2 view: raw vs scaled score histograms, variances next to d_head, and a d_model sweep.

Top: histograms of every allowed q·k (all heads pooled) before and after ÷√d_head, and a
table per head: d_head, Var(raw), Var(scaled), the prediction d_head·Var(q)·Var(k), mean
max weight and mean entropy of the softmax actually used. Bottom: the sweep over d_model
8 … 1024 (mean over 4 seeds) of mean max weight or entropy, scaled and unscaled, for the
course's weights or unit-variance ones.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ...app.course.topics import (SWEEP_SEEDS, ScalingData, compute_scaling,  # noqa: F401 (tests)
                           scaling_job)
from ...core.topics.scaling import ScoreStats
from ..plotting.axes import fraction_ticks
from ..plotting.fonts import css_pt, ui_font
from .base import TopicView
from .bindings import bind_combo
from .texts import note
from .widgets import FOREGROUND, plot_pt, set_plot_title, text_pt
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

SCALED_PEN = ("#1f5fbf", Qt.PenStyle.SolidLine)
UNSCALED_PEN = ("#d0541c", Qt.PenStyle.DashLine)
MEASURES = {"max_weight": QT_TRANSLATE_NOOP("topics.scaling_view", "mean max weight"),
            "entropy": QT_TRANSLATE_NOOP("topics.scaling_view", "mean entropy (nats)")}
AXIS_LABELS = {"max_weight": QT_TRANSLATE_NOOP("topics.scaling_view", "mean max weight"),
               "entropy": QT_TRANSLATE_NOOP("topics.scaling_view", "mean entropy (nats)")}
TABLE_COLUMNS = (QT_TRANSLATE_NOOP("topics.scaling_view", "head"), "Var(q·k)", "Var(q·k/√d)", "max w̄", "H̄")


COMBO_MIN_WIDTH = 120  # px; the init combo's text alone is ~500 px at 10 pt, ~780 at 16 pt


class ScalingView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("scaling_init", "scaling_measure")

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"scaling_init": self.init, "scaling_measure": self.measure}
    key = "scaling"

    def build(self) -> None:
        self._build_controls()
        self._build_side()
        self._build_plots()
        self.data: ScalingData | None = None
        self.restyle(False)

    def _build_controls(self) -> None:
        """The sweep's measure combo in the controls row, the weight init on a row below."""
        self.measure = QComboBox()
        for key, label in MEASURES.items():
            self.measure.addItem(translate("topics.scaling_view", label), key)
        self.init = QComboBox()
        for key in ("unit", "course"):
            self.init.addItem(note(f"sweep_{key}"), key)
        bind_combo(self.measure, self.topics, "scaling_measure")
        bind_combo(self.init, self.topics, "scaling_init")
        self.topics.scaling_measure_changed.connect(lambda _m: self.restyle(self.presentation))
        self.topics.scaling_init_changed.connect(lambda _i: self.invalidate())
        for combo in (self.measure, self.init):
            combo.setMinimumWidth(COMBO_MIN_WIDTH)  # shrink (eliding) rather than widen the window
        for w in (self.tr_label("topics.scaling_view", "sweep:"), self.measure):
            self.controls.addWidget(w)
        # The init combo on a row of its own: beside the measure its text (~780 px at
        # 16 pt) was cut to a few characters on a 1024 px projector.
        init_row = QHBoxLayout()
        init_row.setContentsMargins(8, 0, 8, 2)
        init_row.addWidget(self.tr_label("topics.scaling_view", "init:"))
        init_row.addWidget(self.init)
        init_row.addStretch(1)
        self.layout().insertLayout(self.layout().indexOf(self.controls) + 1, init_row)

    def _build_side(self) -> None:
        """The per-head variance table and its summary, right of the plots."""
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setHorizontalHeaderLabels([translate("topics.scaling_view", c) for c in TABLE_COLUMNS])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        side = QWidget()
        column = QVBoxLayout(side)
        column.setContentsMargins(4, 0, 4, 0)
        column.addWidget(self.summary)
        column.addWidget(self.table, 1)
        self.body.addWidget(side)

    def _build_plots(self) -> None:
        """Raw and scaled score histograms stacked on the left, the d_model sweep beside them the
        full height, its legend under it. (With the sweep in a row under the histograms each
        plot got a third of the height: ~60 px of curve on a 1024 × 768 projector.)"""
        ci = self.graphics.ci
        self.raw_plot = ci.addPlot(row=0, col=0)
        self.scaled_plot = ci.addPlot(row=1, col=0)
        self.sweep_plot = ci.addPlot(row=0, col=1, rowspan=2)
        self.raw_curve = self.raw_plot.plot(stepMode="center", fillLevel=0,
                                            brush=(208, 84, 28, 120), pen=pg.mkPen(UNSCALED_PEN[0]))
        self.scaled_curve = self.scaled_plot.plot(stepMode="center", fillLevel=0,
                                                  brush=(31, 95, 191, 120),
                                                  pen=pg.mkPen(SCALED_PEN[0]))
        self.sweep_scaled = self.sweep_plot.plot(symbol="o")
        self.sweep_unscaled = self.sweep_plot.plot(symbol="s")
        # The legend in a row of its own under the sweep, never over its points (inside the
        # plot it covered the small-d_model end in presentation mode).
        self.sweep_legend = pg.LegendItem(colCount=2, labelTextColor=FOREGROUND)
        # under both columns: in the sweep's column alone its width (~370 px at 16 pt) set the
        # sweep's minimum and left the histograms too narrow for their titles at 1024 px
        ci.addItem(self.sweep_legend, row=2, col=0, colspan=2)
        for row, stretch in enumerate((1, 1, 0)):  # the legend row: only its text's height
            ci.layout.setRowStretchFactor(row, stretch)
        ci.layout.setColumnStretchFactor(0, 2)  # room to spare (wide screens): mostly the sweep's
        ci.layout.setColumnStretchFactor(1, 3)
        for plot in (self.raw_plot, self.scaled_plot):  # not their titles' width: short of room,
            plot.setPreferredWidth(230)                   # the histograms give way to the sweep
        self.sweep_legend.addItem(self.sweep_scaled, translate("topics.scaling_view", "÷√d_head (scaled)"))
        self.sweep_legend.addItem(self.sweep_unscaled, translate("topics.scaling_view", "no scaling"))
        self.uniform_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#888888",
                                                                  style=Qt.PenStyle.DotLine))
        self.current_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#555555", width=1))
        self.sweep_plot.addItem(self.uniform_line)
        self.sweep_plot.addItem(self.current_line)
        # above its line at the left end: the 'now' marker sits at the bottom
        self.uniform_text = pg.TextItem(translate("topics.scaling_view", "uniform"), color="#666666",
                                        anchor=(0, 1))
        self.current_text = pg.TextItem("", color="#444444", anchor=(0, 0))
        self.sweep_plot.addItem(self.uniform_text)
        self.sweep_plot.addItem(self.current_text)
        for plot in (self.raw_plot, self.scaled_plot, self.sweep_plot):
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.getViewBox().setMouseEnabled(False, False)

    def retranslate(self) -> None:
        for i, label in enumerate(MEASURES.values()):
            self.measure.setItemText(i, translate("topics.scaling_view", label))
        for i in range(self.init.count()):
            self.init.setItemText(i, note(f"sweep_{self.init.itemData(i)}"))
        self.table.setHorizontalHeaderLabels([translate("topics.scaling_view", c) for c in TABLE_COLUMNS])
        for (_sample, label), text in zip(self.sweep_legend.items, ("÷√d_head (scaled)", "no scaling")):
            label.setText(translate("topics.scaling_view", text))
        self.uniform_text.setText(translate("topics.scaling_view", "uniform"))

    def request(self) -> tuple:
        return scaling_job(self.result, self.topics)

    def draw(self, data: ScalingData | None) -> None:
        if data is None:
            return
        self.data = data
        s = data.stats
        self.raw_curve.setData(s.raw_edges, s.counts)
        self.scaled_curve.setData(s.scaled_edges, s.counts)
        raw_var = s.pooled_raw_variance
        used = " ← softmax" if not data.scaled else ""
        # short titles (d_head is in the side panel): two of them share a 1024 px projector
        set_plot_title(self.raw_plot, translate("topics.scaling_view",
                                                "raw q·k · Var {var}").format(var=f"{raw_var:.3g}") + used,
                       self._title_pt())
        used = " ← softmax" if data.scaled else ""
        set_plot_title(self.scaled_plot, f"÷√d_head · Var {raw_var / s.d_head:.3g}{used}",
                       self._title_pt())
        self._fill_table(s)
        self._redraw_sweep()

    def _fill_table(self, s: ScoreStats) -> None:
        heads = len(s.raw_variance)
        self.table.setRowCount(heads)
        for h in range(heads):
            cells = (str(h), f"{s.raw_variance[h]:.4g}", f"{s.scaled_variance[h]:.4g}",
                     f"{s.max_weight[h]:.3f}", f"{s.entropy[h]:.3f}")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(h, c, item)
        self.table.resizeColumnsToContents()
        width = sum(self.table.columnWidth(c) for c in range(self.table.columnCount()))
        self.table.setFixedWidth(width + 2 * self.table.frameWidth()
                                 + self.table.verticalScrollBar().sizeHint().width())
        self.summary.setFixedWidth(self.table.width())
        self.summary.setText(
            f"d_head = {s.d_head}\n"
            f"Var(q) = {s.q_variance:.4g}, Var(k) = {s.k_variance:.4g}\n"
            + translate("topics.scaling_view", "predicted") + " Var(q·k) = d_head·Var(q)·Var(k) = "
            f"{s.predicted_raw_variance:.4g}\n"
            + translate("topics.scaling_view", "uniform") + f": max w = 1/n, H = log n = {s.max_entropy:.3f}")

    def _redraw_sweep(self, *_):
        data = self.data
        if data is None:
            return
        sweep = data.sweep
        measure = self.topics.scaling_measure
        if sweep is None:
            self.sweep_scaled.setData([], [])
            self.sweep_unscaled.setData([], [])
            set_plot_title(self.sweep_plot,
                           translate("topics.scaling_view", "no sweep: the head count divides no d_model in 8 … 1024"),
                           self._title_pt())
            return
        x = np.log2(sweep.d_models)
        self.sweep_scaled.setData(x, sweep.series(measure, True))
        self.sweep_unscaled.setData(x, sweep.series(measure, False))
        uniform = 1.0 / sweep.n_tokens if measure == "max_weight" else sweep.max_entropy
        self.uniform_line.setValue(uniform)
        self.uniform_text.setPos(float(x[0]), uniform)
        self.current_line.setValue(np.log2(data.d_model))
        now = float(np.log2(data.d_model))
        self.current_text.setText(translate("topics.scaling_view",
                                            " now: {d_model} ").format(d_model=data.d_model))
        self.current_text.setPos(now, 0.0)
        # right of the line in the left half, left of it in the right half: never clipped
        self.current_text.setAnchor((0, 1) if now <= (x[0] + x[-1]) / 2 else (1, 1))
        # every other d_model labelled first (8, 32, ...); the rest where the width has room
        # (pyqtgraph's second tick level): 8 labels crowded a 1024 × 768 projector
        ticks = [(float(v), str(int(d))) for v, d in zip(x, sweep.d_models)]
        axis = self.sweep_plot.getAxis("bottom")
        axis.setTicks([ticks[::2], ticks[1::2]])
        axis.setStyle(textFillLimits=[(0, 0.6)])  # the second level only where the labels have room
        # half a step of room at each end, so the end ticks' labels are drawn whole
        self.sweep_plot.setXRange(float(x[0]) - 0.5, float(x[-1]) + 0.5, padding=0)
        # headroom above the data for the 'uniform' label (entropy: its line is the maximum)
        top = 1.1 if measure == "max_weight" else max(sweep.max_entropy * 1.3, 0.1)
        self.sweep_plot.setYRange(0, top, padding=0)
        high = 1.0 if measure == "max_weight" else round(float(sweep.max_entropy), 2)
        self.sweep_plot.getAxis("left").setTicks(fraction_ticks(high))  # short on a projector
        # the weight init is named in the combo above the plot; the title stays short enough
        # for presentation mode
        set_plot_title(self.sweep_plot,
                       translate("topics.scaling_view",
                                 "d_model sweep · {heads} heads, {seeds} seeds").format(
                           heads=sweep.n_heads, seeds=len(sweep.seeds)),
                       self._title_pt())

    def sweep_curves(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """{"scaled": (x, y), "unscaled": (x, y)} as drawn (tests)."""
        return {"scaled": self.sweep_scaled.getData(), "unscaled": self.sweep_unscaled.getData()}

    def table_text(self) -> list[list[str]]:
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    def _title_pt(self) -> float:
        """The titles' size: the tick labels' on a projector (one point larger did not fit three
        titles beside the side table at 1024 px); one point larger otherwise."""
        return plot_pt(self.presentation) + (0 if self.presentation else 1)

    def restyle(self, on: bool) -> None:
        pt = plot_pt(on)
        width = 3 if on else 2
        self.sweep_scaled.setPen(pg.mkPen(SCALED_PEN[0], width=width, style=SCALED_PEN[1]))
        self.sweep_scaled.setSymbolBrush(SCALED_PEN[0])
        self.sweep_unscaled.setPen(pg.mkPen(UNSCALED_PEN[0], width=width, style=UNSCALED_PEN[1]))
        self.sweep_unscaled.setSymbolBrush(UNSCALED_PEN[0])
        for plot in (self.raw_plot, self.scaled_plot, self.sweep_plot):
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setStyle(tickFont=ui_font(pt))
                axis.setPen(pg.mkPen(FOREGROUND, width=2 if on else 1))
                axis.setTextPen(pg.mkPen(FOREGROUND))
        label = {"color": FOREGROUND, "font-size": css_pt(pt)}
        self.raw_plot.setLabel("bottom", "q·k", **label)
        self.raw_plot.setLabel("left", translate("topics.scaling_view", "count"), **label)
        self.scaled_plot.setLabel("bottom", translate("topics.scaling_view", "q·k / √d_head"), **label)
        self.sweep_plot.setLabel("bottom", translate("topics.scaling_view", "d_model"), **label)
        self.sweep_plot.setLabel("left", translate("topics.scaling_view",
                                                   AXIS_LABELS[self.topics.scaling_measure]),
                                 **label)
        for _sample, text in self.sweep_legend.items:
            text.setText(text.text, size=css_pt(pt), color=FOREGROUND)
        for item in (self.uniform_text, self.current_text):
            item.setFont(ui_font(pt))
        self.table.setFont(ui_font(text_pt(on) - 1))
        self.summary.setFont(ui_font(text_pt(on) - 1))
        if self.data is not None:
            self.draw(self.data)
