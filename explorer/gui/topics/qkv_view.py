"""Topic 1 view: X, W_Q, W_K, W_V, Q, K, V and the chosen head's slices, with shapes.

Layout (rows of the graphics area):  X | W_Q | W_K | W_V
                                       | Q   | K   | V      (the head's columns outlined)
                                       | Q_i | K_i | V_i    (n, d_head)
The band is drawn on the same columns of W_Q, W_K, W_V: those columns alone make head i.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QSpinBox

from ...core.topics import qkv_breakdown
from ..plotting.fonts import css_pt
from ..plotting.colormaps import symmetric_levels
from .base import TopicView
from .bindings import bind_spin
from .widgets import DIVERGING, FOREGROUND, MatrixPlot, plot_pt
from ..plotting.i18n import translate


def _shape(a) -> str:
    return f"({a.shape[0]}, {a.shape[1]})"


class QKVView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("qkv_head",)

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"qkv_head": self.head_spin}
    key = "qkv"

    def build(self) -> None:
        self.head_label = self.tr_label("topics.qkv_view", "head")
        self.head_spin = QSpinBox()
        self.head_spin.setRange(0, 0)
        bind_spin(self.head_spin, self.topics, "qkv_head")
        self.topics.qkv_head_changed.connect(self._on_head)
        self.columns_label = QLabel("")
        for w in (self.head_label, self.head_spin, self.columns_label):
            self.controls.addWidget(w)
        self.plots: dict[str, MatrixPlot] = {}
        layout = self.graphics.ci
        for col, name in enumerate(("X", "W_Q", "W_K", "W_V")):
            self._add(name, 0, col)
        for col, name in enumerate(("Q", "K", "V"), start=1):
            self._add(name, 1, col)
            self._add(f"{name}_head", 2, col)
        self.flow = pg.LabelItem("", justify="left")
        layout.addItem(self.flow, row=1, col=0, rowspan=2)
        for col in range(4):
            layout.layout.setColumnStretchFactor(col, 1)
        self.breakdown = None
        self._flow = ""

    def _add(self, name: str, row: int, col: int) -> None:
        plot = MatrixPlot()
        self.plots[name] = plot
        self.graphics.ci.addItem(plot.plot, row=row, col=col)

    def request(self) -> tuple:
        return (qkv_breakdown, self.result)

    def draw(self, breakdown) -> None:
        self.breakdown = breakdown
        self.head_spin.blockSignals(True)
        self.head_spin.setRange(0, breakdown.n_heads - 1)
        self.head_spin.setValue(self.topics.qkv_head)  # the nearest head there is
        self.head_spin.blockSignals(False)
        tokens = breakdown.tokens
        x_levels = symmetric_levels(breakdown.x_in)
        w_levels = symmetric_levels(breakdown.w_q, breakdown.w_k, breakdown.w_v)
        p_levels = symmetric_levels(breakdown.q, breakdown.k, breakdown.v)
        self.plots["X"].set_matrix(breakdown.x_in, x_levels, DIVERGING, row_labels=tokens,
                                   title=f"X {_shape(breakdown.x_in)}")
        for name, w in (("W_Q", breakdown.w_q), ("W_K", breakdown.w_k), ("W_V", breakdown.w_v)):
            self.plots[name].set_matrix(w, w_levels, DIVERGING, title=f"{name} {_shape(w)}")
        for name, m in (("Q", breakdown.q), ("K", breakdown.k), ("V", breakdown.v)):
            self.plots[name].set_matrix(m, p_levels, DIVERGING, row_labels=tokens,
                                        title=f"{name} = X·W_{name} {_shape(m)}")
        self._draw_head(p_levels)

    def _on_head(self, _head: int) -> None:
        if self.breakdown is not None:
            b = self.breakdown
            self._draw_head(symmetric_levels(b.q, b.k, b.v))

    def _draw_head(self, levels) -> None:
        b = self.breakdown
        head = min(self.topics.qkv_head, b.n_heads - 1)
        s = b.head_slice(head)
        cols = b.head_columns(head)
        for name, part in (("Q", s.q), ("K", s.k), ("V", s.v)):
            self.plots[name].set_band(cols)
            self.plots[f"W_{name}"].set_band(cols)
            self.plots[f"{name}_head"].set_matrix(
                part, levels, DIVERGING, row_labels=b.tokens, col_labels=list(cols),
                title=translate("topics.qkv_view", "{name} head {head} = {slice} {shape}").format(
                    name=name, head=head, slice=f"{name}[:, {cols.start}…{cols.stop - 1}]",
                    shape=_shape(part)),
                values=True)
        self._draw_flow(head, cols)
        self.columns_label.setText(
            translate("topics.qkv_view",
                      "columns {first} … {last}   (d_head = {d_head}, {heads} heads)").format(
                first=cols.start, last=cols.stop - 1, d_head=b.d_head, heads=b.n_heads))

    def flow_text(self) -> str:
        """The shape walk-through shown beside the plots (plain text)."""
        return self._flow

    def _draw_flow(self, head: int, cols: range) -> None:
        b = self.breakdown
        n, d = b.q.shape
        lines = [f"X ({n}, {d}) · W_Q ({d}, {d}) = Q ({n}, {d})",
                 translate("topics.qkv_view", "split: {shapes}").format(
                     shapes=f"({n}, {d}) → ({b.n_heads}, {n}, {b.d_head})"),
                 f"d_head = {d} / {b.n_heads} = {b.d_head}",
                 translate("topics.qkv_view", "head {head} ← columns {first} … {last}").format(
                     head=head, first=cols.start, last=cols.stop - 1),
                 ]
        self._flow = "\n".join(lines)
        self.flow.setText("<br>".join(lines), color=FOREGROUND,
                          size=css_pt(plot_pt(self.presentation) + 2))

    def restyle(self, on: bool) -> None:
        if self.breakdown is not None:
            self._on_head(self.topics.qkv_head)
        for plot in self.plots.values():
            plot.set_presentation(on)
