"""Load adapter… in the Model source group: the button, what the adapter is, and why it failed.

Bound to ``AdapterState`` (app.models.adapter_state). The button is enabled when the chosen
source can take a PEFT adapter (a natively run own checkpoint or a bundled model); otherwise its
tooltip says why. It asks for a folder and hands it to the state, which reads, checks and loads
it off the GUI thread (the source control's busy bar, progress and Cancel). While an adapted
source is chosen a line says what the adapter is (method, r, α, targets, trainable parameters);
a load that failed leaves one line (plain text: it names a file), and the model shown stays.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from ...app.i18n import error_text
from ...app.models.adapter_state import AdapterState
from ...app.models.sources import sources_changed
from ..plotting.fonts import set_text_colour
from ..plotting.i18n import translate

ERROR_COLOUR = "#b00020"


def adapter_text(info) -> str:
    """'LoRA · r = 8 · α = 16 · targets q_proj, v_proj · 1,792 trainable parameters' (UI language)."""
    parts = [translate("core", info.method_name)]
    if info.method == "lora":
        parts.append(f"r = {info.r}")
        parts.append(f"α = {info.alpha:g}" + (" (rsLoRA)" if info.use_rslora else ""))
    if info.targets:
        parts.append(translate("learned.adapter_control", "targets {targets}").format(
            targets=", ".join(info.targets)))
    if info.virtual_tokens:
        parts.append(translate("learned.adapter_control", "{v} virtual tokens ⟨p1⟩…⟨p{v}⟩").format(
            v=info.virtual_tokens))
    parts.append(translate("learned.adapter_control", "{n} trainable parameters").format(
        n=f"{info.trainable_parameters:,}"))
    return translate("learned.adapter_control", "adapter: {parts}").format(parts=" · ".join(parts))


class AdapterControl(QWidget):
    """The adapter's line and a failed load's line; `load_button` is laid out by the source control."""

    def __init__(self, adapters: AdapterState, learned, parent: QWidget | None = None):
        super().__init__(parent)
        self._adapters, self._learned = adapters, learned
        self.load_button = QPushButton()
        self.info = QLabel()
        self.error = QLabel()
        for label in (self.info, self.error):
            label.setTextFormat(Qt.TextFormat.PlainText)  # names from a file: never rich text
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_text_colour(self.error, ERROR_COLOUR)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.info)  # the button goes beside Open model folder… (source.add_adapter_control)
        layout.addWidget(self.error)
        self.load_button.clicked.connect(self.ask_folder)
        learned.source_changed.connect(lambda _name: self.sync())
        adapters.failed.connect(lambda _message: self.sync())
        adapters.loaded.connect(lambda _name: self.sync())
        sources_changed.connect(self.sync)
        self.destroyed.connect(lambda _=None, slot=self.sync: sources_changed.disconnect(slot))
        self.sync()

    def ask_folder(self) -> None:
        """Load adapter…: a PEFT adapter folder, read off the GUI thread."""
        folder = QFileDialog.getExistingDirectory(
            self, translate("learned.adapter_control", "Load a PEFT adapter folder"))
        if folder:
            self.error.setText("")
            self.error.setVisible(False)
            self._adapters.load(folder)

    def sync(self) -> None:
        """The button's state and tooltip, the adapter's line, the last failure's line."""
        problem = self._adapters.problem()
        self.load_button.setText(translate("learned.adapter_control", "Load adapter…"))
        self.load_button.setEnabled(problem is None)
        self.load_button.setToolTip(problem or translate(
            "learned.adapter_control", "A PEFT adapter folder (adapter_config.json + adapter_model.safetensors: "
            "LoRA, IA³, prefix or prompt tuning) on the model shown, read without pickle"))
        source = self._adapters.source
        self.info.setVisible(source is not None)
        if source is not None:
            self.info.setText(adapter_text(source.info))
            self.info.setToolTip(str(source.adapter.folder))
        message = self._error_text()
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _error_text(self) -> str:
        """The last failure in the UI language of now (its exception when there is one)."""
        adapters = self._adapters
        if not adapters.last_error:
            return ""
        exc = adapters.last_exception
        return (error_text(exc) if exc is not None else adapters.last_error).replace("\n", " ")

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.sync()
