"""X, PE and X + PE side by side: what the projections actually receive."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ...core import AttentionResult, sinusoidal_table
from ...app.throttle import Debouncer
from ..plotting.axes import (SIGNED_COLORMAP, set_count_ticks, set_index_ticks, set_title,
                             setup_heatmap, show_cells, style_axes)
from ..plotting.colormaps import resolve_colormap, symmetric_levels
from ..plotting.fonts import set_text_colour, ui_font
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

OFF_NOTE = QT_TRANSLATE_NOOP("pe.inputs", "positional encoding is off — X is projected as is")
GREYED_OPACITY = 0.3


class PEInputsView(QWidget):
    """Three (n, d) heatmaps on one colour scale, token labels on the rows."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.x_plot = self.graphics.addPlot(row=0, col=0)
        self.pe_plot = self.graphics.addPlot(row=0, col=1)
        self.sum_plot = self.graphics.addPlot(row=0, col=2)
        self.x_item = setup_heatmap(self.x_plot, "X", translate("pe.inputs", "dimension"),
                                    translate("pe.inputs", "token"))
        self.pe_item = setup_heatmap(self.pe_plot, translate("pe.inputs", "PE"), translate("pe.inputs",
                                                                                           "dimension"), "")
        self.sum_item = setup_heatmap(self.sum_plot, translate("pe.inputs", "X + PE"), translate("pe.inputs",
                                                                                                 "dimension"), "")
        for plot in (self.pe_plot, self.sum_plot):
            plot.setYLink(self.x_plot)
            plot.getAxis("left").setStyle(showValues=False)
        self.color_bar = pg.ColorBarItem(colorMap=resolve_colormap(SIGNED_COLORMAP), interactive=False,
                                         width=14)
        self.color_bar.setImageItem([self.x_item, self.pe_item, self.sum_item])
        self.graphics.addItem(self.color_bar, row=0, col=3)
        self._columns: tuple[float, ...] = ()
        # Deferred (and dropped with the widget): after a resize, a new axis width, new data.
        self._balance_timer = Debouncer(self._balance_columns, 0, owner=self)
        for plot in (self.x_plot, self.pe_plot, self.sum_plot):  # an axis re-fitted its labels
            plot.getAxis("left").geometryChanged.connect(lambda: self._balance_timer())
        self.graphics.installEventFilter(self)  # the view resized
        self.note = QLabel("")
        set_text_colour(self.note, "#b35900")
        self.note.setFont(ui_font(10))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.note)

    _result = None

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.x_plot.setLabel("left", translate("pe.inputs", "token"))
            for plot in (self.x_plot, self.pe_plot, self.sum_plot):
                plot.setLabel("bottom", translate("pe.inputs", "dimension"))
            if self._result is not None:
                self.set_result(self._result)  # the titles and the note
            else:
                set_title(self.pe_plot, translate("pe.inputs", "PE"))
                set_title(self.sum_plot, translate("pe.inputs", "X + PE"))

    def set_result(self, result: AttentionResult) -> None:
        """Draw result.x, result.pe (or the unused table, greyed) and result.x_in."""
        self._result = result
        n, d = result.x.shape
        added = result.pe is not None
        pe = result.pe if added else sinusoidal_table(n, d)  # (n, d)
        levels = symmetric_levels(result.x, pe, result.x_in)
        for item, array in ((self.x_item, result.x), (self.pe_item, pe), (self.sum_item, result.x_in)):
            item.setImage(np.asarray(array, dtype=np.float64), autoLevels=False, levels=levels)
        self.color_bar.setLevels(levels)
        self.pe_item.setOpacity(1.0 if added else GREYED_OPACITY)
        set_title(self.pe_plot, translate("pe.inputs", "PE") if added else translate("pe.inputs",
                                                                                     "PE (not added)"), "k" if added else "#888888")
        set_title(self.sum_plot, translate("pe.inputs", "X + PE") if added else translate("pe.inputs",
                                                                                          "X (as is)"))  # the note says the rest
        self.note.setText("" if added else translate("pe.inputs", OFF_NOTE))
        self.note.setVisible(not added)
        set_index_ticks(self.x_plot.getAxis("left"), result.tokens)
        for plot in (self.x_plot, self.pe_plot, self.sum_plot):
            show_cells(plot, n, d)
            set_count_ticks(plot.getAxis("bottom"), d)
        self._balance_timer()  # once the token axis has its new width

    def _balance_columns(self) -> None:
        """One image width for X, PE and X + PE: X's token axis is added to its column (taken
        out of X's share, it left X a sliver beside the others in presentation mode)."""
        layout = self.graphics.ci.layout
        plots = (self.x_plot, self.pe_plot, self.sum_plot)
        axes = [plot.getAxis("left").width() for plot in plots]
        left, _, right, _ = layout.getContentsMargins()
        free = (self.graphics.viewport().width() - sum(axes) - self.color_bar.size().width()
                - 3 * layout.horizontalSpacing() - left - right)
        columns = tuple(round(axis + max(8.0, free / 3)) for axis in axes)
        if columns != self._columns:
            self._columns = columns
            for col, width in enumerate(columns):
                layout.setColumnFixedWidth(col, width)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if watched is self.graphics and event.type() == QEvent.Type.Resize:
            self._balance_timer()  # after the viewport has its new size
        return super().eventFilter(watched, event)

    @property
    def pe_added(self) -> bool:
        return self.pe_item.opacity() == 1.0

    def set_presentation(self, on: bool) -> None:
        for plot in (self.x_plot, self.pe_plot, self.sum_plot):
            style_axes(plot, on)
        self.note.setFont(ui_font(14 if on else 10))
        self._balance_timer()
