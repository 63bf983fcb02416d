"""The control panel: small binding widgets (model.py, options.py, sentence.py) in titled groups.

Every control writes to ``AppState`` (``state.update``) or ``ViewState`` and listens to them with
signal blockers, so widget and state never ping-pong. None of them computes anything.
Style sheets are avoided: one stops font inheritance, and presentation mode enlarges the panel
by setting the window's font (looks are set with partial palettes/fonts instead, e.g.
plotting.fonts.set_text_colour for the red count under a refused sentence).
"""

from __future__ import annotations

import random

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QFrame, QGroupBox, QScrollArea, QVBoxLayout, QWidget

from .model import ModelSizeControl, SeedControl
from .options import BackendCombo, ChoicesControl, DisplayControl, SwitchesControl
from .sentence import PaddingChips, SentenceControl
from ...app.state import AppState
from ..plotting.i18n import translate


def _group(title: str, *widgets: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    for widget in widgets:
        layout.addWidget(widget)
    return box


class ControlPanel(QScrollArea):
    """All controls, top to bottom in the order a lesson uses them; scrolls when short of room."""

    def __init__(self, state: AppState, colormaps: list[str], rng: random.Random | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.sentence = SentenceControl(state)
        self.chips = PaddingChips(state)
        self.model_size = ModelSizeControl(state)
        self.seed = SeedControl(state, rng=rng)
        self.switches = SwitchesControl(state)
        self.backend = BackendCombo(state)
        self.choices = ChoicesControl(state)
        self.display = DisplayControl(state, colormaps)
        inner = QWidget()
        inner.setObjectName("controls")
        layout = QVBoxLayout(inner)
        self.random_groups = [_group(translate("controls.panel", "Sentence"), self.sentence),
                              _group(translate("controls.panel", "Padding (click tokens)"), self.chips),
                              _group(translate("controls.panel", "Model size"), self.model_size),
                              _group(translate("controls.panel", "Seed"), self.seed),
                              _group(translate("controls.panel", "Scaling and masks"), self.switches)]
        for group in self.random_groups:
            layout.addWidget(group)
        layout.addWidget(_group(translate("controls.panel", "Backend / device"), self.backend, self.choices))
        layout.addWidget(_group(translate("controls.panel", "Display"), self.display))
        layout.addStretch(1)
        self.setWidget(inner)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fit_width()

    def add_source_group(self, title: str, widget: QWidget) -> QGroupBox:
        """A group above all others (the model source); returns it."""
        box = _group(title, widget)
        self.widget().layout().insertWidget(0, box)
        self.fit_width()
        return box

    def show_random_controls(self, on: bool) -> None:
        """Show or hide the random model's controls (hidden while a pretrained model is shown)."""
        for group in self.random_groups:
            group.setVisible(on)
        self.choices.setVisible(on)  # weights init and precision: the random model's

    def fit_width(self) -> None:
        """As wide as the controls need (they never scroll sideways), e.g. after a font change."""
        inner = self.widget()
        inner.layout().activate()
        needed = inner.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
        self.setMinimumWidth(max(300, needed + 4))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            QTimer.singleShot(0, self.fit_width)  # after the children have re-laid out
