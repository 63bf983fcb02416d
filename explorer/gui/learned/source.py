"""The model-source control: random (course) or a pretrained model, its text and its layer.

Bound to ``LearnedState``: the combo lists "random (course)", every model (one not installed is
listed disabled, its install command as the tooltip) and "trained (this session)" (the Train tab's
model: disabled until one is trained or loaded; its text box takes space-separated integer tokens,
anything else stands for the task's probe sequence); for a pretrained model the text box takes
free text (applied after a pause while typing, on Enter or on leaving the box), the model's sizes
are shown (not sliders) and a slider picks the layer. A busy bar runs while a model loads or runs.
The padding box appends padding tokens masked as keys (a batch row padded to a longer sentence).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QSlider,
                               QSpinBox, QVBoxLayout, QWidget)

from ...app.learned import TRAINED, spec_of, trained_spec
from ...app.learned_state import RANDOM, LearnedState
from ...core.learned import MODELS, install_problem
from ...core.learned.analysis import MAX_PADDING
from ...app.i18n import error_text
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate

TYPING_PAUSE_MS = 400
RANDOM_LABEL = QT_TRANSLATE_NOOP("learned.source", "random (course)")


def spec_text(spec) -> str:
    """'decoder · 30 layers × 9 heads (3 KV heads) · d_model 576 · d_head 64'."""
    heads = translate("learned.source", "{n} heads").format(n=spec.heads) + (
        translate("learned.source", " ({n} KV heads)").format(n=spec.kv_heads) if spec.kv_heads != spec.heads else "")
    return translate("learned.source", "{kind} · {layers} layers × {heads} · d_model {d_model} · d_head {d_head}").format(
        kind=kind_name(spec.kind), layers=spec.layers, heads=heads, d_model=spec.d_model, d_head=spec.d_head)


def kind_name(kind: str) -> str:
    """'encoder' / 'decoder' in the UI language."""
    return {"encoder": translate("learned.source", "encoder"), "decoder": translate("learned.source", "decoder")}.get(kind, kind)


class ModelSourceControl(QWidget):
    """Source combo, model sizes, busy bar, text box and layer slider (see module docstring)."""

    def __init__(self, state: LearnedState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.combo = QComboBox()
        self.combo.addItem(translate("learned.source", RANDOM_LABEL), RANDOM)
        for spec in MODELS.values():
            self.combo.addItem(spec.name, spec.name)
            if install_problem(spec) is not None:
                self.combo.model().item(self.combo.count() - 1).setEnabled(False)
        self.combo.addItem("", TRAINED)  # enabled once the Train tab has a model (trained_changed)
        self._label_items()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # busy: no known end
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setMaximumHeight(8)
        self.busy_label = QLabel()
        self.edit = QLineEdit(state.text)
        self.edit.setPlaceholderText(translate("learned.source", "free text, tokenized by the model's own tokenizer"))
        self.edit.setClearButtonEnabled(True)
        self.layer_label = QLabel()
        self.layer_slider = QSlider(Qt.Orientation.Horizontal)
        self.layer_slider.setPageStep(1)
        self._pause = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self._pause.timeout.connect(self.apply_text)
        self.padding = QSpinBox()
        self.padding.setRange(0, MAX_PADDING)
        self._label_padding()
        self._model_widgets = (self.info, self.edit, self.layer_label, self.layer_slider, self.padding)
        self._build_layout()
        self.combo.activated.connect(self._on_combo)
        self.edit.textEdited.connect(lambda _t: self._pause.start())
        self.edit.editingFinished.connect(self.apply_text)
        self.layer_slider.valueChanged.connect(state.set_layer)
        self.padding.valueChanged.connect(state.set_padding)
        state.padding_changed.connect(lambda _n: self.sync())
        state.source_changed.connect(self.sync)
        state.layer_changed.connect(lambda _l: self.sync())
        state.text_changed.connect(self._on_text)
        state.busy_changed.connect(self._on_busy)
        state.trained_changed.connect(lambda _spec: (self._label_items(), self.sync()))
        self.sync()
        self._on_busy(state.busy)

    def _label_items(self) -> None:
        """The combo's texts and tooltips in the UI language."""
        self.combo.setItemText(0, translate("learned.source", RANDOM_LABEL))
        for index, spec in enumerate(MODELS.values(), start=1):
            problem = install_problem(spec)
            if problem is None:
                self.combo.setItemText(index, f"{spec.name} ({kind_name(spec.kind)})")
                tip = translate("models", spec.description)
            else:  # why, and the command that fixes it (the registry's message, in the UI language)
                self.combo.setItemText(index, translate("learned.source", "{name} (not installed)").format(name=spec.name))
                tip = error_text(problem)
            self.combo.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        index, spec = self.combo.count() - 1, trained_spec()
        self.combo.setItemText(index, translate("learned.source", "trained (this session)"))
        self.combo.model().item(index).setEnabled(spec is not None)
        self.combo.setItemData(index, translate("learned.source", "train or load a model in the Train tab first")
                               if spec is None else spec.description, Qt.ItemDataRole.ToolTipRole)

    def _label_padding(self) -> None:
        self.padding.setPrefix(translate("learned.source", "padding: + "))
        self.padding.setSuffix(translate("learned.source", " tokens (masked as keys)"))
        self.padding.setSpecialValueText(translate("learned.source", "padding: none"))
        self.padding.setToolTip(translate("learned.source", "Append padding tokens, as a batch pads a shorter "
                                          "sentence; the attention mask gives them weight 0"))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._label_padding()
            self._label_items()
            self.sync()

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)
        layout.addWidget(self.info)
        busy = QHBoxLayout()
        busy.addWidget(self.busy_label)
        busy.addWidget(self.busy_bar, 1)
        layout.addLayout(busy)
        layout.addWidget(self.edit)
        layout.addWidget(self.layer_label)
        layout.addWidget(self.layer_slider)
        layout.addWidget(self.padding)

    def sync(self, *_args) -> None:
        """Show the state's source, sizes and layer."""
        state = self._state
        with QSignalBlocker(self.combo):
            self.combo.setCurrentIndex(max(0, self.combo.findData(state.source)))
        spec = spec_of(state.source)
        for widget in self._model_widgets:
            widget.setVisible(spec is not None)
        if spec is None:
            return
        self.info.setText(spec_text(spec))
        self.info.setToolTip(spec.description if state.source == TRAINED else translate("models", spec.description))
        with QSignalBlocker(self.layer_slider):
            self.layer_slider.setRange(0, spec.layers - 1)
            self.layer_slider.setValue(state.layer)
        with QSignalBlocker(self.padding):
            self.padding.setValue(state.padding)
        self.layer_label.setText(translate("learned.source", "layer {layer} of 0–{last}").format(layer=state.layer, last=spec.layers - 1))

    def apply_text(self) -> None:
        self._pause.stop()
        self._state.set_text(self.edit.text())

    def _on_combo(self, index: int) -> None:
        if not self._state.set_source(self.combo.itemData(index)):
            self.sync()  # refused: show the source still in use

    def _on_text(self, text: str) -> None:
        if text != self.edit.text() and not self._pause.isActive():
            self.edit.setText(text)

    def _on_busy(self, text: str) -> None:
        self.busy_label.setText(text)
        self.busy_label.setVisible(bool(text))
        self.busy_bar.setVisible(bool(text))
