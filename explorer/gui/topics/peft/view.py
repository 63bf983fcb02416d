"""Topic 7 view: PEFT (LoRA, IA³, prefix and prompt tuning) on the course's random weights.

Controls (`controls.PeftControls`, one topic setting each); under them the method's sentences
(why B = 0 changes nothing, the merged = unmerged check, ...); the pictures (`plots`); and the
parameter counts of every method side by side. The compute is `app.course.topics.peft_job`
on the topic runner; changing the head only redraws.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea

from ....app.course.topics import peft_job
from ....core.topics.peft import PeftResult
from ...plotting.colormaps import DEFAULT_COLORMAP
from ...plotting.fonts import set_text_colour, ui_font
from ..base import NOTE_COLOUR, TopicView
from ..widgets import plot_pt, text_pt
from .controls import PeftControls
from .plots import PeftFigure
from .summary import summary_html, table_html

RECOMPUTE = ("peft_method", "peft_target", "peft_rank", "peft_alpha", "peft_rslora", "peft_b_init",
             "peft_steps", "peft_seed", "peft_ia3_strength", "peft_virtual", "peft_layers")


def _rich_label() -> QLabel:
    label = QLabel("")
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setContentsMargins(8, 0, 8, 0)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    set_text_colour(label, NOTE_COLOUR)
    return label


class SummaryBox(QScrollArea):
    """The method's sentences: as tall as they are while that is at most `share` of the
    window's height, then they scroll (16 pt sentences at 1024 x 768 left the heads no room)."""

    SHARE, PRESENTING_SHARE, MIN_LINES = 0.2, 0.14, 2

    def __init__(self, label: QLabel):
        super().__init__()
        self.label = label
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.share = self.SHARE

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        height = self.label.heightForWidth(max(self.viewport().width(), 100))
        lines = self.MIN_LINES * self.label.fontMetrics().lineSpacing()
        cap = max(int(self.window().height() * self.share), lines)
        return QSize(super().sizeHint().width(), min(height, cap) + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(0, self.MIN_LINES * self.label.fontMetrics().lineSpacing())

    def refit(self) -> None:
        self.updateGeometry()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():  # the text's height follows the width
            self.updateGeometry()


class PeftView(TopicView):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("peft_method", "peft_target", "peft_rank", "peft_b_init")

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return self.panel.lesson_widgets()
    key = "peft"

    def build(self) -> None:
        self.panel = PeftControls(self, self.topics)
        self.controls.addWidget(self.panel, 100)  # the row's closing stretch has 1
        for name in RECOMPUTE:
            getattr(self.topics, name + "_changed").connect(lambda _v: self.invalidate())
        self.topics.peft_head_changed.connect(self._on_head)
        self.summary = _rich_label()
        self.summary_box = SummaryBox(self.summary)
        layout = self.layout()
        layout.insertWidget(layout.indexOf(self.message) + 1, self.summary_box)
        self.figure = PeftFigure(self.graphics.ci)
        self.graphics.installEventFilter(self)
        self.data: PeftResult | None = None
        self.restyle(False)

    def retranslate(self) -> None:
        self.panel.retranslate()

    def _colormap(self) -> str:
        return self.state.view.colormap if self.state is not None else DEFAULT_COLORMAP

    # -- compute / draw -----------------------------------------------------------------------
    def set_result(self, result) -> None:
        self.panel.set_sizes(result.config.d_model, result.config.n_heads)
        super().set_result(result)

    def request(self) -> tuple:
        return peft_job(self.result, self.topics)

    def draw(self, data: PeftResult | None) -> None:
        if data is None:  # stopped for a newer request (never delivered: belt and braces)
            return
        self.data = data
        self.figure.draw(data, self.topics.peft_head, self._colormap())
        self.summary.setText(summary_html(data))
        self.summary_box.refit()
        self.figure.table.set_html(table_html(data), plot_pt(self.presentation))

    def _on_head(self, _head: int) -> None:
        if self.data is not None:
            self.figure.draw_head(self.data, self.topics.peft_head, self._colormap())

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if watched is self.graphics and event.type() == QEvent.Type.Resize:
            self.figure.fit(event.size().height())
        return super().eventFilter(watched, event)

    def summary_text(self) -> str:
        """The sentences shown, as plain text (tests)."""
        return self.summary.text()

    def restyle(self, on: bool) -> None:
        font = ui_font(text_pt(on))
        self.summary.setFont(font)
        self.summary_box.share = SummaryBox.PRESENTING_SHARE if on else SummaryBox.SHARE
        self.summary_box.refit()
        self.panel.setFont(font)
        self.figure.set_presentation(on)
        if self.data is not None:
            self.draw(self.data)
