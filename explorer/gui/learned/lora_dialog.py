"""Fine-tune LoRA…: a LoRA trained on a few typed sentences of the chosen model, saved and shown.

`LoraTuneButton` sits in the Model source group (under Open model folder…): enabled when the
chosen source is a natively run decoder (an own checkpoint or SmolLM2), else its tooltip says
why. It opens one `LoraTuneDialog` (not modal: the window stays usable): the sentences, the
target modules (the family's own names, as peft's target_modules), rank r, α, steps, learning
rate and seed; Start and Cancel with a progress bar and the live loss curve; at the end Save
adapter… (a folder: adapter_config.json + adapter_model.safetensors, asked before an adapter
there is replaced) and Show it (the saved adapter loaded onto its base as an adapted source,
app.models.adapter_state's Load adapter… path). The widgets only bind and draw: the fine-tune
runs off the GUI thread in app.models.lora_tuning.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (QCheckBox, QDialog, QDoubleSpinBox, QFileDialog, QGridLayout, QHBoxLayout,
                               QLabel, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton, QSpinBox,
                               QVBoxLayout, QWidget)

from ...app.models.lora_tuning import LoraTuning
from ...app.models.sources import sources_changed
from ...core.adapters import lora_train as lt
from ..plotting.flow_layout import FlowLayout
from ..plotting.fonts import set_text_colour
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from .lora_curve import LossCurve

CONTEXT = "learned.lora_dialog"
ERROR_COLOUR = "#b00020"
EXAMPLE = "The cat sat on the mat.\nThe dog sat on the log."
TIP = QT_TRANSLATE_NOOP("learned.lora_dialog", "Fine-tune a LoRA on a few sentences you type (CPU, small models): "
                        "the model shown stays unchanged, only A and B train")
FIELDS = (QT_TRANSLATE_NOOP("learned.lora_dialog", "rank r"), QT_TRANSLATE_NOOP("learned.lora_dialog", "α"),
          QT_TRANSLATE_NOOP("learned.lora_dialog", "steps"), QT_TRANSLATE_NOOP("learned.lora_dialog", "learning rate"),
          QT_TRANSLATE_NOOP("learned.lora_dialog", "seed"))


class LoraTuneDialog(QDialog):
    """See the module docstring."""

    def __init__(self, tuning: LoraTuning, learned, parent: QWidget | None = None):
        super().__init__(parent)
        self.tuning, self._learned = tuning, learned
        self.setModal(False)
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.PlainText)  # a folder's name: never rich text
        self.sentences_label = QLabel()
        self.sentences_label.setWordWrap(True)
        self.sentences = QPlainTextEdit(EXAMPLE)
        self.sentences.setTabChangesFocus(True)
        self.targets_label = QLabel()
        self.targets_box = QWidget()
        self.targets_row = FlowLayout(self.targets_box, spacing=8)
        self.target_boxes: dict[str, QCheckBox] = {}
        self.rank, self.steps, self.seed = QSpinBox(), QSpinBox(), QSpinBox()
        self.rank.setRange(1, lt.MAX_RANK)
        self.rank.setValue(lt.TuneSettings.rank)
        self.steps.setRange(1, lt.MAX_STEPS)
        self.steps.setValue(lt.TuneSettings.steps)
        self.seed.setRange(0, 2**31 - 1)
        self.alpha, self.lr = QDoubleSpinBox(), QDoubleSpinBox()
        self.alpha.setRange(0.01, lt.MAX_ALPHA)
        self.alpha.setDecimals(2)
        self.alpha.setValue(lt.TuneSettings.alpha)
        self.lr.setRange(0.0001, 1.0)
        self.lr.setDecimals(4)
        self.lr.setSingleStep(0.001)
        self.lr.setValue(lt.TuneSettings.lr)
        self.field_labels = [QLabel() for _ in range(5)]
        self.start_button, self.cancel_button = QPushButton(), QPushButton()
        self.save_button, self.show_button, self.close_button = QPushButton(), QPushButton(), QPushButton()
        self.progress = QProgressBar()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # may name a file
        set_text_colour(self.error, ERROR_COLOUR)
        self.curve = LossCurve()
        self._family = None
        self._build_layout()
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(tuning.cancel)
        self.save_button.clicked.connect(self.ask_save)
        self.show_button.clicked.connect(self.show_adapter)
        self.close_button.clicked.connect(self.close)
        tuning.status_changed.connect(lambda _s: self.sync())
        tuning.progress.connect(self._on_progress)
        tuning.finished.connect(lambda _r: self.sync())
        tuning.failed.connect(self._say_error)
        tuning.saved.connect(self._on_saved)
        tuning.exists.connect(self._ask_replace)
        learned.source_changed.connect(lambda _name: self.sync())
        sources_changed.connect(self.sync)
        self.destroyed.connect(lambda _=None, slot=self.sync: sources_changed.disconnect(slot))
        self._label()
        self.resize(640, 640)

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.sentences_label)
        layout.addWidget(self.sentences, 2)
        layout.addWidget(self.targets_label)
        layout.addWidget(self.targets_box)
        grid = QGridLayout()
        fields = (self.rank, self.alpha, self.steps, self.lr, self.seed)
        for i, (label, field) in enumerate(zip(self.field_labels, fields)):
            label.setBuddy(field)
            grid.addWidget(label, i // 3, 2 * (i % 3), Qt.AlignmentFlag.AlignRight)
            grid.addWidget(field, i // 3, 2 * (i % 3) + 1)
        for col in (1, 3, 5):
            grid.setColumnStretch(col, 1)
        layout.addLayout(grid)
        run = QHBoxLayout()
        run.addWidget(self.start_button)
        run.addWidget(self.cancel_button)
        run.addWidget(self.progress, 1)
        layout.addLayout(run)
        layout.addWidget(self.status)
        layout.addWidget(self.curve, 3)
        layout.addWidget(self.summary)
        layout.addWidget(self.error)
        end = QHBoxLayout()
        end.addWidget(self.save_button)
        end.addWidget(self.show_button)
        end.addStretch(1)
        end.addWidget(self.close_button)
        layout.addLayout(end)

    # ----- texts ------------------------------------------------------------------------------
    def _label(self) -> None:
        self.sentences_label.setText(translate(
            "learned.lora_dialog", "Sentences to fine-tune on, one per line (tokenized by the model's own "
            "tokenizer; the loss is next-token cross-entropy):"))
        self.sentences.setPlaceholderText(translate("learned.lora_dialog", "a few sentences, one per line"))
        self.targets_label.setText(translate("learned.lora_dialog", "Target modules (peft's target_modules):"))
        for label, text in zip(self.field_labels, FIELDS):
            label.setText(translate(CONTEXT, text))
        self.rank.setToolTip(translate(
            "learned.lora_dialog", "ΔW = (α / r)·B·A has rank at most r: r·(in + out) trainable numbers per "
            "module"))
        self.alpha.setToolTip(translate("learned.lora_dialog", "α / r scales the update B·A"))
        self.lr.setToolTip(translate("learned.lora_dialog", "AdamW's learning rate on A and B"))
        self.seed.setToolTip(translate("learned.lora_dialog", "the seed A is drawn with (B starts at 0: step 1 is "
                                                              "the base)"))
        self.start_button.setText(translate("learned.lora_dialog", "Start"))
        self.cancel_button.setText(translate("learned.lora_dialog", "Cancel"))
        self.save_button.setText(translate("learned.lora_dialog", "Save adapter…"))
        self.save_button.setToolTip(translate(
            "learned.lora_dialog", "adapter_config.json + adapter_model.safetensors in peft's layout, for "
            "PeftModel.from_pretrained on the same checkpoint"))
        self.show_button.setText(translate("learned.lora_dialog", "Show it"))
        self.show_button.setToolTip(translate(
            "learned.lora_dialog", "Load the saved adapter onto its base model (saved first if it is not)"))
        self.close_button.setText(translate("learned.lora_dialog", "Close"))
        self.sync()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._label()

    # ----- state -> widgets -------------------------------------------------------------------
    def sync(self, *_args) -> None:
        tuning = self.tuning
        running = tuning.status == "running"
        source = tuning.shown_base()  # while running: the source being fine-tuned
        problem = None if running else tuning.problem()
        self.setWindowTitle(translate("learned.lora_dialog", "Fine-tune LoRA — {model}").format(model=source.title()))
        if problem is None:
            header = translate("learned.lora_dialog", "Base: {model}. It stays unchanged: only the LoRA matrices A "
                                                      "and B train.")
            self.header.setText(header.format(model=source.label()))
        else:
            self.header.setText(problem)
        if not running:
            self._set_targets()
        for widget in (self.sentences, self.targets_box, self.rank, self.alpha, self.steps, self.lr, self.seed):
            widget.setEnabled(not running)
        self.start_button.setEnabled(problem is None and not running)
        self.start_button.setToolTip(problem or "")
        self.cancel_button.setEnabled(running)
        done = tuning.result is not None
        self.save_button.setEnabled(done)
        self.show_button.setEnabled(done and tuning.base is not None)
        self._on_progress(tuning.losses, tuning.settings.steps if tuning.settings else self.steps.value())
        self.summary.setText(self._summary() if done else "")
        self.summary.setVisible(done)

    def _set_targets(self) -> None:
        """One check box per module name of the chosen source's family (the defaults ticked)."""
        family = self.tuning.family()
        if family == self._family:
            return
        self._family = family
        for box in self.target_boxes.values():
            self.targets_row.removeWidget(box)
            box.deleteLater()
        self.target_boxes = {}
        names, defaults = self.tuning.choices()
        for name in names:
            box = QCheckBox(name)
            box.setChecked(name in defaults)
            self.targets_row.addWidget(box)
            self.target_boxes[name] = box

    def _on_progress(self, losses, steps: int) -> None:
        tuning = self.tuning
        running = tuning.status == "running"
        self.curve.set_losses(losses, steps)
        if running and not losses:
            self.progress.setRange(0, 0)  # the model is being loaded: no known end yet
            self.status.setText(translate("learned.lora_dialog", "loading the model and the sentences…"))
            return
        self.progress.setRange(0, max(1, steps))
        self.progress.setValue(len(losses))
        if losses:
            self.status.setText(translate("learned.lora_dialog", "step {step} of {steps} · loss {loss:.3f}").format(
                step=len(losses), steps=steps, loss=losses[-1]))
        elif tuning.status == "cancelled":
            self.status.setText(translate("learned.lora_dialog", "cancelled: nothing was kept"))
        else:
            self.status.setText("")

    def _summary(self) -> str:
        r = self.tuning.result
        line = translate("learned.lora_dialog", "{n} trainable parameters · loss {first:.3f} → {last:.3f} · "
                                                "{seconds:.1f} s")
        line = line.format(n=f"{r.trainable_parameters:,}", first=r.losses[0], last=r.final_loss, seconds=r.seconds)
        if self.tuning.saved_folder:
            line += "\n" + translate("learned.lora_dialog", "saved to {folder}").format(folder=self.tuning.saved_folder)
        return line

    def _say_error(self, message: str) -> None:
        self.error.setText(message.replace("\n", " "))
        self.error.setVisible(bool(message))

    # ----- widgets -> state -------------------------------------------------------------------
    def settings(self) -> lt.TuneSettings:
        targets = tuple(name for name, box in self.target_boxes.items() if box.isChecked())
        if not targets:  # no box ticked: the state's check says which names there are
            targets = ("",)
        return lt.TuneSettings(targets=targets, rank=self.rank.value(), alpha=self.alpha.value(),
                               steps=self.steps.value(), lr=self.lr.value(), seed=self.seed.value())

    def start(self) -> None:
        self._say_error("")
        self.tuning.start(self.sentences.toPlainText(), self.settings())

    def ask_save(self, then_show: bool = False) -> None:
        """Save adapter…: a folder (created in the dialog or existing), written off the GUI thread."""
        title = translate("learned.lora_dialog", "Save the adapter into a folder")
        folder = QFileDialog.getExistingDirectory(self, title)
        if folder:
            self._show_after_save = then_show
            self._say_error("")
            self.tuning.save(folder)

    _show_after_save = False

    def _ask_replace(self, folder: str) -> None:
        question = translate("learned.lora_dialog", "{folder} holds an adapter already. Replace it?")
        question = question.format(folder=folder)
        answer = QMessageBox.question(self, translate("learned.lora_dialog", "Replace the adapter?"), question)
        if answer == QMessageBox.StandardButton.Yes:
            self.tuning.save(folder, replace=True)

    def _on_saved(self, _folder: str) -> None:
        self.sync()
        if self._show_after_save:
            self._show_after_save = False
            self.tuning.show()

    def show_adapter(self) -> None:
        """Show it: the saved adapter as an adapted source (Save adapter… first if not saved)."""
        if self.tuning.saved_folder is None:
            self.ask_save(then_show=True)
        else:
            self.tuning.show()


