"""d_model, heads and seed controls.

d_model and heads can never form an invalid pair: the d_model slider steps over a list of
widths, and the heads slider steps over the *divisors* of the current d_model (its label lists
them). When d_model changes, heads keeps its value if it still divides, else drops to the
nearest divisor below; both go to the state in one update.

The seed box is a QDoubleSpinBox with 0 decimals: QSpinBox is int32 and cannot reach 2**32 - 1.
"""

from __future__ import annotations

import random

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (QDoubleSpinBox, QGridLayout, QHBoxLayout, QLabel, QPushButton,
                               QSlider, QWidget)

from ...core import MAX_D_MODEL, SEED_MAX, AttentionConfig
from ...core.config import divisors, max_heads_for, nearest_divisor  # noqa: F401 (tests import them here)
from ...app.course.state import AppState
from ..plotting.i18n import QT_TRANSLATE_NOOP, on_language_change, Texts, translate

D_MODEL_CHOICES = (2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
                   768, 1024, 1536, 2048)


def d_model_choices(current: int) -> list[int]:
    """The slider's widths, with `current` added when a preset or settings use another one."""
    choices = set(D_MODEL_CHOICES)
    if 1 <= current <= MAX_D_MODEL:
        choices.add(current)
    return sorted(choices)


def _slider() -> QSlider:
    slider = QSlider(Qt.Orientation.Horizontal)
    slider.setTickPosition(QSlider.TickPosition.TicksBelow)
    slider.setPageStep(1)
    slider.setMinimumWidth(160)
    return slider


class ModelSizeControl(QWidget):
    """Two sliders over index lists (d_model widths, divisors) and a live d_head readout."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self._widths: list[int] = []
        self._divisors: list[int] = []
        self.d_model_slider, self.heads_slider = _slider(), _slider()
        self.d_model_value, self.heads_value = QLabel(), QLabel()
        self.divisors_label = QLabel()
        self.divisors_label.setWordWrap(True)
        hint = self.divisors_label.palette()
        hint.setColor(QPalette.ColorRole.WindowText, QColor("#555555"))
        self.divisors_label.setPalette(hint)
        self.d_head_label = QLabel()
        for label in (self.d_model_value, self.heads_value):
            label.setMinimumWidth(48)
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        texts = Texts(self)
        d_model_name, heads_name = QLabel(), QLabel()
        texts.set(d_model_name.setText, "controls.model", QT_TRANSLATE_NOOP("controls.model", "d_model"))
        texts.set(heads_name.setText, "controls.model", QT_TRANSLATE_NOOP("controls.model", "heads"))
        layout.addWidget(d_model_name, 0, 0)
        layout.addWidget(self.d_model_slider, 0, 1)
        layout.addWidget(self.d_model_value, 0, 2)
        layout.addWidget(heads_name, 1, 0)
        layout.addWidget(self.heads_slider, 1, 1)
        layout.addWidget(self.heads_value, 1, 2)
        layout.addWidget(self.divisors_label, 2, 1, 1, 2)
        layout.addWidget(self.d_head_label, 3, 0, 1, 3)
        self.d_model_slider.valueChanged.connect(self._on_d_model_index)
        self.heads_slider.valueChanged.connect(self._on_heads_index)
        state.config_changed.connect(self.sync)
        self.sync(state.config)
        on_language_change(self, lambda: self.sync(self._state.config))  # the composed texts

    def sync(self, config: AttentionConfig) -> None:
        """Show `config` without sending anything back to the state."""
        self._widths = d_model_choices(config.d_model)
        limit = max_heads_for(config.n_tokens)  # the core bounds heads × n × n
        self._divisors = divisors(config.d_model, limit)
        with QSignalBlocker(self.d_model_slider), QSignalBlocker(self.heads_slider):
            self.d_model_slider.setRange(0, len(self._widths) - 1)
            self.d_model_slider.setValue(self._widths.index(config.d_model))
            self.heads_slider.setRange(0, len(self._divisors) - 1)
            self.heads_slider.setValue(self._divisors.index(config.n_heads))
        self.d_model_value.setText(str(config.d_model))
        self.heads_value.setText(str(config.n_heads))
        self.heads_slider.setEnabled(len(self._divisors) > 1)
        text = translate("controls.model", "heads divide d_model: {divisors}").format(
            divisors=" ".join(map(str, self._divisors)))
        if divisors(config.d_model)[-1] > limit:
            text += translate("controls.model", " (more than {limit} need fewer tokens)").format(limit=limit)
        self.divisors_label.setText(text)
        self.d_head_label.setText(
            translate("controls.model", "d_head = d_model / heads = {numbers}").format(
                numbers=f"{config.d_model} / {config.n_heads} = {config.d_head}"))

    # ----- user -> state -------------------------------------------------------------------
    def _on_d_model_index(self, index: int) -> None:
        self.set_d_model(self._widths[index])

    def _on_heads_index(self, index: int) -> None:
        if not self._state.update(n_heads=self._divisors[index]):
            self.sync(self._state.config)  # refused: the slider goes back to what is shown

    def set_d_model(self, d_model: int) -> None:
        heads = nearest_divisor(self._state.config.n_heads, d_model)
        self._state.update(d_model=d_model, n_heads=heads)

    def step_d_model(self, step: int) -> None:
        """Keyboard: one width up (+1) or down (-1)."""
        index = max(0, min(self._widths.index(self._state.config.d_model) + step,
                           len(self._widths) - 1))
        self.set_d_model(self._widths[index])

    def step_heads(self, step: int) -> None:
        """Keyboard: to the next larger (+1) or smaller (-1) divisor of d_model."""
        index = max(0, min(self._divisors.index(self._state.config.n_heads) + step,
                           len(self._divisors) - 1))
        self._state.update(n_heads=self._divisors[index])


class SeedControl(QWidget):
    """The seed over the full 0 .. 2**32 - 1 range, plus a "New random seed" button."""

    def __init__(self, state: AppState, rng: random.Random | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self._rng = rng if rng is not None else random.Random()
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(0)
        self.spin.setRange(0, SEED_MAX)
        self.spin.setSingleStep(1)
        self.spin.setKeyboardTracking(False)  # typing 4294967295 computes once, on Enter
        texts = Texts(self)
        texts.set(self.spin.setToolTip, "controls.model", QT_TRANSLATE_NOOP(
            "controls.model", "Any whole number from 0 to {max} (2³² − 1)"), lambda t: t.format(max=SEED_MAX))
        self.random_button = QPushButton()
        texts.set(self.random_button.setText, "controls.model", QT_TRANSLATE_NOOP("controls.model", "New random seed"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        name = QLabel()
        texts.set(name.setText, "controls.model", QT_TRANSLATE_NOOP("controls.model", "seed"))
        layout.addWidget(name)
        layout.addWidget(self.spin, 1)
        layout.addWidget(self.random_button)
        self.spin.valueChanged.connect(lambda value: self._state.update(seed=int(round(value))))
        self.random_button.clicked.connect(self.randomize)
        state.config_changed.connect(self.sync)
        self.sync(state.config)

    def sync(self, config: AttentionConfig) -> None:
        with QSignalBlocker(self.spin):
            self.spin.setValue(float(config.seed))

    def value(self) -> int:
        return int(round(self.spin.value()))

    def step(self, step: int) -> None:
        self._state.update(seed=max(0, min(self._state.config.seed + step, SEED_MAX)))

    def randomize(self) -> None:
        self._state.update(seed=self._rng.randint(0, SEED_MAX))
