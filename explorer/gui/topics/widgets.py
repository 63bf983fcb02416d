"""Pieces every topic view shares: the explanation box and a labelled matrix heatmap.

`MatrixPlot` is the shared `plotting.matrix.MatrixHeatmap` (one matrix row-major, row 0 at the
top, cell (r, c) centred at x=c, y=r, token or index tick labels, title) plus what the topics add:
an optional outlined column band, outlined rows, a grey mask overlay and value labels for small
matrices. Signed matrices use a diverging map with symmetric levels, so
0 is always the neutral middle colour.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import (QFrame, QGraphicsPathItem, QLabel, QScrollArea, QToolButton,
                               QVBoxLayout, QWidget)

from ..plotting.axes import free_title_width
from ..plotting.cell_text_item import CellTextItem
from ..plotting.colormaps import resolve_colormap
from ..plotting.fonts import css_pt, set_text_colour, ui_font
from ..plotting.heatmap_item import cosmetic_pen
from ..plotting.matrix import MatrixHeatmap, matrix_image
from .texts import TopicText

FOREGROUND = "#222222"
EXPLANATION_BACKGROUND = "#f6f7f9"
DIVERGING = "CET-D1"           # blue - white - red, perceptually balanced (ships with pyqtgraph)
BAND_COLOUR = "#000000"
EMPTY_ROW_COLOUR = "#c82828"
MASK_RGBA = (190, 190, 190, 235)  # masked cells: neutral grey, in no colormap's range
MASKED_RGB, OPEN_RGB = (70, 70, 70), (222, 235, 247)  # mask pictures: dark = masked, pale = open
MAX_VALUE_CELLS = 96           # value labels only on matrices this small (drawn as text)
MAX_TICK_LABEL_CHARS = 8


def text_pt(presentation: bool) -> float:
    return 16 if presentation else 10


def plot_pt(presentation: bool) -> float:
    return 14 if presentation else 9


def mask_colormap() -> pg.ColorMap:
    """Two colours for boolean masks: 0 (masked) dark grey, 1 (may attend) pale blue."""
    return pg.ColorMap([0.0, 0.5, 0.5001, 1.0], [MASKED_RGB, MASKED_RGB, OPEN_RGB, OPEN_RGB])


class _ParagraphScroll(QScrollArea):
    """The explanation's paragraphs: as tall as they need while there is room, then it scrolls
    (squeezed by the layout, word-wrapped labels were cut off mid-line, the rest unreachable)."""

    MIN_LINES = 3
    # The text takes at most MAX_SHARE of the window's height, or all but PLOTS_PX when the
    # window is taller than the plots need; past that it scrolls. (At 1024 x 768 in
    # presentation mode a paragraph-high box left the encoder's plots 150 px.) In presentation
    # mode the share is smaller: 16 pt lines, and the plots are what the room looks at.
    MAX_SHARE, PRESENTING_SHARE, PLOTS_PX = 0.22, 0.15, 800

    def __init__(self, *labels: QLabel):
        super().__init__()
        inner = QWidget()
        column = QVBoxLayout(inner)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        for label in labels:
            column.addWidget(label)
        self.setWidget(inner)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for widget in (inner, self.viewport()):
            widget.setAutoFillBackground(False)  # the box's own background shows through
        self._width = -1
        self.share = self.MAX_SHARE

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        width = max(self.viewport().width(), 100)
        height = self.widget().heightForWidth(width)
        window = self.window().height()
        cap = int(max(window * self.share, window - self.PLOTS_PX))
        lines = self.MIN_LINES * self.widget().fontMetrics().lineSpacing()
        return QSize(super().sizeHint().width(), min(height, max(cap, lines)))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        lines = self.MIN_LINES * self.widget().fontMetrics().lineSpacing()
        height = self.widget().heightForWidth(max(self.viewport().width(), 100))
        return QSize(super().minimumSizeHint().width(), min(lines, height))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.size().width() != self._width:  # the text's height follows the width
            self._width = event.size().width()
            self.updateGeometry()


class ExplanationBox(QFrame):
    """The topic's title and its explanation in the UI language; can be folded away."""

    def __init__(self, text: TopicText, parent: QWidget | None = None):
        super().__init__(parent)
        self.topic = text
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._presentation = False
        self.setObjectName("topic_explanation")
        set_text_colour(self, None, EXPLANATION_BACKGROUND)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.setAutoRaise(True)
        self.paragraph = QLabel()
        self.paragraph.setWordWrap(True)
        self.paragraph.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body = _ParagraphScroll(self.paragraph)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.setSpacing(4)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body)
        self.toggle.toggled.connect(self._fold)
        self.retranslate()
        self.set_presentation(False)

    def retranslate(self) -> None:
        self.toggle.setText(self.topic.menu_title)
        self.paragraph.setText(self.topic.body)
        self.body.updateGeometry()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def _fold(self, shown: bool) -> None:
        self.body.setVisible(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def text(self) -> str:
        """Everything the box says (tests)."""
        return "\n".join((self.toggle.text().replace("&&", "&"), self.paragraph.text()))

    def set_presentation(self, on: bool) -> None:
        self._presentation = on
        pt = text_pt(on)
        self.toggle.setFont(ui_font(pt + 1, bold=True))
        self.paragraph.setFont(ui_font(pt))
        self.body.share = self.body.PRESENTING_SHARE if on else self.body.MAX_SHARE
        self.body.updateGeometry()


def set_plot_title(plot: pg.PlotItem, title: str, pt: float) -> None:
    """Set a PlotItem title that never forces the layout wider than the window
    (pyqtgraph's LabelItem makes its text width the item's minimum width)."""
    free_title_width(plot)
    plot.setTitle(title, size=css_pt(pt), color=FOREGROUND)


def checkbox_style(presentation: bool) -> str:
    """Bigger check boxes on a projector (the indicator does not follow the font).

    The two style sheets left in the app are this one: Qt sizes a check box's indicator only
    through the style's pixel metric (one per style, not per widget) or a style sheet. It names
    the indicator alone, so the box's text keeps following the font."""
    px = 22 if presentation else 14
    return f"QCheckBox::indicator {{ width: {px}px; height: {px}px; }}"


class MatrixPlot(MatrixHeatmap):
    """One heatmap in a GraphicsLayout (see the module docstring)."""

    def __init__(self, title: str = ""):
        super().__init__()
        self.overlay = matrix_image(self.plot)
        self.overlay.setZValue(2)
        self.band = QGraphicsPathItem()
        self.rows = QGraphicsPathItem()
        for z, item in enumerate((self.band, self.rows), start=5):
            item.setZValue(z)
            self.plot.addItem(item)
        self.values = CellTextItem()  # the heads grid's value labels: shrink to fit, else none
        self.values.setZValue(10)
        self.plot.addItem(self.values)
        self._array = np.zeros((0, 0))
        self._title = title
        self._presentation = False
        self.band_cols: range | None = None
        self.masked: np.ndarray | None = None
        self.outlined_rows: tuple[int, ...] = ()
        self._axis_labels: tuple[str, str] | None = None
        self.set_presentation(False)

    # -- data -------------------------------------------------------------------------------
    def set_matrix(self, array: np.ndarray, levels: tuple[float, float], cmap,
                   row_labels=None, col_labels=None, title: str | None = None,
                   values: bool = False, fmt: str = "{:.2f}", value_cells=None,
                   literal_row_labels: bool = False) -> None:
        """Draw `array`; `cmap` a name or ColorMap; `values` prints numbers when the matrix is
        small, only where `value_cells` (bool, same shape) is True if given."""
        array = np.asarray(array, dtype=float)
        if array.ndim == 1:
            array = array[None, :]
        self._array = array
        rows, cols = array.shape
        colormap = resolve_colormap(cmap)
        self.set_image(array, levels, colormap)
        self._set_ticks("left", row_labels if row_labels is not None else range(rows),
                        literal=literal_row_labels)
        self._set_ticks("bottom", col_labels if col_labels is not None else range(cols))
        if title is not None:
            self.set_title(title)
        self._set_values(array if values else None, levels, colormap, fmt, value_cells)

    def set_colormap_obj(self, colormap: pg.ColorMap) -> None:
        self.image.setColorMap(colormap)

    def set_mask(self, allowed: np.ndarray | None) -> None:
        """Grey out cells where `allowed` is False (a weight of 0 alone looks like a real 0)."""
        self.masked = None if allowed is None else ~np.asarray(allowed, dtype=bool)
        if self.masked is None or not self.masked.any():
            self.overlay.setVisible(False)
            return
        rgba = np.zeros(self.masked.shape + (4,), dtype=np.uint8)
        rgba[self.masked] = MASK_RGBA
        self.overlay.setImage(rgba, autoLevels=False)
        rows, cols = self.masked.shape
        self.overlay.setRect(QRectF(-0.5, -0.5, cols, rows))
        self.overlay.setVisible(True)

    def matrix(self) -> np.ndarray:
        """The array drawn (tests read this back)."""
        return self.image.image

    def set_band(self, cols: range | None) -> None:
        """Outline columns cols.start … cols.stop - 1 over every row (None: no band)."""
        self.band_cols = cols
        path = QPainterPath()
        if cols is not None and len(cols):
            path.addRect(QRectF(cols.start - 0.5, -0.5, len(cols), self._array.shape[0]))
        self.band.setPath(path)

    def set_outlined_rows(self, rows) -> None:
        self.outlined_rows = tuple(int(r) for r in rows)
        path = QPainterPath()
        for r in self.outlined_rows:
            path.addRect(QRectF(-0.5, r - 0.5, self._array.shape[1], 1.0))
        self.rows.setPath(path)

    def value_labels(self) -> list[str]:
        """The labels set, row by row (each is painted when it fits its cell)."""
        return [text for _row, _col, text in self.values.labels()]

    def set_title(self, title: str) -> None:
        self._title = title
        super().set_title(title, size=css_pt(plot_pt(self._presentation) + 1), color=FOREGROUND)

    @property
    def title(self) -> str:
        return self._title

    def set_axis_labels(self, left: str = "", bottom: str = "") -> None:
        pt = plot_pt(self._presentation)
        self._axis_labels = (left, bottom)
        self.plot.getAxis("left").setLabel(left, color=FOREGROUND, **{"font-size": css_pt(pt)})
        self.plot.getAxis("bottom").setLabel(bottom, color=FOREGROUND, **{"font-size": css_pt(pt)})

    # -- looks ------------------------------------------------------------------------------
    def set_presentation(self, on: bool) -> None:
        self._presentation = on
        pt = plot_pt(on)
        self.style_axes(FOREGROUND, pt, width=2 if on else 1, tickLength=-4,
                        autoReduceTextSpace=True, hideOverlappingLabels=True)
        self.band.setPen(cosmetic_pen(BAND_COLOUR, 4 if on else 2.5))
        self.rows.setPen(cosmetic_pen(EMPTY_ROW_COLOUR, 4 if on else 2.5, Qt.PenStyle.DashLine))
        self.values.set_font(ui_font(pt, bold=True), value_px(pt), value_px(pt) * 2 // 3, 0.75)
        self.set_title(self._title)
        if self._axis_labels is not None:
            self.set_axis_labels(*self._axis_labels)

    def _set_ticks(self, name: str, labels, literal: bool = False) -> None:
        self.set_token_ticks(name, labels, 24 if literal else MAX_TICK_LABEL_CHARS, literal)

    def _set_values(self, array, levels, colormap, fmt, cells=None) -> None:
        if array is None or array.size > MAX_VALUE_CELLS:
            self.values.set_texts(np.zeros((0, 0), dtype=str), np.zeros((0, 0), dtype=bool))
            return
        dark = self.dark_text(array, levels, colormap)  # (rows, cols)
        texts = np.array([fmt.format(v) for v in array.ravel()]).reshape(array.shape)
        self.values.set_texts(texts, dark, cells)


def value_px(pt: float) -> int:
    """The value labels' largest pixel size for a `pt` point font (96 dpi, as on screen)."""
    return round(pt * 96 / 72)
