"""The per-head heatmap grid: one square heatmap per head, one shared 0..1 colour scale.

Rows are queries and columns keys (query 0 at the top), tokens on both axes. Masked cells are
grey and hatched (a weight of 0 stays the colormap's 0 colour), fully masked rows are outlined,
each row's most-attended key is boxed, and values are printed when the cells are few enough.
`set_result` only swaps data into existing items; the layout is rebuilt only when the head
count, the focused head or the number of columns changes. A picture that declares its own
`scale` (app.models.adapter_compare.PictureScale: an adapter's difference, signed) is drawn with
its levels and colormap, the colour bar following; the others in the window's map on 0..1.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ..plotting.colormaps import DEFAULT_COLORMAP, dark_text_mask, get_colormap, is_greyscale, resolve_colormap
from ..plotting.fonts import css_pt, load_bundled_fonts, ui_font
from .panel import FOREGROUND, HeadPanel, PanelStyle
from .prepared import ImagePreparer
from ..plotting.mask_item import MASK_COLOUR, MASK_COLOUR_GREYSCALE, MaskPaint, mask_paint
from ..plotting.labels import plain_label, plain_tooltip
from ..plotting.token_ticks import tick_levels
from ...app.pictures import HeadsPicture
from ..plotting.i18n import translate

AUTO_VALUES_MAX_TOKENS = 12  # "auto" prints values up to this many tokens
MAX_GRID_HEADS = 16          # more heads than this: the first 16 in the grid, any one by focus
COLORBAR_PX = 90            # width the colour bar and its labels take from the grid


def picture_scale(picture):
    """The colour scale a picture declares (levels, colormap, bar label, signed), or None."""
    return getattr(picture, "scale", None)


def choose_columns(count: int, width: float, height: float, overhead=(70, 70)) -> int:
    """Columns that make the heatmaps of `count` heads as large as possible.

    `overhead`: pixels each panel spends on axes and title (width, height). The shorter side of
    a heatmap decides; among equal ones, the larger area (fewer empty slots) wins.
    """
    best, best_key = 1, (-math.inf, -math.inf)
    for cols in range(1, max(1, count) + 1):
        rows = math.ceil(count / cols)
        w, h = width / cols - overhead[0], height / rows - overhead[1]
        key = (round(min(w, h)), max(w, 0) * max(h, 0) * count / (rows * cols))
        if key > best_key:
            best, best_key = cols, key
    return best


class HeadsGrid(QWidget):
    """Heatmaps of every head of an AttentionResult (see module docstring)."""

    head_clicked = Signal(int)  # a click on head i; Escape while focused re-emits the focused head

    def __init__(self, parent=None):
        super().__init__(parent)
        load_bundled_fonts()
        self._result = None
        self._panels: dict[int, HeadPanel] = {}
        self._visible: list[int] = []
        self._placed: list = []  # the PlotItems in the grid's layout now, in order
        self._columns = 0
        self._cmap_name = DEFAULT_COLORMAP
        self._values_mode = "auto"
        self._presentation = False
        self._style = PanelStyle.for_mode(False)
        self._focus: int | None = None
        self._layers: MaskPaint | None = None
        self._layers_key = None
        self._ticks = None
        self._ticks_key = None
        # images pooled and colour-mapped on the compute thread (install `preparer` as the
        # compute worker's after_forward hook; without it each item does that work itself)
        self.preparer = ImagePreparer()
        self._images: dict = {}  # the shown result's prepared images, {head: {factors: ...}}
        self._scale_key = None   # (levels, colormap) of the picture's own scale on the bar, None: 0..1
        self._instead: QWidget | None = None  # drawn in place of the heatmaps (show_instead)
        self._build_ui()

    def _build_ui(self) -> None:
        self._view = pg.GraphicsLayoutWidget()
        self._view.setBackground("w")
        self._grid = self._view.ci.addLayout(row=0, col=0)
        self._bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=get_colormap(self._cmap_name),
                                    interactive=False, width=20)
        self._view.ci.addItem(self._bar, row=0, col=1)
        self._hover = plain_label(QLabel(" "))  # tokens as typed: never rich text
        self._hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._hover.setContentsMargins(8, 2, 8, 4)
        self._notice = QLabel("")
        self._notice.setContentsMargins(8, 4, 8, 2)
        self._notice.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self._notice)
        layout.addWidget(self._view, 1)
        layout.addWidget(self._hover)
        self._view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        palette = self.palette()  # one white sheet, also in exports (hover line included)
        palette.setColor(QPalette.ColorRole.Window, QColor("white"))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(FOREGROUND))
        self.setPalette(palette)
        self.setAutoFillBackground(True)
        self._apply_bar_style()
        self._apply_label_fonts()

    # -- public API -----------------------------------------------------------------------
    def set_result(self, result: HeadsPicture) -> None:
        """Show `result`, a HeadsPicture (app.pictures: the course model's CoursePicture, a
        model's LayerPicture, the Train tab's ProbePicture). Cheap: no computation, items are
        reused."""
        self._result = result
        self._images = self.preparer.take(result.weights)
        n_heads = result.weights.shape[0]
        if self._focus is not None and self._focus >= n_heads:
            self._focus = None
        self._refresh_shared(result)
        self._apply_scale()
        visible = self._wanted_heads()
        for head in visible:
            self._show_head(head)
        if visible != self._visible:
            self._relayout(visible)
        self._update_notice()

    def show_instead(self, widget: QWidget | None) -> None:
        """Draw `widget` where the heatmaps are (the window's lines view of the enlarged head), or
        the heatmaps again (None). The grid keeps its result, focus and exports meanwhile."""
        layout = self.layout()
        if widget is not None and layout.indexOf(widget) < 0:
            layout.insertWidget(layout.indexOf(self._view) + 1, widget, 1)
        if self._instead is not None and self._instead is not widget:
            self._instead.hide()
        self._instead = widget
        self._view.setVisible(widget is None)
        if widget is not None:
            widget.show()

    def add_header(self, widget: QWidget) -> None:
        """A bar above the heatmaps (the window's: an adapted model's base / adapted / difference)."""
        self.layout().insertWidget(0, widget)

    def set_colormap(self, name: str) -> None:
        cmap = get_colormap(name)  # KeyError for unknown names, before changing anything
        self._cmap_name = name
        self._apply_scale(cmap)
        self._layers_key = None  # the mask colour depends on the map
        self._redraw()

    def set_show_values(self, mode: str) -> None:
        if mode not in ("auto", "on", "off"):
            raise ValueError(f"show-values mode must be auto, on or off, not {mode!r}")
        self._values_mode = mode
        self._redraw()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the texts from their sources, no recompute
            for panel in self._panels.values():
                panel.set_style(self._style)  # the axis titles
                panel._title = None  # the head titles: made again by the redraw
            self._apply_bar_style()
            self._redraw()
            self._update_notice()

    def set_presentation(self, on: bool) -> None:
        self._presentation = bool(on)
        self._style = PanelStyle.for_mode(self._presentation)
        for panel in self._panels.values():
            panel.set_style(self._style)
        self._apply_bar_style()
        self._apply_label_fonts()
        if self._visible and self._columns_for(len(self._visible)) != self._columns:
            self._relayout(list(self._visible))

    def heatmap_side(self, presentation: bool, count: int) -> float:
        """About the side (px) each of `count` heatmaps would get in this widget's present size
        with that mode's sizes (an estimate from the style's overhead, as the columns are chosen)."""
        style = PanelStyle.for_mode(presentation)
        width, height = self._room()
        columns = self._columns_for(count, style)
        rows = math.ceil(count / columns)
        return min(width / columns - style.overhead_px[0], height / rows - style.overhead_px[1])

    def set_focus_head(self, head: int | None) -> None:
        if head is not None and self._result is not None:
            if not 0 <= head < self._result.weights.shape[0]:
                raise IndexError(f"no head {head}")
        self._focus = head
        if self._result is None:
            return
        visible = self._wanted_heads()
        for h in visible:
            self._show_head(h)
        self._relayout(visible)
        self._update_notice()

    def focus_head(self) -> int | None:
        return self._focus

    def shown_result(self):
        """What the grid draws now (an AttentionResult or a pretrained LayerPicture), or None."""
        return self._result

    def plot_items(self) -> list:
        """One PlotItem per visible head, in head order."""
        return [self._panels[h].plot for h in self._visible]

    def head_image(self, head: int) -> np.ndarray:
        return self._panels[head].image.image

    def panel(self, head: int) -> HeadPanel:
        """The items drawing one head (tests and export read them back)."""
        return self._panels[head]

    def visible_heads(self) -> list[int]:
        return list(self._visible)

    def colorbar(self) -> pg.ColorBarItem:
        return self._bar

    def graphics_view(self) -> pg.GraphicsLayoutWidget:
        return self._view

    def values_shown(self) -> bool:
        """Whether per-cell values are printed for the current result and mode."""
        if self._values_mode == "auto":
            n_tokens = 0 if self._result is None else self._result.weights.shape[-1]
            return 0 < n_tokens <= AUTO_VALUES_MAX_TOKENS
        return self._values_mode == "on"

    def hover_text(self, head: int, query: int, key: int) -> str:
        """The description of one cell shown while the mouse is over it."""
        return self._result.describe_cell(head, query, key)

    def hover_label(self) -> str:
        return self._hover.text()

    # -- drawing --------------------------------------------------------------------------
    def _wanted_heads(self) -> list[int]:
        if self._result is None:
            return []
        if self._focus is not None:
            return [self._focus]
        return list(range(min(self._result.weights.shape[0], MAX_GRID_HEADS)))

    def _refresh_shared(self, result) -> None:
        """Mask layers and tick labels: recomputed only when mask / tokens change."""
        colour = MASK_COLOUR_GREYSCALE if is_greyscale(self._cmap_name) else MASK_COLOUR
        key = (result.mask.tobytes(), result.mask.shape, colour.rgb())
        if key != self._layers_key:
            self._layers = mask_paint(result.mask, result.empty_rows, colour)
            self._layers_key = key
        if result.tokens != self._ticks_key:
            self._ticks = (tick_levels(result.tokens, max_chars=7),
                           tick_levels(result.tokens, max_chars=10))
            self._ticks_key = result.tokens

    def _show_head(self, head: int) -> None:
        panel = self._panels.get(head)
        if panel is None:
            panel = self._panels[head] = self._spare_panel() or self._new_panel()
        r = self._result
        show = self.values_shown()
        scale = picture_scale(r)
        dark = None if not show else (dark_text_mask(self._cmap_name, r.weights[head]) if scale is None
                                      else HeadPanel.dark_text(r.weights[head], scale.levels, scale.colormap))
        panel.set_head(r, head, self._layers, dark, show, self._ticks)
        panel.image.set_prepared(self._images.get(head, {}))

    def _spare_panel(self) -> HeadPanel | None:
        """A kept panel whose head is not wanted now, taken from its head (None: there is none).
        Panels are kept when the head count drops (cheap to bring back), but by how many were
        shown at once, not by head: enlarging head 40, then 41, ... reuses one panel instead of
        keeping one per head ever enlarged (~0.5 MB each; issue 21's soak: 22 for 12 shown)."""
        wanted = set(self._wanted_heads())
        spare = next((head for head in self._panels if head not in wanted), None)
        return None if spare is None else self._panels.pop(spare)

    def _new_panel(self) -> HeadPanel:
        panel = HeadPanel(self._style)
        panel.image.on_paint = self.preparer.note_paint
        self._bar.setImageItem([p.image for p in (*self._panels.values(), panel)])
        return panel

    def _redraw(self) -> None:
        if self._result is None:
            return
        self._refresh_shared(self._result)
        for head in self._visible:
            self._show_head(head)

    def _relayout(self, visible: list[int]) -> None:
        for plot in self._placed:  # by item: a panel may have changed heads since (_spare_panel)
            self._grid.removeItem(plot)
        columns = self._columns_for(len(visible))
        for i, head in enumerate(visible):
            self._grid.addItem(self._panels[head].plot, row=i // columns, col=i % columns)
        self._placed = [self._panels[head].plot for head in visible]
        self._visible = list(visible)
        self._columns = columns
        self.preparer.set_heads(visible)

    def _columns_for(self, count: int, style: PanelStyle | None = None) -> int:
        return choose_columns(count, *self._room(), (style or self._style).overhead_px)

    def _room(self) -> tuple[int, int]:
        """(width, height) the heatmaps and their axes share (the colour bar aside)."""
        return max(1, self._view.width() - COLORBAR_PX), max(1, self._view.height())

    def _update_notice(self) -> None:
        n_heads = 0 if self._result is None else self._result.weights.shape[0]
        hidden = self._focus is None and n_heads > MAX_GRID_HEADS
        self._notice.setVisible(hidden)
        if hidden:
            self._notice.setText(translate("heads.grid", "Showing heads 0–{last} of {count}; "
                                           "choose a head to enlarge any other.").format(
                last=MAX_GRID_HEADS - 1, count=n_heads))

    def _apply_bar_style(self) -> None:
        axis = self._bar.axis
        axis.setPen(pg.mkPen(FOREGROUND, width=self._style.axis_px))
        axis.setTextPen(pg.mkPen(FOREGROUND))
        axis.setStyle(tickFont=ui_font(self._style.tick_pt))
        scale = picture_scale(self._result)
        axis.setLabel(translate("heads.grid", "weight") if scale is None else scale.bar_label(), color=FOREGROUND,
                      siPrefixEnableRanges=(),  # a difference's ±0.9 stays 0.9, not 900 (×0.001)
                      **{"font-size": css_pt(self._style.tick_pt)})

    def _apply_scale(self, cmap=None) -> None:
        """The colour bar (and so every head's image) on the shown picture's scale: its own
        (picture_scale) or the window's colormap on 0..1."""
        scale = picture_scale(self._result)
        key = None if scale is None else (scale.levels, scale.colormap)
        if key == self._scale_key and cmap is None:
            return
        self._scale_key = key
        if scale is None:
            self._bar.setColorMap(cmap or get_colormap(self._cmap_name))
            self._bar.setLevels((0.0, 1.0))
        else:
            self._bar.setColorMap(resolve_colormap(scale.colormap))
            self._bar.setLevels(scale.levels)
        self._apply_bar_style()

    def _apply_label_fonts(self) -> None:
        font = ui_font(self._style.title_pt if self._presentation else self._style.tick_pt + 1)
        self._hover.setFont(font)
        self._notice.setFont(font)

    # -- events ---------------------------------------------------------------------------
    def _panel_under(self, scene_pos: QPointF):
        for head in self._visible:
            if self._panels[head].contains(scene_pos):
                return head, self._panels[head]
        return None, None

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        head, panel = self._panel_under(scene_pos)
        cell = panel.cell_at(scene_pos) if panel is not None else None
        text = self.hover_text(head, *cell) if cell is not None else " "
        if text != self._hover.text():
            self._hover.setText(text)
            self._view.setToolTip(plain_tooltip(text.strip()) if text.strip() else "")

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        head, _ = self._panel_under(event.scenePos())
        if head is not None:
            self.head_clicked.emit(head)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape and self._focus is not None:
            self.head_clicked.emit(self._focus)
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._visible:
            columns = self._columns_for(len(self._visible))
            if columns != self._columns:
                self._relayout(list(self._visible))
