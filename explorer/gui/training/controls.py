"""The Train tab's settings and buttons: task, model size, seed, learning rate, steps; Start,
Pause, Step, Reset; Save / Load a model; export of the shown snapshot and of the animation.

The settings make a `TrainConfig` (`config(device)`), validated by core.training's one
`validate_train` when a run starts. They are editable only while no run exists: a run's
settings are fixed, Reset frees them (a loaded model sets them to its own).

Every config core accepts can be shown, so every model the app saves loads as it was saved: the
seed box covers 0 … 2³² − 1 (a QDoubleSpinBox with 0 decimals, as the main window's seed control:
QSpinBox is int32 and overflowed at 2³¹), and the learning rate is a text field holding the
number exactly (a spin box of 4 decimals clamped a loaded 1e-5 to 1e-4 without a word).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRegularExpression, Qt
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QLabel,
                               QLineEdit, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from ...core.config import SEED_MAX
from ...core.training import TrainConfig
from ...core.training.config import MAX_D_MODEL, MAX_HEADS, MAX_LAYERS, MAX_STEPS
from ...core.training.texts import CONTEXT, TASK_TITLES
from ..plotting.i18n import QT_TRANSLATE_NOOP, Texts, translate


def _spin(low: int, high: int, value: int, step: int = 1) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    return box


class SeedBox(QDoubleSpinBox):
    """A whole number 0 … 2³² − 1 (a double holds every one exactly); value() is an int."""

    def __init__(self, value: int):
        super().__init__()
        self.setDecimals(0)
        self.setRange(0, SEED_MAX)
        self.setValue(value)

    def value(self) -> int:  # noqa: D102 - the int the config takes
        return int(round(super().value()))


class LearningRateBox(QLineEdit):
    """The learning rate as typed: any number in (0, 1], shown exactly (repr) when set.

    value() is NaN for text that is not a number (validate_train then says why)."""

    _NUMBER = QRegularExpression(r"[0-9]*\.?[0-9]*([eE][-+]?[0-9]{0,3})?")

    def __init__(self, value: float):
        super().__init__()
        self.setValidator(QRegularExpressionValidator(self._NUMBER, self))
        self.setValue(value)

    def value(self) -> float:
        try:
            return float(self.text())
        except ValueError:
            return math.nan

    def setValue(self, value: float) -> None:  # noqa: N802 - the spin boxes' name
        self.setText(repr(float(value)))

    @staticmethod
    def can_show(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1


def _can_show(box, value) -> bool:
    """Whether `box` shows `value` as it is (setValue would not clamp or overflow)."""
    if isinstance(box, LearningRateBox):
        return box.can_show(value)
    return box.minimum() <= value <= box.maximum()


class TrainControls(QWidget):
    def __init__(self, defaults: TrainConfig = TrainConfig(), parent=None):
        super().__init__(parent)
        self._defaults = defaults
        self.texts = texts = Texts(self)  # set again when the language changes
        self.task = QComboBox()
        for i, (key, title) in enumerate(TASK_TITLES.items()):
            self.task.addItem("", key)
            texts.set(lambda text, i=i: self.task.setItemText(i, text), CONTEXT, title)
            texts.set(lambda text, i=i: self.task.setItemData(i, text, Qt.ItemDataRole.ToolTipRole),
                      CONTEXT, title)
        self.task.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.task.setMinimumContentsLength(14)
        self.layers = _spin(1, MAX_LAYERS, defaults.n_layers)
        self.heads = _spin(1, MAX_HEADS, defaults.n_heads)
        self.d_model = _spin(1, MAX_D_MODEL, defaults.d_model, 8)
        self.seed = SeedBox(defaults.seed)
        self.lr = LearningRateBox(defaults.lr)
        self.steps = _spin(1, MAX_STEPS, defaults.steps, 50)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for label, field in ((QT_TRANSLATE_NOOP("training.controls", "Task"), self.task),
                             (QT_TRANSLATE_NOOP("training.controls", "Layers"), self.layers),
                             (QT_TRANSLATE_NOOP("training.controls", "Heads per layer"), self.heads),
                             (QT_TRANSLATE_NOOP("training.controls", "d_model"), self.d_model),
                             (QT_TRANSLATE_NOOP("training.controls", "Seed"), self.seed),
                             (QT_TRANSLATE_NOOP("training.controls", "Learning rate"), self.lr),
                             (QT_TRANSLATE_NOOP("training.controls", "Steps"), self.steps)):
            name = QLabel()
            texts.set(name.setText, "training.controls", label)
            form.addRow(name, field)
        self.device_label = QLabel()
        self.device_label.setWordWrap(True)
        self.start_button, self.pause_button = QPushButton(), QPushButton()
        self.step_button, self.reset_button = QPushButton(), QPushButton()
        self.save_button, self.load_button = QPushButton(), QPushButton()
        self.export_button, self.animation_button = QPushButton(), QPushButton()
        for setter, text in (
                (self.start_button.setText, QT_TRANSLATE_NOOP("training.controls", "Start")),
                (self.pause_button.setText, QT_TRANSLATE_NOOP("training.controls", "Pause")),
                (self.step_button.setText, QT_TRANSLATE_NOOP("training.controls", "Step")),
                (self.reset_button.setText, QT_TRANSLATE_NOOP("training.controls", "Reset")),
                (self.save_button.setText, QT_TRANSLATE_NOOP("training.controls", "Save model…")),
                (self.load_button.setText, QT_TRANSLATE_NOOP("training.controls", "Load model…")),
                (self.export_button.setText, QT_TRANSLATE_NOOP("training.controls", "Export snapshot…")),
                (self.animation_button.setText, QT_TRANSLATE_NOOP("training.controls", "Export animation…")),
                (self.step_button.setToolTip, QT_TRANSLATE_NOOP("training.controls",
                                                                "Train one log interval (10 steps) and pause")),
                (self.reset_button.setToolTip, QT_TRANSLATE_NOOP(
                    "training.controls", "Forget the run; the settings can be changed again"))):
            texts.set(setter, "training.controls", text)
        self._device = "cpu"
        texts.set(self.device_label.setText, "training.controls", QT_TRANSLATE_NOOP(
            "training.controls", "Device: {device} (the backend switch; used from the next fresh run)"),
            lambda text: text.format(device=self._device))
        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QGridLayout()
        for i, button in enumerate((self.start_button, self.pause_button, self.step_button,
                                    self.reset_button, self.save_button, self.load_button,
                                    self.export_button, self.animation_button)):
            buttons.addWidget(button, i // 2, i % 2)
        self.form = QWidget()
        self.form.setLayout(form)
        form.setContentsMargins(0, 0, 0, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.form)
        layout.addWidget(self.device_label)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self._settings = (self.task, self.layers, self.heads, self.d_model, self.seed, self.lr, self.steps)

    def set_compact(self, on: bool) -> None:
        """Presentation mode: only the run buttons and the status line stay."""
        for widget in (self.form, self.device_label, self.save_button, self.load_button,
                       self.export_button, self.animation_button):
            widget.setVisible(not on)

    def config(self, device: str) -> TrainConfig:
        """The settings as a TrainConfig (not validated: the session does that)."""
        return self._defaults.replace(
            task=self.task.currentData(), n_layers=self.layers.value(), n_heads=self.heads.value(),
            d_model=self.d_model.value(), seed=self.seed.value(), lr=self.lr.value(),
            steps=self.steps.value(), device=device)

    def outside_ranges(self, config: TrainConfig) -> list[str]:
        """The fields of `config` its control cannot show (setValue would clamp or overflow)."""
        boxes = {"n_layers": self.layers, "n_heads": self.heads, "d_model": self.d_model,
                 "seed": self.seed, "lr": self.lr, "steps": self.steps}
        return [name for name, box in boxes.items() if not _can_show(box, getattr(config, name))]

    def show_config(self, config: TrainConfig) -> None:
        """Set every control to `config` (a loaded model's)."""
        self.task.setCurrentIndex(max(0, self.task.findData(config.task)))
        self.layers.setValue(config.n_layers)
        self.heads.setValue(config.n_heads)
        self.d_model.setValue(config.d_model)
        self.seed.setValue(config.seed)
        self.lr.setValue(config.lr)
        self.steps.setValue(config.steps)

    def set_device(self, device: str) -> None:
        self._device = device
        self.device_label.setText(translate("training.controls", "Device: {device} (the backend switch; "
                                            "used from the next fresh run)").format(device=device))

    def set_status(self, status: str, has_model: bool, snapshots: int) -> None:
        """Enable what makes sense for a run in `status` (idle, running, paused, done)."""
        for widget in self._settings:
            widget.setEnabled(status == "idle" and not has_model)
        self.start_button.setEnabled(status in ("idle", "paused"))
        self.pause_button.setEnabled(status == "running")
        self.step_button.setEnabled(status in ("idle", "paused"))
        self.save_button.setEnabled(has_model and status != "running")
        self.export_button.setEnabled(snapshots > 0)
        self.animation_button.setEnabled(snapshots > 1)
