"""One head of the grid: a PlotItem with the weight image and the items drawn over it.

The title reads "head i · H̄ x": H̄ is the mean attention entropy (nats) over the query rows that
have any key to attend to: near 0 = each query looks at one key, ln(n) = spread evenly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt

from ..plotting.cell_text_item import CellTextItem
from ..plotting.fonts import css_pt, font_scale, ui_font
from ..plotting.heatmap_item import (ARGMAX_MIN_CELL_PX, EMPTY_ROW_COLOUR, CellMarksItem,
                           HeatmapImageItem, cells_path, cosmetic_pen)
from ..plotting.mask_item import MaskItem, MaskPaint
from ..plotting.matrix import MatrixHeatmap
from ..plotting.token_axis import TokenAxis
from ..plotting.i18n import translate

FOREGROUND = "#222222"


@dataclass(frozen=True)
class PanelStyle:
    """Sizes for normal use and for a projector."""
    tick_pt: float
    title_pt: float
    value_px: int
    value_min_px: int
    marker_px: float
    axis_px: float
    title_row_px: int
    overhead_px: tuple[int, int]   # axes + title around a heatmap (width, height)

    @staticmethod
    def for_mode(presentation: bool) -> "PanelStyle":
        """Point sizes as given (ui_font scales them); pixel sizes scaled here, by the same
        font_scale() (1 except in presentation mode on a screen larger or smaller than a
        1024 × 768 projector)."""
        if presentation:
            s = font_scale()
            return PanelStyle(tick_pt=15, title_pt=17, value_px=round(24 * s),
                              value_min_px=round(12 * s), marker_px=4 * s, axis_px=max(1, round(2 * s)),
                              title_row_px=round(38 * s),
                              overhead_px=(round(130 * s), round(110 * s)))
        return PanelStyle(tick_pt=9, title_pt=10, value_px=13, value_min_px=8, marker_px=2,
                          axis_px=1, title_row_px=24, overhead_px=(75, 75))


def _hint_width_from(label: pg.LabelItem, width) -> None:
    """Make `label`'s width hints `width()` (its text's width when that is None; the height
    always follows the text): pyqtgraph's LabelItem.updateMin with one number changed."""
    def update_min() -> None:  # LabelItem.setText and resizeEvent call it
        rect = label.itemRect()
        w, h = width(), rect.height()
        w = rect.width() if w is None else w
        label.setMinimumWidth(0)  # never wider than the plot (matrix.free_title_width)
        label.setMinimumHeight(h)
        label._sizeHint = {Qt.SizeHint.MinimumSize: (0, h), Qt.SizeHint.PreferredSize: (w, h),
                           Qt.SizeHint.MaximumSize: (-1, -1), Qt.SizeHint.MinimumDescent: (0, 0)}
        label.updateGeometry()

    label.updateMin = update_min
    label._width_freed = True  # free_title_width must not replace this update_min


def _retext_in_place(label: pg.LabelItem, text: str, **opts) -> None:
    """LabelItem.setText without its geometry update, for a title whose hints stay (fixed width
    hint, one font and row): each update re-laid out the whole grid (PlotItem.setTitle also sets
    the row to 30 px and back), ~0.3 ms a head at every slider move. Centred as setText does."""
    update_min = label.updateMin
    label.updateMin = label.updateGeometry = lambda: None  # shadow both for setText's calls
    try:
        label.setText(text, **opts)
    finally:
        label.updateMin = update_min
        del label.updateGeometry  # the class's method again


def _argmax_pens(width: float) -> list:
    return [cosmetic_pen("#000000", width + 2), cosmetic_pen("#ffffff", width)]


