"""The Train tab's LoRA mode: fine-tune only LoRA matrices of a frozen trained model on a new task.

Left: the settings and buttons (lora_controls.py) and a few sentences on what LoRA does. Right:
the new task's curves (lora_curves.py; the full fine-tune's overlaid when it runs) above every
head before / after / difference (lora_heads.py). The fine-tune runs in short chunks on the Train
tab's runner (app.training.LoraSession), so the window never waits on it; the adapter's files are
made when it is paused or done and written through the one output writer (a folder, asked
before an adapter there is replaced).
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (QFileDialog, QMessageBox, QSplitter, QTextBrowser, QVBoxLayout,
                               QWidget)

from ...app.i18n import error_text
from ...app.training import LoraSession
from ...core.config import ConfigError
from ...core.files.output_files import ExportError, existing_targets
from ...core.training.lora_save import ADAPTER_FILES, write_adapter
from ..plotting.fonts import ui_font
from ..plotting.i18n import QT_TRANSLATE_NOOP, translate
from .lora_controls import LoraControls
from .lora_curves import LoraCurves
from .lora_heads import LoraHeads

CONTEXT = "training.lora_view"
REDRAW_MS = 250  # curves and heads at most this often while running (a chunk comes every 0.1 s)
EXPLANATION = (
    (QT_TRANSLATE_NOOP("training.lora_view", "LoRA: a low-rank change"),
     QT_TRANSLATE_NOOP("training.lora_view", "The base model is frozen. Each chosen weight W (W_Q, W_K, W_V or W_O) "
                                "gets two small matrices, A (r × d) and B (d × r), and the layer uses "
                                "W + (α / r)·B·A. Only A and B train: 2·r·d numbers per matrix instead "
                                "of d². B starts at 0, so at step 0 the model is exactly the base: the "
                                "curves start at the base's loss on the new task and the difference "
                                "heads start white.")),
    (QT_TRANSLATE_NOOP("training.lora_view", "r and α"),
     QT_TRANSLATE_NOOP("training.lora_view", "The rank r bounds how much the weight can change: ΔW has rank at most r. "
                                "α / r scales the update; α = r (the default) makes it 1. Keep α fixed "
                                "while trying other ranks and the update keeps its size.")),
    (QT_TRANSLATE_NOOP("training.lora_view", "Against a full fine-tune"),
     QT_TRANSLATE_NOOP("training.lora_view", "With the comparison on, a copy of the base trains every weight on the "
                                "same batches (dashed curve). It usually gets further, with many times "
                                "more trainable parameters; the saved adapter is only A and B.")),
)


class LoraPanel(QWidget):
    message = Signal(str)  # one line for the window's status bar

    def __init__(self, runner, trained=None, parent=None):
        """`runner`: the Train tab's; `trained()` → (model getter, TrainConfig, steps) of the
        tab's trained model, or None when there is none."""
        super().__init__(parent)
        self.session = LoraSession(runner)
        self.trained = trained or (lambda: None)
        self.base_kind: str | None = None  # "trained" or "file"
        self._trained_steps = 0
        self.controls = LoraControls()
        self.explanation = QTextBrowser()
        self.explanation.setOpenExternalLinks(False)
        self.curves = LoraCurves()
        self.heads = LoraHeads()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._draw)
        self._dirty = False
        self._build()
        self._connect()
        self._refresh_texts()
        self._show_base_text()
        self._on_status(self.session.status)

    def _build(self) -> None:
        left = QWidget()
        column = self.left_column = QVBoxLayout(left)  # (the tab's mode switch goes on top)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.controls)
        column.addWidget(self.explanation, 1)
        column.addStretch(0)
        right = self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.curves)
        right.addWidget(self.heads)
        right.setStretchFactor(0, 2)
        right.setStretchFactor(1, 3)
        right.setSizes([330, 670])
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([270, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    def _connect(self) -> None:
        c, s = self.controls, self.session
        c.start_button.clicked.connect(self.start)
        c.pause_button.clicked.connect(s.pause)
        c.cancel_button.clicked.connect(self.cancel)
        c.save_button.clicked.connect(self._ask_save)
        c.use_trained_button.clicked.connect(self.use_trained)
        c.load_base_button.clicked.connect(self._ask_load)
        s.progress.connect(self._on_progress)
        s.status_changed.connect(self._on_status)
        s.error.connect(self._on_error)
        s.base_changed.connect(self._on_base)

    # ----- the base ----------------------------------------------------------------------
    def use_trained(self) -> bool:
        """The tab's trained model as the base; False (and a message) when there is none."""
        trained = self.trained()
        if trained is None:
            self.say(translate("training.lora_view", "No trained model yet: train one (Train from scratch), or load a base."))
            return False
        get_model, config, steps = trained
        self._trained_steps = steps
        self.session.use_trained(get_model, config)
        return True

    def load_base(self, path) -> None:
        self.say(translate("training.lora_view", "reading {path}…").format(path=path))
        self.session.load_base(path)

    def _on_base(self, config, path) -> None:
        self.base_kind = "trained" if path is None else "file"
        self._show_base_text()
        self.heads.clear()
        self.curves.clear_curves()
        if path is not None:
            self.say(translate("training.lora_view", "base loaded from {path}").format(path=path))

    def _show_base_text(self) -> None:
        config = self.session.base_config
        if config is None:
            text = translate("training.lora_view", "Base: none yet (train a model, or load one)")
        else:
            sizes = translate("training.lora_view", "{layers} layers × {heads} heads, d_model {d}, trained on {task}").format(
                layers=config.n_layers, heads=config.n_heads, d=config.d_model, task=config.task)
            if self.session.base_path is None:
                text = translate("training.lora_view", "Base: the model trained here ({sizes}; step {step})").format(
                    sizes=sizes, step=self._trained_steps)
            else:
                text = translate("training.lora_view", "Base: {name} ({sizes})").format(
                    name=Path(self.session.base_path).name, sizes=sizes)
        self.controls.show_base(text, config)

    # ----- runs --------------------------------------------------------------------------
    def start(self) -> None:
        s = self.session
        if s.status == "idle" and s.tune is None:
            if self.base_kind != "file" and not self.use_trained():  # the trained model as it is now
                return
            try:
                s.set_config(self.controls.config())
            except ConfigError as exc:
                self.say(error_text(exc))
                return
            self.heads.clear()
            self.curves.clear_curves()
            self.say(translate("training.lora_view", "fine-tuning a LoRA…"))
        s.start()

    def pause(self) -> None:
        self.session.pause()

    def cancel(self) -> None:
        self.session.cancel()
        self._timer.stop()
        self._dirty = False
        self.curves.clear_curves()
        self.heads.clear()

    def shutdown(self) -> None:
        self.session.pause()

    def save(self, folder, replace: bool = False) -> list | None:
        """Write the adapter's two files into `folder` (created if missing): the written paths, or
        None (the reason on the status line). An adapter there is replaced only with `replace`."""
        try:
            files = self.session.adapter_files()
            written = write_adapter(folder, files, "overwrite" if replace else "error")
        except RuntimeError as exc:  # nothing trained yet, or running
            self.say(translate("training.lora_view", "adapter not saved: {reason}").format(reason=exc))
            return None
        except (ExportError, OSError) as exc:
            self.say(translate("training.lora_view", "adapter not saved: {reason}").format(reason=error_text(exc)))
            return None
        self.say(translate("training.lora_view", "adapter saved to {path}").format(path=Path(folder)))
        return written

    # ----- session events ----------------------------------------------------------------
    def _on_progress(self, records, full_records, snapshots) -> None:
        self._dirty = True
        if self.session.status != "running":
            self._timer.stop()
            self._draw()
        elif not self._timer.isActive():
            self._timer.start()
        self._on_status(self.session.status)

    def _draw(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        s = self.session
        self.curves.set_records(s.records, s.full_records, span=s.config.steps)
        if s.snapshots:
            last = s.snapshots[-1]
            self.heads.set_attention(s.snapshots[0].attention, last.attention, last.step)

    def _on_status(self, status: str) -> None:
        if status != "running" and self._dirty:
            self._timer.stop()
            self._draw()
        s = self.session
        self.controls.set_status(status, s.tune is not None)
        step = 0 if s.tune is None else s.tune.step_count
        text = {"idle": translate("training.lora_view", "idle: choose the base and the settings, then Start"),
                "running": translate("training.lora_view", "fine-tuning: step {step} of {steps}"),
                "paused": translate("training.lora_view", "paused at step {step} of {steps}"),
                "done": translate("training.lora_view", "done: {step} steps")}[status]
        self.controls.status.setText(text.format(step=step, steps=s.config.steps))

    def _on_error(self, message: str) -> None:
        self._on_status(self.session.status)  # the buttons; then the reason on the status line
        self.say(translate("training.lora_view", "LoRA: {reason}").format(reason=message))

    def say(self, text: str) -> None:
        self.controls.status.setText(text)
        self.message.emit(text)

    # ----- dialogs -----------------------------------------------------------------------
    def _ask_load(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, translate("training.lora_view", "Load a base model"), "",
                                              translate("training.lora_view", "safetensors (*.safetensors)"))
        if path:
            self.load_base(path)

    def _ask_save(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, translate("training.lora_view", "Save the adapter into a folder"))
        if not folder:
            return
        replace = False
        if existing_targets(folder, list(ADAPTER_FILES)):
            answer = QMessageBox.question(self, translate("training.lora_view", "Replace the adapter?"), translate(
                "training.lora_view", "{folder} holds an adapter already. Replace it?").format(folder=folder))
            if answer != QMessageBox.StandardButton.Yes:
                return
            replace = True
        self.save(folder, replace)

    # ----- looks -------------------------------------------------------------------------
    def set_colormap(self, name: str) -> None:
        self.heads.set_colormap(name)

    def _refresh_texts(self) -> None:
        parts = [f"<p><b>{html.escape(translate(CONTEXT, title))}</b><br>"
                 f"{html.escape(translate(CONTEXT, body))}</p>" for title, body in EXPLANATION]
        self.explanation.setHtml("".join(parts))

    def set_presentation(self, on: bool) -> None:
        self.controls.set_compact(on)
        self.explanation.setVisible(not on)
        font = ui_font(16 if on else 10)
        self.controls.setFont(font)
        self.explanation.setFont(font)
        self.curves.set_presentation(on)
        self.heads.set_presentation(on)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self._refresh_texts()
            self._show_base_text()
            self._on_status(self.session.status)
        super().changeEvent(event)

