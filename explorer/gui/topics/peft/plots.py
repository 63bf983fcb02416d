"""The PEFT topic's pictures: a top row of what the method adds, a bottom row of one head.

Top row, by method: LoRA: W, ΔW and their singular values (bars); IA³: l_k and l_v (2, d);
prefix tuning: P_K and P_V (v, d); prompt tuning: the input [E; X] (v + n, d). Bottom row: the
chosen head's base weights, adapted weights (prefix: n × (v + n), prompt: (v + n) × (v + n),
the virtual tokens outlined) and adapted − base on the real tokens (diverging, symmetric
scale). LoRA on W_V or W_O moves no weight at all, so there the bottom row is the attention
output (n, d) instead: base, adapted and their difference.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from ....core.masks import fully_masked_rows
from ....core.topics.peft import MAX_SVD_D_MODEL, PeftResult
from ...plotting.colormaps import symmetric_levels
from ...plotting.fonts import ui_font
from ...plotting.i18n import translate
from ..widgets import DIVERGING, FOREGROUND, MatrixPlot, plot_pt, set_plot_title

W_COLOUR, DELTA_COLOUR = "#9a9a9a", "#1f5fbf"
MAX_SINGULAR = 16      # bars drawn (the largest ones)
MAX_VALUE_CELLS = 36   # numbers printed in a head's cells up to this size
HEADS_SHARE = 0.5      # of the picture's height, at least, for the heads' row


def _shape(a: np.ndarray) -> str:
    return f"({a.shape[0]}, {a.shape[1]})"


def changes_weights(result: PeftResult) -> bool:
    """False for LoRA on W_V / W_O: the bottom row shows the output then."""
    return not (result.config.method == "lora" and result.config.target in ("v", "o"))


class SingularValuesPlot:
    """σ_i of W (grey) and of ΔW (blue) side by side, the largest MAX_SINGULAR."""

    def __init__(self):
        self.plot = pg.PlotItem()
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getViewBox().setMouseEnabled(False, False)
        self.w_bars = pg.BarGraphItem(x=[], height=[], width=0.38, brush=W_COLOUR)
        self.delta_bars = pg.BarGraphItem(x=[], height=[], width=0.38, brush=DELTA_COLOUR)
        for bars in (self.w_bars, self.delta_bars):
            self.plot.addItem(bars)
        self.shown: tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0))

    def set_values(self, w_values, delta_values: np.ndarray, title: str, pt: float) -> None:
        """w_values None: only ΔW's are drawn (W's are not computed at large d_model)."""
        k = MAX_SINGULAR if w_values is None else min(len(w_values), MAX_SINGULAR)
        w_top = np.zeros(k) if w_values is None else np.asarray(w_values[:k], dtype=float)  # (k,)
        delta_top = np.zeros(k)
        delta_top[:min(k, len(delta_values))] = delta_values[:k]  # ΔW's others are 0
        self.shown = (w_top, delta_top)
        x = np.arange(1, k + 1, dtype=float)
        self.w_bars.setOpts(x=x - 0.2, height=w_top)
        self.delta_bars.setOpts(x=x + 0.2, height=delta_top)
        top = float(max(w_top.max(initial=0), delta_top.max(initial=0))) * 1.1 or 1.0
        self.plot.setXRange(0.4, k + 0.6, padding=0)
        self.plot.setYRange(0, top, padding=0)
        step = 1 if k <= 8 else 2 if k <= 16 else 4
        self.plot.getAxis("bottom").setTicks([[(float(i), str(i)) for i in range(1, k + 1, step)]])
        set_plot_title(self.plot, title, pt + 1)

    def set_presentation(self, on: bool) -> None:
        pt = plot_pt(on)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=ui_font(pt))
            axis.setPen(pg.mkPen(FOREGROUND, width=2 if on else 1))
            axis.setTextPen(pg.mkPen(FOREGROUND))
        self.plot.setLabel("bottom", "i", color=FOREGROUND, **{"font-size": f"{pt}pt"})


class TableItem(pg.LabelItem):
    """Rich text (the parameter table) in the graphics layout. Where its cell is shorter or
    narrower than the text (presentation mode at 1024 x 768) it is drawn smaller, down to
    MIN_SCALE, instead of holding the row open and pushing the heads out of the view."""

    MIN_SCALE = 0.4

    def __init__(self):
        super().__init__("", justify="left")
        self.html = ""

    def set_html(self, html: str, pt: float) -> None:
        self.html = html
        self.item.setFont(ui_font(pt))
        self.item.setDefaultTextColor(pg.mkColor(FOREGROUND))
        self.item.setHtml(html)
        self.updateMin()
        self.resizeEvent(None)
        self.updateGeometry()

    def updateMin(self) -> None:  # noqa: N802 - pyqtgraph's name
        natural = self.item.boundingRect()
        w, h = natural.width(), natural.height()
        least = (w * self.MIN_SCALE, 0.0)  # the heads' row decides the height (`PeftFigure.fit`)
        self.setMinimumWidth(least[0])
        self.setMinimumHeight(least[1])
        self._sizeHint = {Qt.SizeHint.MinimumSize: least, Qt.SizeHint.PreferredSize: (w, h),
                          Qt.SizeHint.MaximumSize: (w, -1), Qt.SizeHint.MinimumDescent: (0, 0)}
        self.updateGeometry()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        natural, room = self.item.boundingRect(), self.rect()
        scale = 1.0
        if natural.width() > 0 and natural.height() > 0 and room.width() > 0:
            scale = min(1.0, room.width() / natural.width(), room.height() / natural.height())
        self.item.setScale(max(self.MIN_SCALE, scale))
        self.item.setPos(0, 0)

    def drawn_scale(self) -> float:
        return self.item.scale()

    def plain_text(self) -> str:
        return self.item.toPlainText()


class PeftFigure:
    """Owns the plots inside the view's GraphicsLayoutWidget (`ci`)."""

    def __init__(self, ci):
        self.ci = ci
        self.top = ci.addLayout(row=0, col=0)
        self.bottom = ci.addLayout(row=1, col=0)
        for row in (self.top, self.bottom):
            row.setContentsMargins(0, 0, 0, 0)
        # the table sets the top row's least height; the heads get the rest
        ci.layout.setRowStretchFactor(0, 1)
        ci.layout.setRowStretchFactor(1, 3)
        self.singular = SingularValuesPlot()
        self.table = TableItem()
        self.mats = {name: MatrixPlot() for name in ("w", "delta", "ia3", "p_k", "p_v", "input")}
        self.heads = {name: MatrixPlot() for name in ("base", "adapted", "difference")}
        for col, plot in enumerate(self.heads.values()):
            self.bottom.addItem(plot.plot, row=0, col=col)
            self.bottom.layout.setColumnStretchFactor(col, 1)
        self.method = None
        self.presentation = False

    # -- layout ---------------------------------------------------------------------------------
    def top_items(self, method: str) -> list:
        if method == "lora":
            return [self.mats["w"].plot, self.mats["delta"].plot, self.singular.plot]
        if method == "ia3":
            return [self.mats["ia3"].plot]
        if method == "prefix":
            return [self.mats["p_k"].plot, self.mats["p_v"].plot]
        return [self.mats["input"].plot]

    def use_method(self, method: str) -> None:
        """Put the method's plots in the top row (the others leave it)."""
        if method == self.method:
            return
        self.method = method
        self.top.clear()
        items = self.top_items(method)
        for col, item in enumerate(items):
            self.top.addItem(item, row=0, col=col)
            self.top.layout.setColumnStretchFactor(col, 1)
        self.top.addItem(self.table, row=0, col=len(items))
        self.top.layout.setColumnStretchFactor(len(items), 0)
        for col in range(len(items) + 1, 4):  # what an earlier method's plots left
            self.top.layout.setColumnStretchFactor(col, 0)

    def fit(self, height: float) -> None:
        """Keep HEADS_SHARE of the picture's `height` for the heads' row (the top row's table
        had taken it all in presentation mode at 1024 x 768)."""
        self.ci.layout.setRowMinimumHeight(1, height * HEADS_SHARE)

    def set_presentation(self, on: bool) -> None:
        self.presentation = on
        for plot in (*self.mats.values(), *self.heads.values()):
            plot.set_presentation(on)
        self.singular.set_presentation(on)

    # -- drawing --------------------------------------------------------------------------------
    def draw(self, result: PeftResult, head: int, colormap: str) -> None:
        self.use_method(result.config.method)
        getattr(self, "_top_" + result.config.method)(result)
        self.draw_head(result, head, colormap)

    def _top_lora(self, result: PeftResult) -> None:
        lora, name = result.lora, "W_" + result.config.target.upper()
        self.mats["w"].set_matrix(lora.w, symmetric_levels(lora.w), DIVERGING,
                                  title=f"{name} {_shape(lora.w)}")
        title = translate("topics.peft_view", "ΔW = {scale}·Aᵀ·Bᵀ {shape}").format(
            scale=f"{lora.scale:.3g}", shape=_shape(lora.delta))
        self.mats["delta"].set_matrix(lora.delta, symmetric_levels(lora.delta), DIVERGING,
                                      title=title + ("" if lora.delta.any() else " = 0"))
        title = (translate("topics.peft_view", "σᵢ: W grey, ΔW blue") if lora.w_singular is not None
                 else translate("topics.peft_view", "σᵢ of ΔW (of W: up to d_model {limit})").format(
                     limit=MAX_SVD_D_MODEL))
        self.singular.set_values(lora.w_singular, lora.delta_singular, title, plot_pt(self.presentation))

    def _top_ia3(self, result: PeftResult) -> None:
        l_k, l_v = result.ia3
        both = np.stack([l_k, l_v])  # (2, d)
        low, high = symmetric_levels(both - 1.0)
        title = translate("topics.peft_view", "l_k, l_v {shape} (1 = unchanged)")
        self.mats["ia3"].set_matrix(both, (1.0 + low, 1.0 + high), DIVERGING,
                                    row_labels=["l_k", "l_v"], literal_row_labels=True,
                                    values=both.size <= 32, fmt="{:.2f}",
                                    title=title.format(shape=_shape(both)))

    def _top_prefix(self, result: PeftResult) -> None:
        labels = result.col_labels[:result.config.virtual]
        p_k, p_v = result.virtual
        levels = symmetric_levels(p_k, p_v)
        title = translate("topics.peft_view", "virtual {name} {shape}")
        for key, arr, name in (("p_k", p_k, "P_K"), ("p_v", p_v, "P_V")):
            self.mats[key].set_matrix(arr, levels, DIVERGING, row_labels=labels,
                                      title=title.format(name=name, shape=_shape(arr)))

    def _top_prompt(self, result: PeftResult) -> None:
        x = result.x_in  # (v + n, d): [E; X] (+ PE)
        title = translate("topics.peft_view", "input [E; X] {shape}: virtual rows first")
        self.mats["input"].set_matrix(x, symmetric_levels(x), DIVERGING, row_labels=result.row_labels,
                                      title=title.format(shape=_shape(x)))

    def draw_head(self, result: PeftResult, head: int, colormap: str) -> None:
        head = min(head, result.weights.shape[0] - 1)
        if not changes_weights(result):
            self._draw_outputs(result)
            return
        tokens, n = result.tokens, len(result.tokens)
        small = n * n <= MAX_VALUE_CELLS
        base = self.heads["base"]
        open_base = result.base_mask & ~fully_masked_rows(result.base_mask)[:, None]  # (n, n)
        base.set_matrix(result.base_weights[head], (0.0, 1.0), colormap, row_labels=tokens,
                        col_labels=tokens, values=small, value_cells=open_base,
                        title=translate("topics.peft_view", "head {head}: base").format(head=head))
        base.set_mask(result.base_mask)
        base.set_band(None)
        adapted = self.heads["adapted"]
        weights = result.weights[head]  # (rows, cols)
        adapted.set_matrix(weights, (0.0, 1.0), colormap, row_labels=result.row_labels,
                           col_labels=result.col_labels, values=weights.size <= MAX_VALUE_CELLS,
                           value_cells=result.mask & ~fully_masked_rows(result.mask)[:, None],
                           title=translate("topics.peft_view", "head {head}: adapted {shape}").format(
                               head=head, shape=_shape(weights)))
        adapted.set_mask(result.mask)
        virtual = result.config.virtual if result.config.method in ("prefix", "prompt") else 0
        adapted.set_band(range(virtual) if virtual else None)
        diff = result.weights_difference[head]  # (n, n)
        self.heads["difference"].set_matrix(diff, symmetric_levels(diff), DIVERGING,
                                            row_labels=tokens, col_labels=tokens, values=small,
                                            fmt="{:+.2f}", value_cells=result.base_mask,
                                            title=translate("topics.peft_view", "adapted − base"))
        self.heads["difference"].set_mask(result.base_mask)
        for plot in self.heads.values():
            plot.set_axis_labels(translate("topics.peft_view", "query"), translate("topics.peft_view", "key"))

    def _draw_outputs(self, result: PeftResult) -> None:
        tokens = result.tokens
        levels = symmetric_levels(result.base_output, result.output)
        diff = result.output_difference  # (n, d)
        shown = (("base", result.base_output, translate("topics.peft_view", "output: base {shape}")),
                 ("adapted", result.output, translate("topics.peft_view", "output: adapted {shape}")),
                 ("difference", diff, translate("topics.peft_view", "Δoutput = adapted − base")))
        for key, arr, title in shown:
            plot = self.heads[key]
            plot.set_matrix(arr, symmetric_levels(diff) if key == "difference" else levels,
                            DIVERGING, row_labels=tokens, title=title.format(shape=_shape(arr)))
            plot.set_mask(None)
            plot.set_band(None)
            plot.set_axis_labels(translate("topics.peft_view", "token"), "")
