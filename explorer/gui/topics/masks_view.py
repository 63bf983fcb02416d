"""Topic 4 view: padding mask, causal mask, their AND, and one head's weights side by side.

Rows with no open key are outlined in red on the combined mask and on the weights, and the
message line says, per such row, why it is empty and what the app does (weights 0, no NaN).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QSpinBox

from ...app.course.topics import masks_job
from ...core.topics.masking import empty_row_reason
from ..plotting.colormaps import DEFAULT_COLORMAP
from .base import TopicView
from .bindings import bind_spin
from .texts import note
from .widgets import MatrixPlot, mask_colormap
from ..plotting.i18n import translate

MAX_EXPLAINED_ROWS = 4


class MasksView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("masks_head",)

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"masks_head": self.head_spin}
    key = "masks"

    def build(self) -> None:
        self.head_spin = QSpinBox()
        self.head_spin.setRange(0, 0)
        bind_spin(self.head_spin, self.topics, "masks_head")
        self.topics.masks_head_changed.connect(self._draw_weights)
        for w in (self.tr_label("topics.masks_view", "weights of head"), self.head_spin):
            self.controls.addWidget(w)
        self.plots = {name: MatrixPlot() for name in ("padding", "causal", "combined", "weights")}
        for i, plot in enumerate(self.plots.values()):
            self.graphics.ci.addItem(plot.plot, row=i // 2, col=i % 2)
        self.layers = None
        self.shown = None

    def request(self) -> tuple:
        return masks_job(self.result, self.topics)

    def _colormap(self) -> str:
        return self.state.view.colormap if self.state is not None else DEFAULT_COLORMAP

    def draw(self, data) -> None:
        result, layers = data
        self.shown, self.layers = result, layers
        tokens = layers.tokens
        cfg = result.config
        pad = ", ".join(str(p) for p in sorted(cfg.padding)) or translate("topics.masks_view", "none")
        titles = {
            "padding": translate("topics.masks_view",
                                 "padding mask (keys {pad}) · pale = open, dark = masked").format(pad=pad),
            "causal": translate("topics.masks_view",
                                "causal mask") + ("" if cfg.causal else translate("topics.masks_view",
                                                                                  " (off: all open)")),
            "combined": translate("topics.masks_view", "combined = padding AND causal"),
        }
        empty = np.flatnonzero(layers.empty_rows)
        for name in ("padding", "causal", "combined"):
            plot = self.plots[name]
            plot.set_matrix(getattr(layers, name).astype(float), (0.0, 1.0), mask_colormap(),
                            row_labels=tokens, col_labels=tokens, title=titles[name])
            plot.set_axis_labels(translate("topics.masks_view", "query"), translate("topics.masks_view",
                                                                                    "key"))
        self.plots["combined"].set_outlined_rows(empty)
        self.head_spin.blockSignals(True)
        self.head_spin.setRange(0, cfg.n_heads - 1)
        self.head_spin.setValue(self.topics.masks_head)  # the nearest head there is
        self.head_spin.blockSignals(False)
        self._draw_weights()
        self.show_message(self.empty_row_text())

    def empty_row_text(self) -> str:
        layers = self.layers
        if layers is None:
            return ""
        rows = np.flatnonzero(layers.empty_rows)
        if not rows.size:
            return note("no_empty_row")
        lines = []
        for row in rows[:MAX_EXPLAINED_ROWS]:
            template, fields = empty_row_reason(int(row), self.shown.config)
            lines.append(translate("topics.masking", template).format(**fields))
        if rows.size > MAX_EXPLAINED_ROWS:
            lines.append(translate("topics.masks_view", "… and {count} more rows like these").format(
                count=rows.size - MAX_EXPLAINED_ROWS))
        return "\n".join(lines)

    def _draw_weights(self, *_):
        result = self.shown
        if result is None:
            return
        head = min(self.topics.masks_head, result.config.n_heads - 1)
        n = result.config.n_tokens
        plot = self.plots["weights"]
        plot.set_matrix(result.weights[head], (0.0, 1.0), self._colormap(),
                        row_labels=result.tokens,
                        col_labels=result.tokens, values=n * n <= 96,
                        value_cells=result.mask & ~result.empty_rows[:, None],
                        title=translate("topics.masks_view",
                                        "head {head}: weights (rows sum to 1, masked = 0)").format(head=head))
        plot.set_mask(result.mask)
        plot.set_outlined_rows(np.flatnonzero(result.empty_rows))
        plot.set_axis_labels(translate("topics.masks_view", "query"), translate("topics.masks_view", "key"))

    def restyle(self, on: bool) -> None:
        for plot in self.plots.values():
            plot.set_presentation(on)