class LoraTuneButton(QPushButton):
    """Fine-tune LoRA…: enabled for a natively run decoder; opens the dialog (one per window)."""

    def __init__(self, tuning: LoraTuning, learned, parent: QWidget | None = None):
        super().__init__(parent)
        self.tuning, self._learned = tuning, learned
        self.dialog: LoraTuneDialog | None = None
        self.clicked.connect(self.open_dialog)
        learned.source_changed.connect(lambda _name: self.sync())
        sources_changed.connect(self.sync)
        self.destroyed.connect(lambda _=None, slot=self.sync: sources_changed.disconnect(slot))
        self.sync()

    def open_dialog(self) -> LoraTuneDialog:
        if self.dialog is None:
            self.dialog = LoraTuneDialog(self.tuning, self._learned, self.window())
        self.dialog.sync()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def sync(self) -> None:
        problem = self.tuning.problem()
        self.setText(translate("learned.lora_dialog", "Fine-tune LoRA…"))
        self.setEnabled(problem is None)
        self.setToolTip(problem or translate(CONTEXT, TIP))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.sync()


def install_lora_tuning(source_control, learned, adapters) -> LoraTuneButton:
    """The state, and its button in a row of its own in the Model source group."""
    button = LoraTuneButton(LoraTuning(learned, adapters), learned)
    source_control.add_button_row(button)
    return button
