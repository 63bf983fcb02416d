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
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QProgressBar,
                               QPushButton, QSlider, QSpinBox, QVBoxLayout, QWidget)

from ...app.models.learned_state import LearnedState
from ...app.models.sources import listed, sources_changed
from ...core.learned.analysis import MAX_PADDING
from ...app.i18n import error_text
from ..plotting.i18n import translate

TYPING_PAUSE_MS = 400


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

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("model_source",)

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"model_source": self.combo}

    def __init__(self, state: LearnedState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.combo = QComboBox()
        self._label_items()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # busy: no known end
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setMaximumHeight(8)
        self.busy_label = QLabel()
        self.cancel_button = QPushButton()  # stops a model's load (back to the source before it)
        self.open_button = QPushButton()    # Open model folder… (a save_pretrained folder)
        self._label_buttons()
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
        self.open_button.clicked.connect(self.ask_folder)
        self.cancel_button.clicked.connect(state.cancel_load)
        state.progress_changed.connect(self._on_progress)
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
        sources_changed.connect(self._on_sources)
        self.destroyed.connect(lambda _=None, slot=self._on_sources: sources_changed.disconnect(slot))
        self.sync()
        self._on_busy(state.busy)

    def _label_items(self) -> None:
        """One item per model source (app.sources.listed), its label and tooltip in the UI
        language; a source that cannot be used here (not installed, not trained yet) is listed
        disabled, the reason and its fix as the tooltip."""
        sources = listed()
        with QSignalBlocker(self.combo):
            while self.combo.count() > len(sources):
                self.combo.removeItem(self.combo.count() - 1)
            for index, source in enumerate(sources):
                if index == self.combo.count():
                    self.combo.addItem(source.label(), source.name)
                self.combo.setItemText(index, source.label())
                self.combo.setItemData(index, source.name)
                problem = source.problem()
                self.combo.model().item(index).setEnabled(problem is None)
                # not installed: the reason and its fix; not trained yet: where to train one
                tip = error_text(problem) if problem is not None and source.spec() is not None \
                    else source.description()
                self.combo.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)

    def _on_sources(self) -> None:
        self._label_items()
        self.sync()

    def _label_padding(self) -> None:
        self.padding.setPrefix(translate("learned.source", "padding: + "))
        self.padding.setSuffix(translate("learned.source", " tokens (masked as keys)"))
        self.padding.setSpecialValueText(translate("learned.source", "padding: none"))
        self.padding.setToolTip(translate("learned.source", "Append padding tokens, as a batch pads a shorter "
                                          "sentence; the attention mask gives them weight 0"))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.edit.setPlaceholderText(translate("learned.source", "free text, tokenized by the model's own tokenizer"))
            self._label_padding()
            self._label_buttons()
            self._label_items()
            self.sync()

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)
        self._buttons = QHBoxLayout()  # Open model folder… and, beside it, Load adapter…
        self._buttons.addWidget(self.open_button)
        layout.addLayout(self._buttons)
        layout.addWidget(self.info)
        busy = QHBoxLayout()
        busy.addWidget(self.busy_label)
        busy.addWidget(self.busy_bar, 1)
        busy.addWidget(self.cancel_button)
        layout.addLayout(busy)
        layout.addWidget(self.edit)
        layout.addWidget(self.layer_label)
        layout.addWidget(self.layer_slider)
        layout.addWidget(self.padding)

    def add_adapter_control(self, control) -> None:
        """Load adapter… (learned.adapter_control) beside Open model folder…, its lines under the
        model's sizes."""
        self._buttons.addWidget(control.load_button)
        self.layout().insertWidget(self.layout().indexOf(self.info) + 1, control)

    def add_button_row(self, widget) -> None:
        """A row of its own under Open model folder… (Fine-tune LoRA…: learned.lora_dialog)."""
        self.layout().insertWidget(self.layout().indexOf(self.info), widget)

    def sync(self, *_args) -> None:
        """Show the state's source, sizes and layer."""
        state = self._state
        with QSignalBlocker(self.combo):
            self.combo.setCurrentIndex(max(0, self.combo.findData(state.source)))
        source = state.model
        spec = source.spec()
        for widget in self._model_widgets:
            widget.setVisible(spec is not None)
        if spec is None:
            return
        # sizes, then what the model is (family, dtype, size on disk): plain text, a folder's
        # name and config come from a file
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setText(f"{spec_text(spec)}\n{source.description()}".strip())
        self.info.setToolTip("")
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

    def _label_buttons(self) -> None:
        self.open_button.setText(translate("learned.source", "Open model folder…"))
        self.open_button.setToolTip(translate("learned.source", "A Hugging Face model folder (saved with "
                                              "save_pretrained), opened offline"))
        self.cancel_button.setText(translate("learned.source", "Cancel"))
        self.cancel_button.setToolTip(translate("learned.source", "Stop loading and go back to the model shown before"))

    def ask_folder(self) -> None:
        """Open model folder…: the folder chosen in a dialog, opened off the GUI thread."""
        folder = QFileDialog.getExistingDirectory(self, translate("learned.source", "Open model folder"))
        if folder:
            self._state.open_folder(folder)

    def _on_busy(self, text: str) -> None:
        self.busy_label.setText(text)
        self.busy_label.setVisible(bool(text))
        self.busy_bar.setVisible(bool(text))
        self.cancel_button.setVisible(bool(text))

    def _on_progress(self, fraction) -> None:
        """A load's progress: the bar fills as the weights are read (no known end otherwise)."""
        if fraction is None:
            self.busy_bar.setRange(0, 0)
        else:
            self.busy_bar.setRange(0, 1000)
            self.busy_bar.setValue(int(fraction * 1000))
