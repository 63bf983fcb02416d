"""The cache at one step: K and V rows filled so far, the new row, q_t, output_t, and the
attention of q_t over the cached keys (heads × cached).

Built for stepping fast: K and V are set as images once per trace (or head choice); a
step only moves two rectangles per matrix (the blank cover over rows not yet filled and
the outline of the new row) and sets three small images (q, weights, output).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from ...core import KVTrace
from ..plotting.colormaps import dark_text_mask
from ..plotting.axes import (MAX_TICK_LABELS, WEIGHTS_COLORMAP, set_count_ticks, set_index_ticks,
                             set_title, setup_heatmap, show_cells, style_axes)
from ..plotting.colormaps import symmetric_levels
from ..plotting.fonts import ui_font
from ..plotting.i18n import translate

NEW_ROW_COLOR = "#ff7f0e"
MAX_SEPARATORS = 32         # draw head boundaries in the concatenated view up to this many heads
MAX_VALUE_CELLS = 16 * 8    # print the weights in their cells up to this many (keys × heads)
MAX_COLUMN_LABELS = 8       # every column numbered up to this many (the plots share ~340 px at 1024)


def _rect_item(pen: QPen, brush: QBrush) -> QGraphicsRectItem:
    item = QGraphicsRectItem()
    item.setPen(pen)
    item.setBrush(brush)
    item.setZValue(10)
    return item


def kv_heads(config) -> int:
    """K/V heads of a trace's config: the query heads, unless the model groups them (a pretrained
    decoder's LearnedKVConfig: 9 query heads read 3 K/V heads)."""
    return getattr(config, "kv_heads", config.n_heads)


def concat_heads(per_head: np.ndarray) -> np.ndarray:
    """(h, n, d_head) -> (n, h * d_head): head 0's columns first, like the model's concat."""
    h, n, d_head = per_head.shape
    return per_head.transpose(1, 0, 2).reshape(n, h * d_head)  # (n, d)