class HeadPanel(MatrixHeatmap):
    """The PlotItem of one head, reused across results: set_head() only swaps data."""

    def __init__(self, style: PanelStyle):
        axes = {"bottom": TokenAxis("bottom"), "left": TokenAxis("left")}
        super().__init__(pg.PlotItem(axisItems=axes),
                         image=HeatmapImageItem(opaque=True, axisOrder="row-major"))
        self.mask = MaskItem()
        self.empty_rows = CellMarksItem([cosmetic_pen(EMPTY_ROW_COLOUR, 2, Qt.PenStyle.DashLine)])
        self.values = CellTextItem()
        self.argmax = CellMarksItem(_argmax_pens(style.marker_px), ARGMAX_MIN_CELL_PX)
        for z, item in enumerate((self.image, self.mask, self.values, self.argmax,
                                  self.empty_rows)):
            item.setZValue(z)
            if item is not self.image:
                self.plot.addItem(item)
        self.n = 0
        self.head = -1
        self._title = ""
        self._template = ""      # the title without its value (see _apply_title)
        self._hint_key = None
        self._hint_width: float | None = None
        _hint_width_from(self.plot.titleLabel, lambda: self._hint_width)
        self._tokens: tuple = ()
        self.set_style(style)

    # -- data -----------------------------------------------------------------------------
    def set_head(self, result, head: int, layers: MaskPaint, dark: np.ndarray,
                 show_values: bool, tick_levels) -> None:
        """Show head `head` of `result`. `dark`: (n, n) text colour choice for the values."""
        weights = result.weights[head]  # (n, n)
        n = weights.shape[0]
        self.head = head
        self.n = n
        scale = getattr(result, "scale", None)  # a difference: its own signed levels (grid.picture_scale)
        self.set_image(weights, (0.0, 1.0) if scale is None else scale.levels)  # framed anew when n changed
        self._set_layers(layers)
        self._set_argmax(result.stats.argmax[head])
        self.values.setVisible(show_values)
        if show_values:
            shown = result.mask & ~result.empty_rows[:, None]
            if scale is None or not scale.signed:
                self.values.set_cells(weights, dark, shown)
            else:  # signed: "+0.12", "-0.30"
                self.values.set_texts(np.char.mod("%+.2f", weights), dark, shown)
        title = result.head_title(head)  # a learned layer: the head's role (app.pictures)
        if title is not None:
            self._show_title(title)
        else:
            self._set_title(head, result.stats.entropy[head], result.empty_rows)
        if result.tokens != self._tokens:
            self._tokens = result.tokens
            self.set_ticks("bottom", tick_levels[0])
            self.set_ticks("left", tick_levels[1])

    def _set_layers(self, layers: MaskPaint) -> None:
        self.mask.set_layers(layers)
        self.empty_rows.set_path(layers.empty_rows, self.cells_rect())

    def _set_argmax(self, argmax: np.ndarray) -> None:
        rows = np.nonzero(argmax >= 0)[0]  # fully masked rows have no argmax (-1)
        cols = argmax[rows]
        self.argmax.set_path(lambda: cells_path(rows, cols), self.cells_rect(), cells=(rows, cols))

    def _set_title(self, head: int, entropy: np.ndarray, empty_rows: np.ndarray) -> None:
        live = entropy[~empty_rows]
        title = template = translate("heads.panel", "head {head}").format(head=head)
        if live.size:
            title += f"  ·  H̄ {float(live.mean()):.2f}"
            template += "  ·  H̄"
        self._show_title(title, template)

    def _show_title(self, title: str, template: str | None = None) -> None:
        """`template`: the title without its changing value (a pretrained head's role title
        is its own template)."""
        template = title if template is None else template
        if title != self._title:
            self._title, self._template = title, template
            self._apply_title()

    # -- looks ----------------------------------------------------------------------------
    def set_style(self, style: PanelStyle) -> None:
        self.style = style
        self.style_axes(FOREGROUND, style.tick_pt, width=style.axis_px, maxTextLevel=12,
                        maxTickLevel=12, tickLength=-4 - style.axis_px, autoReduceTextSpace=True,
                        hideOverlappingLabels={"bottom": 40, "left": False},
                        textFillLimits={"bottom": [(0, 0.75)], "left": [(0, 0.9)]})
        label_style = {"color": FOREGROUND, "font-size": css_pt(style.tick_pt)}
        for name in ("left", "bottom"):  # cell axes: one token made it 'query (x0.001)'
            self.plot.getAxis(name).enableAutoSIPrefix(False)
        self.plot.getAxis("left").setLabel(translate("heads.panel", "query"), **label_style)
        self.plot.getAxis("bottom").setLabel(translate("heads.panel", "key"), **label_style)
        self.values.set_font(ui_font(style.tick_pt, bold=True), style.value_px, style.value_min_px)
        self.argmax.set_pens(_argmax_pens(style.marker_px))
        dashed = cosmetic_pen(EMPTY_ROW_COLOUR, style.marker_px, Qt.PenStyle.DashLine)
        self.empty_rows.set_pens([dashed])
        self.mask.set_hatch_width(max(1.0, style.axis_px))
        self._apply_title()

    def _apply_title(self) -> None:
        """Set the title; its width hint is that of the first title of this head, size and style.

        pyqtgraph shares the grid's width out by the titles' widths: a new entropy with a wider
        digit ("H̄ 0.93" -> "H̄ 0.94") moved the column edges by a pixel, which resized the view
        box, reset both axes' ranges and rebuilt every tick label of the head on each update.
        A fresh view (an export) measures its one title, exactly as before."""
        key = (self._template, self.style, self.n)
        opts = {"size": css_pt(self.style.title_pt), "color": FOREGROUND, "bold": True}
        if key == self._hint_key:  # only the value changed: size hints and row stay as they are
            _retext_in_place(self.plot.titleLabel, self._title, **opts)
            return
        self._hint_key, self._hint_width = key, None  # update_min measures the text
        self.set_title(self._title, **opts)
        self._hint_width = self.plot.titleLabel.itemRect().width()
        self.plot.titleLabel.setMaximumHeight(self.style.title_row_px)
        self.plot.titleLabel.setMinimumWidth(0)  # a long title must not widen the grid off-screen
        self.plot.layout.setRowFixedHeight(0, self.style.title_row_px)

    # -- geometry -------------------------------------------------------------------------
    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        """(query row, key col) under a scene position, or None outside the cells."""
        vb = self.plot.getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        row, col = int(np.floor(p.y() + 0.5)), int(np.floor(p.x() + 0.5))
        if 0 <= row < self.n and 0 <= col < self.n:
            return row, col
        return None

    def cell_scene_pos(self, row: int, col: int) -> QPointF:
        """Scene position of the centre of a cell (tests, hover)."""
        return self.plot.getViewBox().mapViewToScene(QPointF(col, row))

    def contains(self, scene_pos: QPointF) -> bool:
        return self.plot.sceneBoundingRect().contains(scene_pos)
