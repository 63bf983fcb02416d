"""Topic 5 view: per-head importance, a head mask to toggle, and ‖Δoutput‖ live.

Importance (‖head_out_h · W_O[rows of h]‖) and mean entropy are bar charts, kept heads in
colour and pruned ones grey. Below: the full output, the pruned output and their difference
(n × d_model, one diverging scale). Toggling a head recomputes only the pruned output.
The mask is the topic setting ``pruning_mask`` (None: every head kept); the boxes follow it.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QPushButton, QScrollArea, QWidget

from ...app.course.topics import PruningData, pruning_head_mask, pruning_job
from ..plotting.fonts import css_pt, ui_font
from ..plotting.colormaps import symmetric_levels
from .base import TopicView
from .texts import note
from .widgets import (DIVERGING, FOREGROUND, MatrixPlot, checkbox_style, plot_pt,
                      set_plot_title, text_pt)
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

KEPT_COLOUR, PRUNED_COLOUR = "#1f5fbf", "#c8c8c8"
BOXES_PER_ROW = 16
MAX_LABELLED_HEADS = 32  # beyond this the bar charts get automatic ticks


class PruningView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("pruning_heads",)

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"pruning_heads": self.box_panel}
    key = "pruning"

    def build(self) -> None:
        self.boxes: list[QCheckBox] = []
        self.box_panel = QWidget()
        self.box_grid = QGridLayout(self.box_panel)
        self.box_grid.setContentsMargins(0, 0, 0, 0)
        self.box_grid.setHorizontalSpacing(14)
        self.box_grid.setColumnStretch(BOXES_PER_ROW, 1)
        self.scroll = scroll = QScrollArea()
        scroll.setWidget(self.box_panel)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.all_on = QPushButton()
        self.tr_text(self.all_on.setText, "topics.pruning_view", QT_TRANSLATE_NOOP("topics.pruning_view", "all on"))
        self.all_on.clicked.connect(lambda: self.set_head_mask(np.ones(len(self.boxes), bool)))
        self.topics.pruning_mask_changed.connect(self._on_mask)
        self.delta_label = QLabel("")
        for w in (self.tr_label("topics.pruning_view", "heads:"), scroll, self.all_on):
            self.controls.addWidget(w)
        self.controls.setStretchFactor(scroll, 1)
        ci = self.graphics.ci
        self.delta_item = pg.LabelItem("", justify="left")
        ci.addItem(self.delta_item, row=0, col=0, colspan=3)
        self.importance_plot = ci.addPlot(row=1, col=0)
        self.entropy_plot = ci.addPlot(row=1, col=1, colspan=2)
        self.importance_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.entropy_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.importance_plot.addItem(self.importance_bars)
        self.entropy_plot.addItem(self.entropy_bars)
        for plot in (self.importance_plot, self.entropy_plot):
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.getViewBox().setMouseEnabled(False, False)
        self.outputs = {name: MatrixPlot() for name in ("full", "pruned", "delta")}
        for col, plot in enumerate(self.outputs.values()):
            ci.addItem(plot.plot, row=2, col=col)
        ci.layout.setRowStretchFactor(1, 2)
        ci.layout.setRowStretchFactor(2, 3)
        self.data: PruningData | None = None
        self._importance_for = None  # the result `importance` was computed for
        self.restyle(False)

    # -- head mask --------------------------------------------------------------------------
    def head_mask(self) -> np.ndarray:
        return np.array([box.isChecked() for box in self.boxes], dtype=bool)

    def set_head_mask(self, mask) -> None:
        """Set the mask through the state (the boxes follow); the same mask still recomputes."""
        mask = tuple(bool(on) for on in mask)
        if mask == self.topics.pruning_mask:
            self.invalidate()
        self.topics.pruning_mask = mask

    def _on_box(self) -> None:
        self.topics.pruning_mask = tuple(bool(on) for on in self.head_mask())

    def _on_mask(self, _mask) -> None:
        """Follow the field with the boxes' signals blocked (no echo back into it)."""
        for box, on in zip(self.boxes, pruning_head_mask(self.topics, len(self.boxes))):
            box.blockSignals(True)
            box.setChecked(bool(on))
            box.blockSignals(False)
        self.invalidate()

    def _ensure_boxes(self, heads: int) -> None:
        if len(self.boxes) == heads:
            return
        mask = pruning_head_mask(self.topics, heads)  # the saved mask when it fits, else all kept
        for box in self.boxes:
            box.deleteLater()
        self.boxes = []
        for h in range(heads):
            box = QCheckBox(str(h))
            box.setChecked(bool(mask[h]))
            box.setFont(ui_font(text_pt(self.presentation)))
            box.toggled.connect(lambda _on: self._on_box())
            self.box_grid.addWidget(box, h // BOXES_PER_ROW, h % BOXES_PER_ROW)
            self.boxes.append(box)
        self._fit_boxes()

    def _fit_boxes(self) -> None:
        """Show up to three rows of check boxes; scroll for more."""
        self.box_panel.setStyleSheet(checkbox_style(self.presentation))
        rows = min(3, self._box_rows())
        row_px = max((b.sizeHint().height() for b in self.boxes), default=20)
        self.scroll.setFixedHeight(rows * (row_px + self.box_grid.verticalSpacing()) + 4)
        bar = self.scroll.verticalScrollBar().sizeHint().width() if rows < self._box_rows() else 0
        self.scroll.setMinimumWidth(self._boxes_width() + bar + 4)

    def _boxes_width(self) -> int:
        """Width of one full row of boxes (new boxes are not laid out yet: measure them)."""
        cols = min(len(self.boxes), BOXES_PER_ROW)
        widths = [max(b.sizeHint().width() for b in self.boxes[c::BOXES_PER_ROW])
                  for c in range(cols)]
        return sum(widths) + self.box_grid.horizontalSpacing() * max(0, cols - 1)

    def _box_rows(self) -> int:
        return max(1, -(-len(self.boxes) // BOXES_PER_ROW))

    # -- compute / draw ---------------------------------------------------------------------
    def set_result(self, result) -> None:
        self._ensure_boxes(result.config.n_heads)
        super().set_result(result)

    def request(self) -> tuple:
        data = self.data
        known = data.importance if data is not None and data.result is self.result else None
        return pruning_job(self.result, self.topics, known)

    def draw(self, data: PruningData) -> None:
        self.data = data
        imp, pruned = data.importance, data.pruned
        heads = np.arange(len(imp.contribution_norm))
        brushes = [pg.mkBrush(KEPT_COLOUR if k else PRUNED_COLOUR) for k in pruned.head_mask]
        self.importance_bars.setOpts(x=heads, height=imp.contribution_norm, brushes=brushes)
        self.entropy_bars.setOpts(x=heads, height=imp.mean_entropy, brushes=brushes)
        ticks = [[(float(h), str(h)) for h in heads]] if len(heads) <= MAX_LABELLED_HEADS else None
        for plot in (self.importance_plot, self.entropy_plot):
            plot.getAxis("bottom").setTicks(ticks)  # None: pyqtgraph's own spacing
            plot.setXRange(-0.6, len(heads) - 0.4, padding=0)
        self.importance_plot.setYRange(0, float(imp.contribution_norm.max(initial=0)) * 1.1 or 1.0)
        self.entropy_plot.setYRange(0, float(imp.mean_entropy.max(initial=0)) * 1.1 or 1.0)
        levels = symmetric_levels(pruned.full_output, pruned.output)
        tokens = data.result.tokens
        kept = int(pruned.head_mask.sum())
        self.outputs["full"].set_matrix(pruned.full_output, levels, DIVERGING, row_labels=tokens,
                                        title=translate("topics.pruning_view", "full output (all heads)"))
        self.outputs["pruned"].set_matrix(pruned.output, levels, DIVERGING, row_labels=tokens,
                                          title=translate("topics.pruning_view",
                                                          "pruned output ({kept} of {heads} heads)").format(
                                              kept=kept, heads=len(heads)))
        self.outputs["delta"].set_matrix(pruned.delta, levels, DIVERGING, row_labels=tokens,
                                         title=translate("topics.pruning_view", "Δoutput = pruned − full"))
        self.delta_text = (f"‖Δoutput‖ = {pruned.delta_norm:.4g}   "
                           + translate("topics.pruning_view", "({percent}% of ‖output‖ = {norm})").format(
                               percent=f"{100 * pruned.relative:.1f}",
                               norm=f"{np.linalg.norm(pruned.full_output):.4g}"))
        self.delta_item.setText(self.delta_text, color=FOREGROUND, bold=True,
                                size=css_pt(plot_pt(self.presentation) + 5))
        self.show_message(note("all_pruned") if pruned.all_pruned else "")

    def restyle(self, on: bool) -> None:
        pt = plot_pt(on)
        label = {"color": FOREGROUND, "font-size": css_pt(pt)}
        set_plot_title(self.importance_plot, translate("topics.pruning_view",
                                                       "importance ‖head_out_h · W_O[rows of h]‖"), pt + 1)
        set_plot_title(self.entropy_plot, translate("topics.pruning_view",
                                                    "mean softmax entropy (nats; low = sharp)"), pt + 1)
        for plot in (self.importance_plot, self.entropy_plot):
            plot.setLabel("bottom", translate("topics.pruning_view", "head"), **label)
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setStyle(tickFont=ui_font(pt))
                axis.setPen(pg.mkPen(FOREGROUND, width=2 if on else 1))
                axis.setTextPen(pg.mkPen(FOREGROUND))
        for plot in self.outputs.values():
            plot.set_presentation(on)
        for box in self.boxes:
            box.setFont(ui_font(text_pt(on)))
        self._fit_boxes()
        if self.data is not None:
            self.draw(self.data)
