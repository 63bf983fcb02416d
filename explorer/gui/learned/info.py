"""The strip under the tabs while a pretrained model is shown: model, layer (with ◀ ▶), tokens,
time, and for the decoder its likeliest next tokens and the loss on the text.

It replaces the random model's info strip, and keeps the layer at hand in presentation mode,
where the controls are collapsed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from ...app.models.learned import Analysis
from ...app.models.learned_state import LearnedState
from ..plotting.fonts import ui_font
from ..plotting.i18n import translate


def analysis_text(analysis: Analysis, layer: int) -> str:
    spec = analysis.spec
    text = translate("learned.info", "{name} · layer {layer} of 0–{last} · {n} tokens · {ms} ms on {device}").format(
        name=spec.name, layer=layer, last=spec.layers - 1, n=analysis.n_tokens,
        ms=f"{analysis.run_s * 1000:.0f}", device=analysis.device)
    if analysis.next_top:
        top = "  ".join(f"«{label}» {p:.2f}" for label, p, _id in analysis.next_top)
        text += translate("learned.info", " · next: {top}").format(top=top)
    if analysis.loss is not None:
        text += translate("learned.info", " · loss {loss} nats").format(loss=f"{analysis.loss:.2f}")
    return text


class LearnedInfoStrip(QWidget):
    """◀ ▶ layer buttons and one line about the analysis shown."""

    def __init__(self, state: LearnedState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.previous, self.next = QToolButton(), QToolButton()
        self.previous.setText("◀")
        self.next.setText("▶")
        self.previous.setToolTip(translate("learned.info", "previous layer"))
        self.next.setToolTip(translate("learned.info", "next layer"))
        self.previous.clicked.connect(lambda: state.set_layer(state.layer - 1))
        self.next.clicked.connect(lambda: state.set_layer(state.layer + 1))
        self.label = QLabel(" ")
        self.label.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.addWidget(self.previous)
        layout.addWidget(self.next)
        layout.addWidget(self.label, 1)
        state.picture_changed.connect(lambda _p: self.refresh())
        state.source_changed.connect(lambda _s: self.refresh())
        state.busy_changed.connect(lambda _b: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        analysis = self._state.analysis
        self.setVisible(not self._state.model.capabilities.course_settings)
        if analysis is None:
            busy = self._state.busy
            self.label.setText(translate("learned.info", "{busy} (until it is ready, the picture is the previous one)").format(busy=busy) if busy else " ")
            self.previous.setEnabled(False)
            self.next.setEnabled(False)
            return
        self.label.setText(analysis_text(analysis, self._state.layer))
        self.previous.setEnabled(self._state.layer > 0)
        self.next.setEnabled(self._state.layer < analysis.spec.layers - 1)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.previous.setToolTip(translate("learned.info", "previous layer"))
            self.next.setToolTip(translate("learned.info", "next layer"))
            self.refresh()

    def set_presentation(self, on: bool) -> None:
        self.label.setFont(ui_font(14 if on else 10))
