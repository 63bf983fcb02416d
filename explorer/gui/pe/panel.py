"""The positional-encoding view: the sinusoidal table, a few of its columns as curves,
PE(i)·PE(j), and X / PE / X + PE for the current sentence.

Everything drawn comes from the core (`sinusoidal_table` is cached there, `similarity`
is one matrix product); the panel computes no attention.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget

from ...core import MAX_TOKENS, AttentionResult, ConfigError, similarity, sinusoidal_table
from ...core.config import parse_whole
from ...app.throttle import Debouncer
from .curves import MAX_CURVES, PECurvesView
from .inputs import PEInputsView
from ..plotting.axes import (color_bar, heatmap_plot, set_count_ticks, set_title, show_cells,
                             style_axes)
from ..plotting.colormaps import symmetric_levels
from ..plotting.fonts import ui_font
from ..plotting.labels import WrappingLabel
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

def default_dims(d_model: int) -> list[int]:
    """0, 1, 2, 3 (fast sin/cos pairs), one mid and one high dimension (slow)."""
    mid = (d_model // 2) & ~1
    return sorted({c for c in (0, 1, 2, 3, mid, d_model - 2) if 0 <= c < d_model})


HINT = QT_TRANSLATE_NOOP("pe.panel", "(or click a column of the table to add / remove it)")


def parse_dims(text: str, d_model: int) -> list[int]:
    """Comma/space separated column numbers, kept if in range, first MAX_CURVES."""
    return read_dims(text, d_model)[0]


def read_dims(text: str, d_model: int) -> tuple[list[int], str | None]:
    """(the valid dims of `text`, first MAX_CURVES; what was refused, or None).

    Each part is read by core's parse_whole: "²", "٣" or a 4301-digit number is a refused
    part with a message, never a ValueError inside the editingFinished slot."""
    dims, refused = [], []
    for part in text.replace(",", " ").split():
        try:
            dim = parse_whole(part, "dim")
        except ConfigError:
            refused.append(part)
            continue
        if not 0 <= dim < d_model:
            refused.append(part)
        elif dim not in dims:
            dims.append(dim)
    if not refused:
        return dims[:MAX_CURVES], None
    shown = ", ".join(repr(p[:12]) for p in refused[:3]) + (" …" if len(refused) > 3 else "")
    return dims[:MAX_CURVES], f"ignored {shown}: dims are whole numbers 0 to {d_model - 1}"


class PEPanel(QWidget):
    """set_result(result) redraws; the position count and chosen dims are the user's."""

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("pe_positions",)

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"pe_positions": self.positions_spin}

    shown_changed = Signal(int, object)  # positions shown, dims drawn as curves (list[int])

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._result: AttentionResult | None = None
        self._d_model = 0
        self._n_tokens = 0
        self._dims: list[int] = []
        self._stale = False                  # a result arrived while hidden, not drawn yet
        self._table_key: tuple | None = None  # (positions, d_model, n) last drawn
        self._build_controls()
        self._build_plots()
        self._build_layout()

    # ----- construction -------------------------------------------------------------------
    def _build_controls(self) -> None:
        self.positions_spin = QSpinBox()
        self.positions_spin.setRange(1, MAX_TOKENS)
        self.positions_spin.setToolTip(translate("pe.panel",
                                                 "How many positions of the table to show (rows)"))
        # Holding a spin arrow at 1024 × 2048 would queue many 0.1 s redraws: coalesce them.
        self._table_debounce = Debouncer(self._redraw_table, 40, owner=self)
        self.positions_spin.valueChanged.connect(lambda _n: self._table_debounce())
        self.positions_spin.valueChanged.connect(lambda _: self._announce())
        self.dims_edit = QLineEdit()
        self.dims_edit.setMinimumWidth(200)
        self.dims_edit.setToolTip(translate("pe.panel", "Columns drawn as curves, e.g. 0, 1, 2, 3, 6"))
        self.dims_edit.editingFinished.connect(self._dims_typed)

    def _build_plots(self) -> None:
        self.table_widget, self.table_item = heatmap_plot(translate("pe.panel", "PE table"),
                                                          translate("pe.panel", "dimension"),
                                                          translate("pe.panel", "position"))
        self.table_widget.scene().sigMouseClicked.connect(self._table_clicked)
        self.table_bar = color_bar(self.table_item, self.table_widget.getPlotItem())
        self.length_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#444444", width=1, style=Qt.DashLine))
        self.table_widget.addItem(self.length_line)
        self.similarity_widget, self.similarity_item = heatmap_plot(translate("pe.panel", "PE(i) · PE(j)"),
                                                                    translate("pe.panel", "position j"),
                                                                    translate("pe.panel", "position i"))
        self.similarity_bar = color_bar(self.similarity_item, self.similarity_widget.getPlotItem())
        self.curves_view = PECurvesView()
        self.inputs = PEInputsView()

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        # wraps when short of room rather than holding the window 800 px wide
        self.hint = WrappingLabel(translate("pe.panel", HINT))
        self._control_widgets = (QLabel(translate("pe.panel", "positions shown:")), self.positions_spin,
                                 QLabel(translate("pe.panel",
                                                  "   curves for dims:")), self.dims_edit, self.hint)
        for widget in self._control_widgets:
            widget.setFont(ui_font(10))
            top.addWidget(widget)
        top.addStretch(1)
        grid = QGridLayout()
        grid.addWidget(self.table_widget, 0, 0)
        grid.addWidget(self.similarity_widget, 0, 1)
        grid.addWidget(self.curves_view, 1, 0)
        grid.addWidget(self.inputs, 1, 1)
        # the lower row more: the curves' legend (three rows at 13 pt) takes its share of that
        # row, and with equal rows the curves kept ~40 px at 1024 × 768 in presentation mode
        grid.setRowStretch(0, 2)
        grid.setRowStretch(1, 3)
        for i in range(2):
            grid.setColumnStretch(i, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """Every text from its source (a language switch); the titles built from the table too."""
        self.positions_spin.setToolTip(translate("pe.panel", "How many positions of the table to show (rows)"))
        self.dims_edit.setToolTip(translate("pe.panel", "Columns drawn as curves, e.g. 0, 1, 2, 3, 6"))
        self._control_widgets[0].setText(translate("pe.panel", "positions shown:"))
        self._control_widgets[2].setText(translate("pe.panel", "   curves for dims:"))
        if read_dims(self.dims_edit.text(), self._d_model)[1] is None:  # (a problem stays as said)
            self.hint.setText(translate("pe.panel", HINT))
        for widget, bottom, left in ((self.table_widget, translate("pe.panel", "dimension"),
                                      translate("pe.panel", "position")),
                                     (self.similarity_widget, translate("pe.panel", "position j"),
                                      translate("pe.panel", "position i"))):
            widget.getPlotItem().setLabel("bottom", bottom)
            widget.getPlotItem().setLabel("left", left)
        self._table_key = None  # the titles name the table's size: drawn again (no recompute)
        self._redraw_table()

    # ----- public API ---------------------------------------------------------------------
    def set_result(self, result: AttentionResult) -> None:
        """Show the table for result's d_model; the position count follows a new sentence length.

        While the panel is hidden (another tab) only the result is kept; it is drawn on show.
        """
        self._result = result
        self._stale = not self.isVisible()
        if not self._stale:
            self._draw_result()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale and self._result is not None:
            self._draw_result()

    def _draw_result(self) -> None:
        result, self._stale = self._result, False
        n, d = result.config.n_tokens, result.config.d_model
        if n != self._n_tokens:
            self._n_tokens = n
            self.positions_spin.blockSignals(True)
            self.positions_spin.setValue(n)
            self.positions_spin.blockSignals(False)
        if d != self._d_model:
            self._d_model = d
            self._dims = default_dims(d)
            self._rebuild_curves()
        self._redraw_table()
        self.inputs.set_result(result)
        self._announce()

    def set_positions(self, count: int) -> None:
        """Show `count` positions of the table (1 .. 1024), redrawn at once."""
        self.positions_spin.setValue(count)
        self._redraw_table()
        self._announce()

    def set_dims(self, dims) -> None:
        """Draw these table columns as curves (out-of-range ones are dropped)."""
        dims = [int(c) for c in dims if 0 <= int(c) < self._d_model]
        self._dims = list(dict.fromkeys(dims))[:MAX_CURVES]
        self._rebuild_curves()
        self._redraw_curves()
        self._announce()

    def _dims_typed(self) -> None:
        """Enter in "curves for dims": draw the valid ones; say next to the field what was not."""
        dims, problem = read_dims(self.dims_edit.text(), self._d_model)
        self.hint.setText(problem or translate("pe.panel", HINT))
        self.set_dims(dims)

    def toggle_dim(self, dim: int) -> None:
        """Add the column as a curve, or remove it if it is drawn (what a click does)."""
        if dim in self._dims:
            self.set_dims([c for c in self._dims if c != dim])
        elif len(self._dims) < MAX_CURVES:
            self.set_dims(sorted(self._dims + [dim]))

    def _announce(self) -> None:
        self.shown_changed.emit(self.positions_spin.value(), list(self._dims))

    @property
    def dims(self) -> list[int]:
        return list(self._dims)

    def set_presentation(self, on: bool) -> None:
        for widget in (self.table_widget, self.similarity_widget):
            style_axes(widget.getPlotItem(), on)
        self.curves_view.set_presentation(on)
        for widget in self._control_widgets:
            widget.setFont(ui_font(14 if on else 10))
        self.inputs.set_presentation(on)
        self._rebuild_curves()
        self._redraw_curves()

    # ----- drawing ------------------------------------------------------------------------
    def _table(self) -> np.ndarray:
        return sinusoidal_table(self.positions_spin.value(), self._d_model)  # (P, d)

    def _redraw_table(self) -> None:
        """Table, PE·PE and curves; skipped when positions, d_model and n are unchanged."""
        key = (self.positions_spin.value(), self._d_model, self._n_tokens)
        if self._result is None or self._stale or key == self._table_key:
            return  # nothing yet, hidden (drawn on show), or already drawn
        self._table_key = key
        table = self._table()  # (P, d)
        p, d = table.shape
        self.table_item.setImage(table, autoLevels=False, levels=(-1.0, 1.0))
        self.table_bar.setLevels((-1.0, 1.0))
        show_cells(self.table_widget.getPlotItem(), p, d)
        set_count_ticks(self.table_widget.getPlotItem().getAxis("left"), p)
        set_count_ticks(self.table_widget.getPlotItem().getAxis("bottom"), d)
        set_title(self.table_widget.getPlotItem(), translate("pe.panel",
                                                             "PE table ({p} positions × {d} dims)").format(p=p, d=d))
        self.length_line.setPos(self._n_tokens - 0.5)
        self.length_line.setVisible(p > self._n_tokens)
        sim = similarity(table)  # (P, P)
        self.similarity_item.setImage(sim, autoLevels=False, levels=symmetric_levels(sim))
        self.similarity_bar.setLevels(symmetric_levels(sim))
        show_cells(self.similarity_widget.getPlotItem(), p, p)
        for name in ("left", "bottom"):
            set_count_ticks(self.similarity_widget.getPlotItem().getAxis(name), p)
        set_title(self.similarity_widget.getPlotItem(), translate("pe.panel",
                                                                  "PE(i) · PE(j)  (diagonal = {diagonal})").format(
            diagonal=f"{sim[0, 0]:g}"))
        self._redraw_curves()

    def _rebuild_curves(self) -> None:
        self.curves_view.set_dims(self._dims)
        self.dims_edit.setText(", ".join(str(c) for c in self._dims))

    def _redraw_curves(self) -> None:
        if self._result is not None and not self._stale:  # a hidden, undrawn result: on show
            self.curves_view.set_table(self._table(), self._n_tokens)

    @property
    def curves(self) -> dict:
        """dim -> the PlotDataItem holding that table column (tests read it back)."""
        return self.curves_view.curves

    def _table_clicked(self, event) -> None:
        view = self.table_widget.getPlotItem().getViewBox()
        if self._result is None or not view.sceneBoundingRect().contains(event.scenePos()):
            return
        col = int(round(view.mapSceneToView(event.scenePos()).x()))
        if 0 <= col < self._d_model:
            self.toggle_dim(col)
