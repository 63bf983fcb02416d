"""The model overview tab: all layers × heads of a pretrained model on one page, with their roles.

The tiles are one image (thumbnails.compose) painted by `OverviewCanvas`, with each tile framed in
its role's colour and labelled "ind .87" when there is room (the tooltip always says it all).
Clicking a tile emits ``tile_clicked(layer, head)`` (the window opens it in the heads view). The
buttons choose what the model reads: the sentence, the sentence repeated, or random tokens
repeated, where induction heads light up (red frames). A right-click switches a head off (crossed
out) or on again; the line under the tiles says what that does to the model's output. For an
adapted model the heads its adapter changed most are marked (`set_marks`: a numbered badge, the
rank by max |adapted − base|) and named in a line.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPen
from PySide6.QtWidgets import (QButtonGroup, QLabel, QPushButton, QSizePolicy,
                               QToolTip, QVBoxLayout, QWidget)

from ...app.models.learned import Analysis, effect_text, role_name, role_short
from ...app.models.learned_state import LearnedState
from ..plotting.colormaps import DEFAULT_COLORMAP, get_colormap
from ..plotting.flow_layout import FlowLayout
from ..plotting.fonts import ui_font
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from .thumbnails import ROLE_COLOURS, TileLayout, compose, fit_layout, lookup_table

MARK_COLOUR = "#e6550d"  # the adapter's most changed heads (no role uses it)
SEQUENCE_BUTTONS = (("text", QT_TRANSLATE_NOOP("learned.overview", "the sentence")),
                    ("repeat", QT_TRANSLATE_NOOP("learned.overview", "repeat the sentence")),
                    ("random", QT_TRANSLATE_NOOP("learned.overview", "random tokens repeated")))


def legend_html() -> str:
    parts = [f"<span style='color:{c}'>■</span>&nbsp;{role_name(role)}" for role, c in ROLE_COLOURS.items()]
    return translate("learned.overview", "frame = role:") + "&nbsp; " + "&nbsp;&nbsp; ".join(parts)


def best_text(analysis: Analysis) -> str:
    """One line naming the strongest head of each role found."""
    best = {}
    for r in analysis.roles:
        if r.role != "mixed" and (r.role not in best or r.score > best[r.role].score):
            best[r.role] = r
    parts = [f"{role_name(role)} L{r.layer}H{r.head} {r.score:.2f}" for role, r in best.items()]
    return translate("learned.overview", "{name} · {n} tokens · strongest: {parts}").format(
        name=analysis.spec.name, n=analysis.n_tokens, parts=", ".join(parts))


class OverviewCanvas(QWidget):
    """Paints the tiles image, role frames and labels; hover tooltips, click -> tile_clicked."""

    tile_clicked = Signal(int, int)
    tile_toggled = Signal(int, int)   # right-click: switch the head off / on

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(200, 150)
        self._analysis: Analysis | None = None
        self._lut = lookup_table(get_colormap(DEFAULT_COLORMAP))
        self._image: QImage | None = None
        self._pixels = None  # the numpy buffer the QImage reads
        self.layout_: TileLayout | None = None
        self.selected: tuple[int, int] | None = None
        self.pruned: frozenset = frozenset()
        self.marks: tuple = ()  # ((layer, head, max |Δ|), ...) largest first: the adapter's top heads
        self.tiles_of = None  # analysis -> (layers, heads, m, m) drawn instead of its attentions, or None
        # (the window's pieces ↔ words switch: app.insight.words.WordsState.tiles_for)
        self._pt = 8.0

    def set_analysis(self, analysis: Analysis | None) -> None:
        self._analysis = analysis
        self._rebuild()

    def set_colormap(self, name: str) -> None:
        self._lut = lookup_table(get_colormap(name))
        self._rebuild()

    def set_presentation(self, on: bool) -> None:
        self._pt = 11.0 if on else 8.0
        self._rebuild()

    def set_selected(self, tile: tuple[int, int] | None) -> None:
        self.selected = tile
        self.update()

    def set_pruned(self, heads: frozenset) -> None:
        self.pruned = frozenset(heads)
        self.update()

    def set_marks(self, marks) -> None:
        """Badges 1, 2, … on the heads an adapter changed most ((layer, head, value), largest first)."""
        self.marks = tuple(marks)
        self.update()

    def image_array(self):
        """The composed tiles (tests read them back)."""
        return self._pixels

    def _rebuild(self) -> None:
        a = self._analysis
        if a is None:
            self._image, self._pixels, self.layout_ = None, None, None
            self.update()
            return
        label_h = QFontMetrics(ui_font(self._pt)).height()
        self.layout_ = fit_layout(a.spec.layers, a.spec.heads, self.width(), self.height(), label_h,
                                  header=(4 * label_h, label_h + 4))
        tiles = self.tiles_of(a) if self.tiles_of is not None else None
        self._pixels = compose(a.attentions if tiles is None else tiles, self.layout_, self._lut,
                               a.spec.kind == "decoder")
        h, w, _ = self._pixels.shape
        self._image = QImage(self._pixels.data, w, h, 3 * w, QImage.Format.Format_RGB888)
        self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._rebuild()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("white"))
        lay, a = self.layout_, self._analysis
        if lay is None or self._image is None:
            painter.setPen(QColor("#555555"))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter,
                             translate("learned.overview", "Choose a pretrained model under Controls → Model source"))
            return
        painter.drawImage(lay.left, 0, self._image)
        painter.setFont(ui_font(self._pt))
        self._paint_headers(painter, lay)
        names, scores = a.role_grid()
        for layer in range(lay.layers):
            for head in range(lay.heads):
                self._paint_tile(painter, lay, layer, head, names[layer, head], scores[layer, head])
        for rank, (layer, head, _value) in enumerate(self.marks, 1):
            if layer < lay.layers and head < lay.heads:
                self._paint_mark(painter, lay, layer, head, rank)
        painter.end()

    def _paint_mark(self, painter: QPainter, lay: TileLayout, layer: int, head: int, rank: int) -> None:
        """An orange outline round the tile and its rank in a badge at the top right corner."""
        x, y = lay.origin(layer, head)
        painter.setPen(QPen(QColor(MARK_COLOUR), 2, Qt.PenStyle.DashLine))
        painter.drawRect(x - 2, y - 2, lay.tile + 3, lay.tile + 3)
        side = max(11, painter.fontMetrics().height())
        badge = QRect(x + lay.tile - side + 2, y - 2, side, side)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(MARK_COLOUR))
        painter.drawEllipse(badge)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QColor("white"))
        painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(rank))

    def _paint_headers(self, painter: QPainter, lay: TileLayout) -> None:
        painter.setPen(QColor("#222222"))
        row_name, col_name = ("L", "H") if lay.by_layer_rows else ("H", "L")
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        below = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom
        for band in range(lay.bands):
            y0 = band * lay.band_h
            for row in range(lay.minor):
                rect = QRect(0, y0 + lay.top + row * lay.pitch_y, lay.left - 4, lay.tile)
                painter.drawText(rect, right, f"{row_name}{row}")
            for col in range(min(lay.cols, lay.major - band * lay.cols)):
                rect = QRect(lay.left + col * lay.pitch_x - lay.gap, y0, lay.tile + 2 * lay.gap, lay.top - 2)
                painter.drawText(rect, below, f"{col_name}{band * lay.cols + col}")

    def _paint_tile(self, painter: QPainter, lay: TileLayout, layer: int, head: int,
                    role: str, score: float) -> None:
        x, y = lay.origin(layer, head)
        colour = ROLE_COLOURS.get(role)
        if colour is not None:
            painter.setPen(QPen(QColor(colour), 2))
            painter.drawRect(x - 1, y - 1, lay.tile + 1, lay.tile + 1)
        if (layer, head) in self.pruned:
            painter.setPen(QPen(QColor("#d62728"), 2))
            painter.drawLine(x, y, x + lay.tile, y + lay.tile)
            painter.drawLine(x, y + lay.tile, x + lay.tile, y)
        if self.selected == (layer, head):
            painter.setPen(QPen(QColor("black"), 3))
            painter.drawRect(x - 3, y - 3, lay.tile + 5, lay.tile + 5)
        if lay.label_h:
            text = f"{role_short(role)} {score:.2f}".replace("0.", ".")
            metrics = painter.fontMetrics()
            if metrics.horizontalAdvance(text) > lay.tile + lay.gap:
                text = f"{score:.2f}".replace("0.", ".")
            if metrics.horizontalAdvance(text) <= lay.tile + lay.gap:
                painter.setPen(QColor("#555555" if role == "mixed" else colour))
                painter.drawText(QRect(x, y + lay.tile + 1, lay.tile + lay.gap, lay.label_h),
                                 Qt.AlignmentFlag.AlignLeft, text)

    def tile_at(self, x: float, y: float) -> tuple[int, int] | None:
        return None if self.layout_ is None else self.layout_.hit(x, y)

    def tooltip_at(self, x: float, y: float) -> str:
        tile = self.tile_at(x, y)
        if tile is None or self._analysis is None:
            return ""
        r = self._analysis.role(*tile)
        others = ", ".join(f"{role_name(k)} {v:.2f}" for k, v in r.scores.items())
        state = (translate("learned.overview", "off (right-click: on again)") if tile in self.pruned
                 else translate("learned.overview", "right-click: switch it off"))
        for rank, (layer, head, value) in enumerate(self.marks, 1):
            if (layer, head) == tile:
                others += "\n" + translate("learned.overview", "changed by the adapter: #{rank}, max |Δ| {value}"
                                            ).format(rank=rank, value=f"{value:.2f}")
        return translate("learned.overview", "layer {layer} head {head}: {role} {score}\n{others}\nclick to open it; {state}").format(
            layer=r.layer, head=r.head, role=role_name(r.role), score=f"{r.score:.2f}", others=others, state=state)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        pos = event.position()
        text = self.tooltip_at(pos.x(), pos.y())
        if text:
            QToolTip.showText(event.globalPosition().toPoint(), text, self)
        else:
            QToolTip.hideText()

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        tile = self.tile_at(event.position().x(), event.position().y())
        if tile is None:
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self.tile_clicked.emit(*tile)
        elif event.button() == Qt.MouseButton.RightButton:
            self.tile_toggled.emit(*tile)


class ModelOverview(QWidget):
    """Sequence buttons, legend, the canvas and a line naming the strongest heads."""

    def __init__(self, state: LearnedState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.canvas = OverviewCanvas()
        self.tile_clicked = self.canvas.tile_clicked
        self.buttons: dict[str, QPushButton] = {}
        group = QButtonGroup(self)
        bar_widget = QWidget()
        bar = FlowLayout(bar_widget)  # wraps on a narrow projector
        for key, label in SEQUENCE_BUTTONS:
            button = QPushButton(translate("learned.overview", label))
            button.setCheckable(True)
            group.addButton(button)
            button.clicked.connect(lambda _=False, key=key: state.set_sequence(key))
            self.buttons[key] = button
            bar.addWidget(button)
        self.all_on = QPushButton(translate("learned.overview", "all heads on"))
        self.all_on.setToolTip(translate("learned.overview", "switch every head on again (right-click a tile to switch it off)"))
        self.all_on.clicked.connect(lambda: state.set_pruned(frozenset()))
        self.reseed = QPushButton(translate("learned.overview", "new random tokens"))
        self.reseed.clicked.connect(lambda: (state.set_sequence("random"), state.set_seed(state.seed + 1)))
        bar.addWidget(self.reseed)
        bar.addWidget(self.all_on)
        self.legend = QLabel(legend_html())
        self.legend.setWordWrap(True)
        self.summary = QLabel(" ")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.effect = QLabel(translate("learned.overview", "Right-click a tile to switch that head off and see what it changes."))
        self.effect.setWordWrap(True)
        self.marks = QLabel()  # the heads an adapter changed most (set_marks)
        self.marks.setWordWrap(True)
        self.marks.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(bar_widget)
        layout.addWidget(self.legend)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.marks)
        layout.addWidget(self.effect)
        self.canvas.tile_toggled.connect(state.toggle_head)
        state.pruned_changed.connect(self._on_pruned)
        state.effect_changed.connect(self._on_effect)
        state.sequence_changed.connect(self._on_sequence)
        state.analysis_changed.connect(self.set_analysis)
        state.source_changed.connect(lambda _s: self.set_analysis(state.analysis))
        self._on_sequence(state.sequence)
        self._on_pruned(state.pruned)
        self.set_analysis(state.analysis)

    def set_analysis(self, analysis: Analysis | None) -> None:
        self.canvas.set_analysis(analysis)
        self.summary.setText(best_text(analysis) if analysis is not None else
                             translate("learned.overview", "The overview shows a pretrained model: choose one under Model source."))
        for button in (*self.buttons.values(), self.reseed):
            button.setEnabled(analysis is not None or not self._state.model.capabilities.course_settings)

    def set_marks(self, marks) -> None:
        """The heads an adapter changed most ((layer, head, max |Δ|), largest first; () for none):
        badges on their tiles and one line naming them."""
        self.canvas.set_marks(marks)
        self.marks.setVisible(bool(marks))
        parts = ", ".join(f"{rank}: L{layer} H{head} {value:.2f}"
                          for rank, (layer, head, value) in enumerate(marks, 1))
        text = translate("learned.overview", "changed most by the adapter (max |adapted − base| weight): {heads}")
        self.marks.setText(f"<span style='color:{MARK_COLOUR}'>●</span>&nbsp;" + text.format(heads=parts))

    def set_colormap(self, name: str) -> None:
        self.canvas.set_colormap(name)

    def set_presentation(self, on: bool) -> None:
        self.canvas.set_presentation(on)

    def _on_pruned(self, heads: frozenset) -> None:
        self.canvas.set_pruned(heads)
        self.all_on.setEnabled(bool(heads))
        if heads:
            off = (translate("learned.overview", "{n} head off: measuring…") if len(heads) == 1
                   else translate("learned.overview", "{n} heads off: measuring…"))
            self.effect.setText(off.format(n=len(heads)))
        else:
            self.effect.setText(translate("learned.overview", "Right-click a tile to switch that head off and see what it changes."))

    def _on_effect(self, effect: dict | None) -> None:
        if effect is not None:
            self.effect.setText(effect_text(effect))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # legend, summary, effect: built from data
            for key, label in SEQUENCE_BUTTONS:
                self.buttons[key].setText(translate("learned.overview", label))
            self.all_on.setText(translate("learned.overview", "all heads on"))
            self.all_on.setToolTip(translate("learned.overview",
                                             "switch every head on again (right-click a tile to switch it off)"))
            self.reseed.setText(translate("learned.overview", "new random tokens"))
            if not self._state.pruned:
                self.effect.setText(translate("learned.overview",
                                              "Right-click a tile to switch that head off and see what it changes."))
            self.legend.setText(legend_html())
            self.set_marks(self.canvas.marks)
            self.set_analysis(self._state.analysis)
            self._on_pruned(self._state.pruned)
            if self._state.effect is not None:
                self._on_effect(self._state.effect)

    def _on_sequence(self, sequence: str) -> None:
        self.buttons[sequence].setChecked(True)
