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
from ...app.course.state import AppState
from ..plotting.i18n import QT_TRANSLATE_NOOP, Texts


def _group(texts: Texts, title: str, *widgets: QWidget) -> QGroupBox:
    """A titled group; `title` (marked, context "controls.panel") follows the language."""
    box = QGroupBox()
    texts.set(box.setTitle, "controls.panel", title)
    layout = QVBoxLayout(box)
    for widget in widgets:
        layout.addWidget(widget)
    return box


class ControlPanel(QScrollArea):
    """All controls, top to bottom in the order a lesson uses them; scrolls when short of room."""

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("sentence", "padding", "d_model", "heads", "seed", "init", "show_values",
                       "colormap", "scaled", "causal", "positional")

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"sentence": self.sentence.edit, "padding": self.chips,
                "d_model": self.model_size.d_model_slider, "heads": self.model_size.heads_slider,
                "seed": self.seed.spin, "init": self.choices.combos["init"],
                "show_values": self.display.values_combo, "colormap": self.display.colormap_combo,
                **{name: self.switches.boxes[name] for name in ("scaled", "causal", "positional")}}

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
        texts = self.texts = Texts(self)
        self.random_groups = [
            _group(texts, QT_TRANSLATE_NOOP("controls.panel", "Sentence"), self.sentence),
            _group(texts, QT_TRANSLATE_NOOP("controls.panel", "Padding (click tokens)"), self.chips),
            _group(texts, QT_TRANSLATE_NOOP("controls.panel", "Model size"), self.model_size),
            _group(texts, QT_TRANSLATE_NOOP("controls.panel", "Seed"), self.seed),
            _group(texts, QT_TRANSLATE_NOOP("controls.panel", "Scaling and masks"), self.switches)]
        for group in self.random_groups:
            layout.addWidget(group)
        layout.addWidget(_group(texts, QT_TRANSLATE_NOOP("controls.panel", "Backend / device"), self.backend,
                                self.choices))
        layout.addWidget(_group(texts, QT_TRANSLATE_NOOP("controls.panel", "Display"), self.display))
        layout.addStretch(1)
        self.setWidget(inner)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fit_width()

    def add_source_group(self, title: str, widget: QWidget) -> QGroupBox:
        """A group above all others (the model source); returns it (its owner keeps its title
        in the UI language)."""
        box = QGroupBox(title)
        QVBoxLayout(box).addWidget(widget)
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