class KVCacheView(pg.GraphicsLayoutWidget):
    """set_trace(trace), set_head(None | i), show_step(t)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground("w")
        self.trace: KVTrace | None = None
        self.head: int | None = None
        self.step = 0
        self._presentation = False
        self.k_plot = self.addPlot(row=0, col=0)
        self.v_plot = self.addPlot(row=0, col=1)
        self.q_plot = self.addPlot(row=1, col=0)
        self.out_plot = self.addPlot(row=1, col=1)
        self.w_plot = self.addPlot(row=2, col=0, colspan=2)
        self.k_item = setup_heatmap(self.k_plot, translate("kv.cache_view", "K cache"), "",
                                    translate("kv.cache_view", "cached token"))
        self.v_item = setup_heatmap(self.v_plot, translate("kv.cache_view", "V cache"), "", "")
        self.q_item = setup_heatmap(self.q_plot, translate("kv.cache_view", "query q_t"),
                                    translate("kv.cache_view", "dimension"), "")
        # short titles and labels: at 1024 px the two plots share ~340 px
        self.out_item = setup_heatmap(self.out_plot, translate("kv.cache_view", "output row t"),
                                      translate("kv.cache_view", "after W_O"), "")
        self.w_item = setup_heatmap(self.w_plot, translate("kv.cache_view",
                                                           "attention of q_t over the cached keys"),
                                    translate("kv.cache_view",
                                              "cached key (colour 0 … step's largest)"), translate("kv.cache_view", "head"),
                                    WEIGHTS_COLORMAP)
        self.v_plot.setYLink(self.k_plot)
        self.v_plot.getAxis("left").setStyle(showValues=False)
        for plot in (self.q_plot, self.out_plot):
            plot.getAxis("left").setTicks([[], []])  # one row: nothing to label
            plot.setFixedHeight(90)
        self._align_columns()
        self.ci.layout.setRowStretchFactor(0, 4)
        self.ci.layout.setRowStretchFactor(2, 2)
        blank, no_pen = QBrush(QColor("white")), QPen(Qt.NoPen)
        outline, hollow = pg.mkPen(NEW_ROW_COLOR, width=3), QBrush(Qt.NoBrush)
        self.k_cover, self.v_cover = _rect_item(no_pen, blank), _rect_item(no_pen, blank)
        self.k_new, self.v_new = _rect_item(outline, hollow), _rect_item(outline, hollow)
        self.head_box = _rect_item(pg.mkPen(NEW_ROW_COLOR, width=2), hollow)
        for plot, items in ((self.k_plot, (self.k_cover, self.k_new)),
                            (self.v_plot, (self.v_cover, self.v_new)), (self.w_plot, (self.head_box,))):
            for item in items:
                plot.addItem(item)
        self._separators: list[tuple[pg.PlotItem, pg.InfiniteLine]] = []
        self._separator_layout: tuple[int, int, int] | None = None  # (heads, kv_heads, d_head) drawn
        self._value_texts: list[list[pg.TextItem]] = []  # [head][key], only for small traces
        self.w_plot.getViewBox().sigResized.connect(self._refit_values)
        self._title_shape: tuple[int, int] | None = None  # (rows, columns) of the K and V shown
        self.k_plot.getViewBox().sigResized.connect(self._fit_titles)
        self._pad_marks: list[tuple[int, QGraphicsRectItem]] = []  # (key, hatched column)

    def _align_columns(self) -> None:
        """Same left-axis width above and below, so q_t's columns sit under K's columns."""
        tokens = self.trace.config.tokens if self.trace is not None else ("0000",)
        shown = tokens if len(tokens) <= MAX_TICK_LABELS else ("0000",)
        metrics = QFontMetrics(ui_font(13 if self._presentation else 9))
        label_width = max(metrics.horizontalAdvance(str(t)) for t in shown) + metrics.height() + 20
        for plot in (self.k_plot, self.q_plot):
            plot.getAxis("left").setWidth(label_width)
        for plot in (self.v_plot, self.out_plot):
            plot.getAxis("left").setWidth(12)

    # ----- per trace ----------------------------------------------------------------------
    def set_trace(self, trace: KVTrace, head: int | None = None) -> None:
        self.trace = trace
        cfg = trace.config
        if head is not None and not 0 <= head < cfg.n_heads:
            head = None
        self._q_all = np.stack([s.q for s in trace.steps])  # (n, h, d_head)
        self._out_levels = symmetric_levels(np.stack([s.output for s in trace.steps]))  # (n, d)
        self.w_plot.setRange(xRange=(-0.5, cfg.n_tokens - 0.5), yRange=(-0.5, cfg.n_heads - 0.5),
                             padding=0)
        set_index_ticks(self.w_plot.getAxis("bottom"), cfg.tokens)
        set_count_ticks(self.w_plot.getAxis("left"), cfg.n_heads, max_labels=8)
        set_index_ticks(self.k_plot.getAxis("left"), cfg.tokens)
        self._align_columns()
        self._make_value_texts()
        self._make_pad_marks()
        self.set_head(head)

    def _make_pad_marks(self) -> None:
        """Hatch the padding keys' columns: their weight is 0 because they are masked."""
        for _, mark in self._pad_marks:
            self.w_plot.removeItem(mark)
        cfg = self.trace.config
        hatch = QBrush(QColor(255, 255, 255, 190), Qt.BDiagPattern)
        self._pad_marks = []
        for key in sorted(cfg.padding):
            mark = _rect_item(QPen(Qt.NoPen), hatch)
            mark.setRect(QRectF(key - 0.5, -0.5, 1.0, cfg.n_heads))
            self.w_plot.addItem(mark)
            self._pad_marks.append((key, mark))

    def _make_value_texts(self) -> None:
        """One TextItem per weight cell, created per trace; a step only changes their text."""
        for row in self._value_texts:
            for text in row:
                self.w_plot.removeItem(text)
        cfg = self.trace.config
        self._value_texts = []
        if cfg.n_tokens * cfg.n_heads > MAX_VALUE_CELLS:
            return
        font = ui_font(12 if self._presentation else 9)
        for h in range(cfg.n_heads):
            row = []
            for key in range(cfg.n_tokens):
                text = pg.TextItem("", anchor=(0.5, 0.5))
                text.setFont(font)
                text.setPos(key, h)
                text.setZValue(8)
                self.w_plot.addItem(text)
                row.append(text)
            self._value_texts.append(row)

    def set_head(self, head: int | None) -> None:
        """None: all heads concatenated (n × d); i: head i alone (n × d_head)."""
        trace = self.trace
        self.head = head
        if trace is None:
            return
        keys, values = trace.keys, trace.values  # (kv_heads, n, d_head) each
        group = trace.config.n_heads // kv_heads(trace.config)  # query heads per K/V head
        if head is None:
            k, v = concat_heads(keys), concat_heads(values)  # (n, kv_heads * d_head)
        else:
            k, v = keys[head // group], values[head // group]  # (n, d_head)
        levels = symmetric_levels(k, v)
        big = k.size > 256 * 256
        for item, array in ((self.k_item, k), (self.v_item, v)):
            item.setAutoDownsample(big)
            item.setImage(np.ascontiguousarray(array), autoLevels=False, levels=levels)
        self._q_levels = symmetric_levels(self._q_all if head is None else self._q_all[:, head])
        n, width = k.shape
        self._width = width
        q_width = self._q_all.shape[2] if head is not None else self._q_all.shape[1] * self._q_all.shape[2]
        for plot in (self.k_plot, self.v_plot):
            show_cells(plot, n, width)
            set_count_ticks(plot.getAxis("bottom"), width, max_labels=MAX_COLUMN_LABELS)
        self._title_shape = (n, width)
        self._fit_titles()
        show_cells(self.q_plot, 1, q_width)
        set_count_ticks(self.q_plot.getAxis("bottom"), q_width, max_labels=MAX_COLUMN_LABELS)
        set_count_ticks(self.out_plot.getAxis("bottom"), trace.config.d_model, max_labels=MAX_COLUMN_LABELS)
        show_cells(self.out_plot, 1, trace.config.d_model)
        self._draw_separators(head)
        self.head_box.setVisible(head is not None)
        if head is not None:
            self.head_box.setRect(QRectF(-0.5, head - 0.5, trace.config.n_tokens, 1.0))
        self.show_step(min(self.step, len(trace.steps) - 1))

    def _draw_separators(self, head: int | None) -> None:
        """Lines between heads in the concatenated view (kept while the head layout is the same)."""
        cfg = self.trace.config
        wanted = head is None and cfg.n_heads <= MAX_SEPARATORS
        layout = (cfg.n_heads, kv_heads(cfg), cfg.d_head) if wanted else None
        if layout == self._separator_layout:
            return
        self._separator_layout = layout
        for plot, line in self._separators:
            plot.removeItem(line)
        self._separators = []
        if not wanted:
            return
        for plot, heads in ((self.k_plot, kv_heads(cfg)), (self.v_plot, kv_heads(cfg)), (self.q_plot, cfg.n_heads)):
            for i in range(1, heads):
                line = pg.InfiniteLine(i * cfg.d_head - 0.5, angle=90, pen=pg.mkPen("#333333", width=1))
                line.setZValue(5)
                plot.addItem(line)
                self._separators.append((plot, line))

    # ----- per step -----------------------------------------------------------------------
    def show_step(self, t: int) -> None:
        """Rows 0..t filled, row t outlined; q_t, weights (h, t+1) and output_t drawn."""
        step = self.trace.steps[t]
        self.step = t
        n, width = self.trace.config.n_tokens, self._width
        row = t + n - len(self.trace.steps)  # positions cached before the first step: an adapter's ⟨p1⟩…
        for cover, new in ((self.k_cover, self.k_new), (self.v_cover, self.v_new)):
            cover.setRect(QRectF(-0.5, row + 0.5, width, n - 1 - row))
            cover.setVisible(row < n - 1)
            new.setRect(QRectF(-0.5, row - 0.5, width, 1.0))
        q = step.q.reshape(1, -1) if self.head is None else step.q[self.head][None, :]  # (1, width)
        self.q_item.setImage(q, autoLevels=False, levels=self._q_levels)
        self.out_item.setImage(step.output[None, :], autoLevels=False, levels=self._out_levels)
        top = float(step.weights.max()) if step.weights.size else 1.0
        top = top if top > 0 else 1.0
        self.w_item.setImage(step.weights, autoLevels=False, levels=(0.0, top))
        if self._value_texts:
            self._show_values(step.weights, top)
        for key, mark in self._pad_marks:
            mark.setVisible(key <= t)

    def _show_values(self, weights: np.ndarray, top: float) -> None:
        """weights: (h, t+1). Dark text on bright cells, white on dark ones; none while the cells
        are narrower than a label (32 keys at 1024 px: the labels ran into each other)."""
        dark = dark_text_mask(WEIGHTS_COLORMAP, weights / top)  # (h, t+1)
        cached, padding = weights.shape[1], self.trace.config.padding
        fits = self.values_fit()
        for h, row in enumerate(self._value_texts):
            for key, text in enumerate(row):
                text.setVisible(fits and key < cached)
                if key in padding:
                    text.setText(translate("kv.cache_view", "pad"), color="w")
                elif key < cached:
                    text.setText(f"{weights[h, key]:.2f}", color="k" if dark[h, key] else "w")

    def _titles(self, name: str) -> tuple[str, str]:
        """(full title, shorter title) of the K or V cache: built here, in the UI language of now
        (a resize after a language switch must not bring back the old language's text)."""
        (n, width), head = self._title_shape, self.head
        group = self.trace.config.n_heads // kv_heads(self.trace.config)  # query heads per K/V head
        which = "" if head is None else translate("kv.cache_view",
                                                  ", head {head}").format(head=head)  # all heads: the combo says so
        if head is not None and group > 1:
            which += translate("kv.cache_view", " (its K/V head {kv}, shared by {group} query heads)").format(
                kv=head // group, group=group)
        template = translate("kv.cache_view", "{name} cache{which} ({n} × {width})")
        shorter = (template.format(name=name, which="", n=n, width=width) if head is None or group == 1
                   else translate("kv.cache_view", "{name} of K/V head {kv} ({n} × {width})").format(
                       name=name, kv=head // group, n=n, width=width))  # the combo names the query head
        return template.format(name=name, which=which, n=n, width=width), shorter

    def _fit_titles(self) -> None:
        """K's and V's titles in full when they fit; side by side at 1024 px (presentation fonts)
        they ran into each other. Shorter, they leave out the head (the K, V combo names it) but
        keep a grouped model's K/V head (SmolLM2: query head 4 reads K/V head 1)."""
        if self.trace is None or self._title_shape is None:
            return
        plots = ((self.k_plot, self._titles("K")), (self.v_plot, self._titles("V")))
        for plot, (full, _short) in plots:
            set_title(plot, full)
        if any(plot.titleLabel.item.boundingRect().width() > plot.getViewBox().width() + 8
               for plot, _titles in plots):  # both short: K and V read alike
            for plot, (_full, short) in plots:
                set_title(plot, short)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """Titles and axis labels from their sources (a language switch), then those built
        from the trace."""
        for plot, title in ((self.k_plot, translate("kv.cache_view", "K cache")),
                            (self.v_plot, translate("kv.cache_view", "V cache")),
                            (self.q_plot, translate("kv.cache_view", "query q_t")),
                            (self.out_plot, translate("kv.cache_view", "output row t")),
                            (self.w_plot, translate("kv.cache_view", "attention of q_t over the cached keys"))):
            set_title(plot, title)
        for plot, side, text in ((self.k_plot, "left", translate("kv.cache_view", "cached token")),
                                 (self.q_plot, "bottom", translate("kv.cache_view", "dimension")),
                                 (self.out_plot, "bottom", translate("kv.cache_view", "after W_O")),
                                 (self.w_plot, "bottom", translate("kv.cache_view",
                                                                   "cached key (colour 0 … step's largest)")),
                                 (self.w_plot, "left", translate("kv.cache_view", "head"))):
            plot.setLabel(side, text)
        self.set_presentation(self._presentation)  # the labels' style
        self._fit_titles()

    def values_fit(self) -> bool:
        """Whether a weight's label ("0.00") fits in its cell at the plot's size on screen."""
        cfg = self.trace.config
        box = self.w_plot.getViewBox().boundingRect()
        metrics = QFontMetrics(ui_font(12 if self._presentation else 9))
        return (box.width() / max(1, cfg.n_tokens) >= metrics.horizontalAdvance("0.00") + 2
                and box.height() / max(1, cfg.n_heads) >= metrics.height())

    def _refit_values(self) -> None:
        if self.trace is not None and self._value_texts and self.step < len(self.trace.steps):
            step = self.trace.steps[self.step]
            top = float(step.weights.max()) if step.weights.size else 1.0
            self._show_values(step.weights, top if top > 0 else 1.0)

    # ----- read-back for tests ------------------------------------------------------------
    def filled_rows(self) -> int:
        """How many K/V rows are not covered: t + 1."""
        if not self.k_cover.isVisible():
            return self.trace.config.n_tokens
        return int(round(self.k_cover.rect().top() + 0.5))

    def set_presentation(self, on: bool) -> None:
        self._presentation = on
        for plot in (self.k_plot, self.v_plot, self.q_plot, self.out_plot, self.w_plot):
            style_axes(plot, on)
        for plot in (self.q_plot, self.out_plot):
            plot.setFixedHeight(120 if on else 90)
        self._align_columns()
        for row in self._value_texts:
            for text in row:
                text.setFont(ui_font(12 if on else 9))
        self._refit_values()  # larger labels may no longer fit
        self._fit_titles()
