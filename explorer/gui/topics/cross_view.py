"""Topic 3 view: cross-attention, decoder queries (rows) over encoder keys (columns).

The encoder sentence is this view's own input (the config holds the decoder side; the sentence
is the topic setting ``cross_text``); tokens written "<pad>" are encoder padding when the box
is ticked. One rectangular heatmap per head
(the first MAX_HEADS), masked columns greyed, plus the (decoder × encoder) mask itself.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLineEdit

from ...app.course.topics import PAD, cross_job
from ...core.topics import CrossResult
from ..plotting.colormaps import DEFAULT_COLORMAP
from .base import TopicView
from .bindings import bind_check, bind_line_edit
from .widgets import MatrixPlot, mask_colormap
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

MAX_HEADS = 8


class CrossView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("cross_sentence",)

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"cross_sentence": self.encoder_edit}
    key = "cross"

    def build(self) -> None:
        self.encoder_edit = QLineEdit()
        self.tr_text(self.encoder_edit.setPlaceholderText, "topics.cross_view",
                     QT_TRANSLATE_NOOP("topics.cross_view", "encoder sentence"))
        self.encoder_edit.setMinimumWidth(360)
        self.pad_box = QCheckBox()
        self.tr_text(lambda text: self.pad_box.setText(text.replace("%1", PAD)), "topics.cross_view",
                     QT_TRANSLATE_NOOP("topics.cross_view", "%1 = padding"))
        bind_line_edit(self.encoder_edit, self.topics, "cross_text")
        bind_check(self.pad_box, self.topics, "cross_pad_is_padding")
        self.topics.cross_text_changed.connect(lambda _t: self.invalidate())
        self.topics.cross_pad_is_padding_changed.connect(lambda _on: self.invalidate())
        for w in (self.tr_label("topics.cross_view", "encoder:"), self.encoder_edit, self.pad_box):
            self.controls.addWidget(w)
        self.mask_plot = MatrixPlot()
        self.head_plots: list[MatrixPlot] = []
        self.cross: CrossResult | None = None

    def set_encoder_text(self, text: str) -> None:
        """Set the encoder sentence (through the state: the box follows). The same text again
        still recomputes, as pressing Enter in the box did."""
        if text == self.topics.cross_text:
            self.invalidate()
        self.topics.cross_text = text

    def request(self) -> tuple:
        return cross_job(self.result, self.topics)

    def _colormap(self) -> str:
        return self.state.view.colormap if self.state is not None else DEFAULT_COLORMAP

    def _layout(self, heads: int) -> None:
        shown = min(heads, MAX_HEADS)
        if len(self.head_plots) == shown:
            return
        self.graphics.ci.clear()
        self.head_plots = [MatrixPlot() for _ in range(shown)]
        cols = min(shown + 1, 3 if shown + 1 <= 6 else 4)
        for i, plot in enumerate([self.mask_plot] + self.head_plots):
            self.graphics.ci.addItem(plot.plot, row=i // cols, col=i % cols)
            plot.set_presentation(self.presentation)

    def draw(self, cross: CrossResult) -> None:
        self.cross = cross
        self._layout(cross.weights.shape[0])
        dec, enc = cross.decoder_tokens, cross.encoder_tokens
        n, m = cross.mask.shape
        self.mask_plot.set_matrix(cross.mask.astype(float), (0.0, 1.0), mask_colormap(),
                                  row_labels=dec, col_labels=enc,
                                  title=translate("topics.cross_view",
                                                  "mask ({n} × {m}): pale = may attend, dark = masked").format(n=n, m=m))
        self.mask_plot.set_axis_labels(translate("topics.cross_view", "decoder (query)"),
                                       translate("topics.cross_view", "encoder (key)"))
        values = n * m <= 96
        for h, plot in enumerate(self.head_plots):
            plot.set_matrix(cross.weights[h], (0.0, 1.0), self._colormap(), row_labels=dec,
                            col_labels=enc, values=values, value_cells=cross.mask,
                            title=translate("topics.cross_view",
                                            "head {h}: weights ({n} × {m})").format(h=h, n=n, m=m))
            plot.set_mask(cross.mask)
            plot.set_outlined_rows(cross.empty_rows.nonzero()[0])
            plot.set_axis_labels(translate("topics.cross_view", "decoder (query)"),
                                 translate("topics.cross_view", "encoder (key)"))
        heads = cross.weights.shape[0]
        notes = []
        if heads > MAX_HEADS:
            notes.append(translate("topics.cross_view",
                                   "showing heads 0 … {last} of {heads}").format(last=MAX_HEADS - 1, heads=heads))
        if cross.empty_rows.any():
            notes.append(translate("topics.cross_view", "every encoder token is padding: all weights are 0 "
                                   "(no NaN), outputs are zero vectors"))
        self.show_message(" · ".join(notes))

    def restyle(self, on: bool) -> None:
        for plot in [self.mask_plot] + self.head_plots:
            plot.set_presentation(on)
