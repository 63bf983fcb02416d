"""The LoRA mode's settings and buttons: the base, the new task, rank r, α, the targets q/k/v/o,
steps, learning rate, seed, "compare with a full fine-tune"; Start, Pause, Cancel, Save adapter.

The settings make a `LoraConfig` (`config()`), validated by core's `validate_lora` against the
base when a fine-tune starts. α shows "= r" at its lowest value: α follows the rank (scale 1,
core.training.lora_config says why). The parameter line says how many numbers the LoRA trains
against a full fine-tune, from core's counts (no torch needed).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout,
                               QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from ...core.training.config import MAX_D_MODEL, MAX_STEPS
from ...core.training.lora_config import (MAX_ALPHA, TARGETS, LoraConfig, base_parameter_count,
                                          lora_parameter_count)
from ...core.training.texts import CONTEXT as TASK_CONTEXT, TASK_TITLES
from ..plotting.i18n import QT_TRANSLATE_NOOP, Texts, translate
from .controls import LearningRateBox, SeedBox

CONTEXT = "training.lora_controls"
TARGET_TIPS = {"q": QT_TRANSLATE_NOOP("training.lora_controls", "W_Q: the queries (rows 0 … d−1 of the fused qkv weight)"),
               "k": QT_TRANSLATE_NOOP("training.lora_controls", "W_K: the keys (rows d … 2d−1 of qkv)"),
               "v": QT_TRANSLATE_NOOP("training.lora_controls", "W_V: the values (rows 2d … 3d−1 of qkv)"),
               "o": QT_TRANSLATE_NOOP("training.lora_controls", "W_O: the output projection (out)")}


class LoraControls(QWidget):
    def __init__(self, defaults: LoraConfig = LoraConfig(), parent=None):
        super().__init__(parent)
        self._defaults = defaults
        self.texts = texts = Texts(self)
        self.base_label = QLabel()
        self.base_label.setWordWrap(True)
        self.base_label.setTextFormat(Qt.TextFormat.PlainText)  # a file name, shown as written
        self.use_trained_button, self.load_base_button = QPushButton(), QPushButton()
        self.task = QComboBox()
        for i, (key, title) in enumerate(TASK_TITLES.items()):
            self.task.addItem("", key)
            texts.set(lambda text, i=i: self.task.setItemText(i, text), TASK_CONTEXT, title)
            texts.set(lambda text, i=i: self.task.setItemData(i, text, Qt.ItemDataRole.ToolTipRole),
                      TASK_CONTEXT, title)
        self.task.setCurrentIndex(max(0, self.task.findData(defaults.task)))
        self.task.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.task.setMinimumContentsLength(14)
        self.rank = QSpinBox()
        self.rank.setRange(1, MAX_D_MODEL)
        self.rank.setValue(defaults.rank)
        self.alpha = QDoubleSpinBox()
        self.alpha.setDecimals(1)
        self.alpha.setRange(0.0, MAX_ALPHA)
        self.alpha.setValue(defaults.alpha or 0.0)
        self.targets = {name: QCheckBox(name) for name in TARGETS}
        for name, box in self.targets.items():
            box.setChecked(name in defaults.targets)
            texts.set(box.setToolTip, CONTEXT, TARGET_TIPS[name])
        self.steps = QSpinBox()
        self.steps.setRange(1, MAX_STEPS)
        self.steps.setSingleStep(50)
        self.steps.setValue(defaults.steps)
        self.lr = LearningRateBox(defaults.lr)
        self.seed = SeedBox(defaults.seed)
        self.compare = QCheckBox()
        self.compare.setChecked(defaults.compare_full)
        self.start_button, self.pause_button = QPushButton(), QPushButton()
        self.cancel_button, self.save_button = QPushButton(), QPushButton()
        self.parameters = QLabel()
        self.parameters.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self._build(texts)
        self._settings = (self.task, self.rank, self.alpha, *self.targets.values(), self.steps,
                          self.lr, self.seed, self.compare, self.use_trained_button, self.load_base_button)
        self._base = None
        self.rank.valueChanged.connect(lambda _v: self.show_counts(self._base))
        for box in self.targets.values():
            box.toggled.connect(lambda _on: self.show_counts(self._base))

    def _build(self, texts: Texts) -> None:
        for setter, text in (
                (self.use_trained_button.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Use trained model")),
                (self.load_base_button.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Load base…")),
                (self.use_trained_button.setToolTip, QT_TRANSLATE_NOOP(
                    "training.lora_controls", "The model trained in this tab, as it is when the fine-tune starts")),
                (self.alpha.setSpecialValueText, QT_TRANSLATE_NOOP("training.lora_controls", "= r")),
                (self.alpha.setToolTip, QT_TRANSLATE_NOOP(
                    "training.lora_controls", "The update is (α / r)·B·A; “= r” keeps the scale at 1")),
                (self.compare.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Compare with a full fine-tune")),
                (self.compare.setToolTip, QT_TRANSLATE_NOOP(
                    "training.lora_controls", "Also fine-tune every weight of a copy of the base on the same batches "
                             "(at the base's own learning rate)")),
                (self.start_button.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Start")),
                (self.pause_button.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Pause")),
                (self.cancel_button.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Cancel")),
                (self.cancel_button.setToolTip, QT_TRANSLATE_NOOP(
                    "training.lora_controls", "Forget the fine-tune (the base stays); the settings can be changed again")),
                (self.save_button.setText, QT_TRANSLATE_NOOP("training.lora_controls", "Save adapter…"))):
            texts.set(setter, CONTEXT, text)
        base_buttons = QHBoxLayout()
        base_buttons.addWidget(self.use_trained_button)
        base_buttons.addWidget(self.load_base_button)
        targets = QHBoxLayout()
        for box in self.targets.values():
            targets.addWidget(box)
        targets.addStretch(1)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for label, field in ((QT_TRANSLATE_NOOP("training.lora_controls", "New task"), self.task),
                             (QT_TRANSLATE_NOOP("training.lora_controls", "Rank r"), self.rank),
                             (QT_TRANSLATE_NOOP("training.lora_controls", "α"), self.alpha),
                             (QT_TRANSLATE_NOOP("training.lora_controls", "Targets"), targets),
                             (QT_TRANSLATE_NOOP("training.lora_controls", "Steps"), self.steps),
                             (QT_TRANSLATE_NOOP("training.lora_controls", "Learning rate"), self.lr),
                             (QT_TRANSLATE_NOOP("training.lora_controls", "Seed"), self.seed)):
            name = QLabel()
            texts.set(name.setText, CONTEXT, label)
            form.addRow(name, field)
        buttons = QGridLayout()
        for i, button in enumerate((self.start_button, self.pause_button, self.cancel_button,
                                    self.save_button)):
            buttons.addWidget(button, i // 2, i % 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.base_label)
        layout.addLayout(base_buttons)
        layout.addLayout(form)
        layout.addWidget(self.compare)
        layout.addLayout(buttons)
        layout.addWidget(self.parameters)
        layout.addWidget(self.status)

    def config(self) -> LoraConfig:
        """The settings as a LoraConfig (not validated: the session does that)."""
        alpha = self.alpha.value()
        return self._defaults.replace(
            task=self.task.currentData(), rank=self.rank.value(), alpha=alpha if alpha > 0 else None,
            targets=tuple(name for name, box in self.targets.items() if box.isChecked()),
            steps=self.steps.value(), lr=self.lr.value(), seed=self.seed.value(),
            compare_full=self.compare.isChecked())

    def show_base(self, text: str, base) -> None:
        """The base's description; `base` its TrainConfig (None: no base yet)."""
        self.base_label.setText(text)
        self._base = base
        if base is not None:
            self.rank.setMaximum(base.d_model)
        self.show_counts(base)

    def show_counts(self, base) -> None:
        """Trainable LoRA parameters against the total and a full fine-tune's, for `base`."""
        config = self.config()
        if base is None or not config.targets:
            self.parameters.setText(translate("training.lora_controls", "Trainable parameters: choose a base and at "
                                                       "least one target"))
            return
        lora, full = lora_parameter_count(config, base), base_parameter_count(base)
        self.parameters.setText(translate("training.lora_controls", "Trainable: {lora} LoRA parameters, {share} of "
                                                   "{total}; a full fine-tune trains {full}").format(
            lora=f"{lora:,}", share=f"{100 * lora / (lora + full):.1f} %", total=f"{lora + full:,}",
            full=f"{full:,}"))

    def set_status(self, status: str, has_tune: bool) -> None:
        """Enable what makes sense for a fine-tune in `status` (idle, running, paused, done)."""
        for widget in self._settings:
            widget.setEnabled(status == "idle" and not has_tune)
        self.start_button.setEnabled(status in ("idle", "paused"))
        self.pause_button.setEnabled(status == "running")
        self.cancel_button.setEnabled(has_tune or status != "idle")
        self.save_button.setEnabled(has_tune and status != "running")

    def set_compact(self, on: bool) -> None:
        """Presentation mode: the run buttons, the parameter and status lines stay."""
        for widget in (self.base_label, self.use_trained_button, self.load_base_button, self.save_button):
            widget.setVisible(not on)
