"""The Train tab: train a tiny attention-only transformer and watch its heads learn (issue 13).

Left: the settings and buttons (controls.py) and what the curves show (texts in both languages,
core/training/texts.py). Right: the curves (curves.py) above every head on the fixed probe
(heads.py) and the timeline scrubber over the snapshots. Training runs in short chunks on a
runner of its own (app/training.TrainingSession), so the window never waits on it; this view
only binds buttons to the session and draws what it delivers. While the scrubber sits at its
right end it follows the newest snapshot; dragged back, it shows that snapshot and marks its
step on the curves until it is brought to the end again.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (QButtonGroup, QFileDialog, QHBoxLayout, QLabel, QRadioButton, QSlider,
                               QSplitter, QStackedWidget, QTextBrowser, QVBoxLayout, QWidget)

from ...app.runner import Runner
from ...app.training import TrainingSession, training_runner
from ...app.i18n import error_text
from ...core.config import ConfigError
from ...core.messages import TranslatableError
from ...core.training import TrainConfig, probe_tokens, validate_train
from ...core.files.output_files import write_file
from ...core.training.texts import TEXTS
from ..plotting.fonts import ui_font
from ..plotting.i18n import translate
from .controls import TrainControls
from .curves import TrainingCurves
from .heads import SnapshotHeads
from .lora_view import LoraPanel

SAVED_CHOICES = ("task", "n_layers", "n_heads", "d_model", "seed", "lr", "steps")

CURVES_MS = 250
TEXT_ORDER = ("curves", "heads", "scores", "phase_change", "fixed_offset")



class TrainView(QWidget):

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("train_task", "train_start")

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"train_task": self.controls.task, "train_start": self.controls.start_button}
    message = Signal(str)           # one line for the window's status bar
    export_requested = Signal(str)  # "snapshot" or "animation" (gui/window/training_export.py)

    def __init__(self, make_grid, defaults: TrainConfig = TrainConfig(), runner: Runner | None = None,
                 parent=None):
        """`make_grid()` → a heads grid (the window passes gui.heads.grid.HeadsGrid)."""
        super().__init__(parent)
        self.make_grid = make_grid
        self._own_runner = runner is None
        self.runner = runner if runner is not None else training_runner()
        self.session = TrainingSession(self.runner, defaults)
        self.device = "cpu"
        self.colormap: str | None = None
        self._following = True
        self._export_job = None  # the animation export running now (track_export)
        # the curves are redrawn at most every CURVES_MS while training (each redraw repaints
        # four plots and ~20 curves; a chunk arrives every 0.1 s); at once when a run stops
        self._curves_timer = QTimer(self)
        self._curves_timer.setSingleShot(True)
        self._curves_timer.setInterval(CURVES_MS)
        self._curves_timer.timeout.connect(self._draw_curves)
        self._curves_dirty = False
        self.controls = TrainControls(defaults)
        self.explanation = QTextBrowser()
        self.explanation.setOpenExternalLinks(False)
        self.curves = TrainingCurves()
        self.heads = SnapshotHeads(make_grid)
        self.scrubber = QSlider(Qt.Orientation.Horizontal)
        self.scrubber.setRange(0, 0)
        self.scrubber.setEnabled(False)
        self.scrubber_label = QLabel(translate("training.view", "no snapshot yet"))
        self.lora = LoraPanel(self.runner, trained=self._trained_base)  # the LoRA mode's page
        self.mode_train, self.mode_lora = QRadioButton(), QRadioButton()
        self.mode_train.setChecked(True)
        self._modes = QButtonGroup(self)
        self._modes.addButton(self.mode_train)
        self._modes.addButton(self.mode_lora)
        self._build()
        self._connect()
        self._refresh_texts()
        self._on_status(self.session.status)

    # ----- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        left = QWidget()
        column = self._column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.controls)
        column.addWidget(self.explanation, 1)
        column.addStretch(0)  # takes the room while the explanation is hidden (presentation)
        scrub = QHBoxLayout()
        self.timeline_label = QLabel()
        scrub.addWidget(self.timeline_label)
        scrub.addWidget(self.scrubber, 1)
        scrub.addWidget(self.scrubber_label)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(scrub)
        lower_layout.addWidget(self.heads, 1)
        right = self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.curves)
        right.addWidget(lower)
        right.setStretchFactor(0, 2)
        right.setStretchFactor(1, 3)
        right.setSizes([360, 640])  # set_presentation shares the height out again
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([260, 900])
        # the mode switch sits at the top of the shown page's left column (set_mode moves it):
        # a row across the tab took its height from the curves, ~55 px tall at 1024 × 768
        self.mode_bar = QWidget()
        modes = QHBoxLayout(self.mode_bar)
        modes.setContentsMargins(4, 4, 4, 0)
        modes.setSpacing(10)
        for widget in (self.mode_train, self.mode_lora):
            modes.addWidget(widget)
        modes.addStretch(1)
        self._column.insertWidget(0, self.mode_bar)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.splitter)
        self.pages.addWidget(self.lora)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.pages, 1)

    def _connect(self) -> None:
        c, s = self.controls, self.session
        c.start_button.clicked.connect(self.start)
        c.pause_button.clicked.connect(s.pause)
        c.step_button.clicked.connect(self.step)
        c.reset_button.clicked.connect(self.reset)
        c.save_button.clicked.connect(self._ask_save)
        c.load_button.clicked.connect(self._ask_load)
        c.export_button.clicked.connect(lambda: self.export_requested.emit("snapshot"))
        c.animation_button.clicked.connect(lambda: self.export_requested.emit("animation"))
        c.task.currentIndexChanged.connect(lambda _i: self._refresh_texts())
        self.scrubber.valueChanged.connect(self._on_scrub)
        s.progress.connect(self._on_progress)
        s.status_changed.connect(self._on_status)
        s.error.connect(self._on_error)
        s.loaded.connect(self._on_loaded)
        self.mode_lora.toggled.connect(lambda on: self.set_mode("lora" if on else "train"))
        self.lora.message.connect(self.message)

    # ----- the two modes: training from scratch, a LoRA fine-tune of the trained model -------
    def set_mode(self, mode: str) -> None:
        """"train" or "lora": the page shown; the other mode's run is paused (one at a time)."""
        lora = mode == "lora"
        if self.mode_lora.isChecked() != lora:
            (self.mode_lora if lora else self.mode_train).setChecked(True)  # (toggled calls back here)
            return
        (self.session if lora else self.lora.session).pause()
        (self.lora.left_column if lora else self._column).insertWidget(0, self.mode_bar)
        self.pages.setCurrentWidget(self.lora if lora else self.splitter)
        if lora and self.lora.session.base_config is None and self.session.trainer is not None:
            self.lora.use_trained()

    def mode(self) -> str:
        return "lora" if self.mode_lora.isChecked() else "train"

    def _trained_base(self):
        """(model getter, TrainConfig, steps) of this tab's trained model, or None. The getter
        runs on the runner's thread when a fine-tune starts (between training chunks)."""
        trainer, session = self.session.trainer, self.session
        if trainer is None:
            return None
        return (lambda: None if session.trainer is None else session.trainer.model,
                trainer.config, trainer.step_count)

    # ----- actions ---------------------------------------------------------------------------
    def set_device(self, device: str) -> None:
        """The window's device switch (cpu, cuda, cuda:N): used by the next fresh run."""
        self.device = device
        self.controls.set_device(device)

    def set_colormap(self, name: str) -> None:
        self.colormap = name
        self.heads.set_colormap(name)
        self.lora.set_colormap(name)

    def _fresh_config(self) -> bool:
        """Before a fresh run: the settings as the session's config; False (and a message) if invalid."""
        if self.session.status != "idle" or self.session.trainer is not None:
            return True
        try:
            self.session.set_config(self.controls.config(self.device))
        except ConfigError as exc:
            self.say(error_text(exc))  # in the UI language
            return False
        return True

    def start(self) -> None:
        if self._fresh_config():
            self._prepare_heads()
            self.say(translate("training.view", "training on {device}…").format(device=self.session.config.device))
            self.session.start()

    def step(self) -> None:
        if self._fresh_config():
            self._prepare_heads()
            self.session.step()

    def _prepare_heads(self) -> None:
        """Empty heads panels in the settings' shape (see SnapshotHeads.prepare)."""
        config = self.controls.config(self.device)
        self.heads.prepare(config.n_layers, config.n_heads, probe_tokens(config.vocab, config.seq_len))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self.heads.snapshot is None:
            QTimer.singleShot(0, self._prepare_heads)  # after the tab has painted

    def reset(self) -> None:
        self.session.reset()
        self.heads.clear()
        self._curves_timer.stop()
        self._curves_dirty = False
        self.curves.clear_curves()
        self._following = True
        self.scrubber.setRange(0, 0)
        self.scrubber_label.setText(translate("training.view", "no snapshot yet"))
        self._on_status(self.session.status)

    def save(self, path) -> None:
        """Write the model (the session's rules: paused or done): never over a FIFO, a device or a
        symlink; mode from the umask. The file dialog has asked before replacing a file. Errors go
        to the status line, in the UI's language."""
        try:
            written = write_file(path, self.session.model_bytes(), on_exists="overwrite")
        except RuntimeError as exc:  # nothing trained yet, or a chunk running
            self.say(translate("training.view", "not saved: {reason}").format(reason=exc))
            return
        except (TranslatableError, OSError) as exc:  # an ExportError or a CheckpointError
            self.say(translate("training.view", "not saved: {reason}").format(reason=error_text(exc)))
            return
        self.say(translate("training.view", "model saved to {path}").format(path=written))

    def load(self, path) -> None:
        self._curves_timer.stop()
        self._curves_dirty = False
        self.curves.clear_curves()
        self._following = True
        self.session.load(path)

    def track_export(self, job) -> None:
        """The animation export running now (window/exports/training_animation.start_export);
        shutdown cancels it."""
        self._export_job = job

    def shutdown(self) -> bool:
        """Stop training without waiting (the window is closing); True once its thread has ended
        (False: a chunk still runs on the daemon thread, abandoned; it delivers nothing). A running
        animation export is cancelled, its staged files removed (waited for up to a second)."""
        self.session.pause()
        self.lora.shutdown()
        if self._export_job is not None and self._export_job.running:
            self._export_job.cancel(wait_s=1.0)
        return self.runner.close(0) if self._own_runner else True

    # ----- reading ---------------------------------------------------------------------------
    def probe(self):
        config = self.session.config
        return probe_tokens(config.vocab, config.seq_len)  # (2L,)

    def shown_snapshot(self):
        snapshots = self.session.snapshots
        if not snapshots:
            return None
        return snapshots[min(self.scrubber.value(), len(snapshots) - 1)]

    # ----- session events --------------------------------------------------------------------
    def _draw_curves(self) -> None:
        if self._curves_dirty:
            self._curves_dirty = False
            self.curves.set_records(self.session.records, span=self.session.config.steps)

    def _on_progress(self, records, snapshots) -> None:
        if records:
            self._curves_dirty = True
            if self.session.status != "running":
                self._curves_timer.stop()
                self._draw_curves()
            elif not self._curves_timer.isActive():
                self._curves_timer.start()
        count = len(self.session.snapshots)
        if snapshots and count:
            follow = self._following
            self.scrubber.blockSignals(True)
            self.scrubber.setRange(0, count - 1)
            if follow:
                self.scrubber.setValue(count - 1)
            self.scrubber.blockSignals(False)
            self.scrubber.setEnabled(count > 1)
            if follow:
                self._show(count - 1)
        self._on_status(self.session.status)

    def _on_scrub(self, index: int) -> None:
        self._following = index >= self.scrubber.maximum()
        self._show(index)

    def _show(self, index: int) -> None:
        snapshots = self.session.snapshots
        if not 0 <= index < len(snapshots):
            return
        snapshot = snapshots[index]
        self.heads.set_snapshot(snapshot, self.probe())
        self.curves.set_marked_step(None if self._following else snapshot.step)
        self.scrubber_label.setText(translate("training.view", "step {step} ({index}/{count})").format(
            step=snapshot.step, index=index + 1, count=len(snapshots)))

    def _on_status(self, status: str) -> None:
        if status != "running" and self._curves_dirty:  # a run stopped: its last records now
            self._curves_timer.stop()
            self._draw_curves()
        s = self.session
        self.controls.set_status(status, s.trainer is not None, len(s.snapshots))
        trainer = s.trainer
        steps = 0 if trainer is None else trainer.step_count
        text = {"idle": translate("training.view", "idle: choose the settings and press Start"),
                "running": translate("training.view", "training: step {step} of {steps}"),
                "paused": translate("training.view", "paused at step {step} of {steps}"),
                "done": translate("training.view", "done: {step} steps")}[status]
        self.controls.status.setText(text.format(step=steps, steps=s.config.steps))

    def _on_error(self, message: str) -> None:
        self.say(translate("training.view", "training stopped: {reason}").format(reason=message))
        self._on_status(self.session.status)

    def _on_loaded(self, config, path) -> None:
        self.controls.show_config(config)
        self.say(translate("training.view", "model loaded from {path}").format(path=path))

    def say(self, text: str) -> None:
        self.controls.status.setText(text)
        self.message.emit(text)

    # ----- saved between runs (Settings.training) --------------------------------------------
    def choices(self) -> dict:
        """What the controls hold, to save: {task, n_layers, n_heads, d_model, seed, lr, steps}."""
        config = self.controls.config(self.device)
        return {name: getattr(config, name) for name in SAVED_CHOICES}

    def restore_choices(self, saved: dict) -> str | None:
        """Show the saved choices (checked by core's validate_train); None, or a note saying they
        were ignored (the defaults stay)."""
        if not saved:
            return None
        choices = {name: saved[name] for name in SAVED_CHOICES if name in saved}
        try:
            config = validate_train(self.controls.config(self.device).replace(**choices))
            outside = self.controls.outside_ranges(config)  # (core allows seeds up to 2^32 - 1)
        except (ConfigError, TypeError, ValueError) as exc:
            reason = error_text(exc)
        else:
            if not outside:
                self.controls.show_config(config)
                return None
            reason = translate("training.view", "{names} outside the controls' ranges").format(
                names=", ".join(outside))
        return translate("training.view", "saved training settings ignored: {reason}").format(reason=reason)

    # ----- file dialogs ----------------------------------------------------------------------
    def _ask_save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, translate("training.view", "Save the trained model"), "tiny-transformer.safetensors",
                                              translate("training.view", "safetensors (*.safetensors)"))
        if path:
            self.save(path)

    def _ask_load(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, translate("training.view", "Load a trained model"), "",
                                              translate("training.view", "safetensors (*.safetensors)"))
        if path:
            self.load(path)

    # ----- looks -----------------------------------------------------------------------------
    def _refresh_texts(self) -> None:
        self.timeline_label.setText(translate("training.view", "Timeline"))
        self.mode_bar.setToolTip(translate("training.view", "Train a fresh model, or fine-tune a LoRA "
                                                            "on the trained one"))
        self.mode_train.setText(translate("training.view", "Train from scratch"))
        self.mode_lora.setText(translate("training.view", "LoRA fine-tune"))
        if not self.scrubber.isEnabled():
            self.scrubber_label.setText(translate("training.view", "no snapshot yet"))
        task = self.controls.task.currentData()
        order = (("fixed_offset",) + TEXT_ORDER[:-1]) if task == "induction-fixed" else TEXT_ORDER
        parts = []
        for key in order:
            text = TEXTS[key]
            title = html.escape(text.title(translate))
            body = html.escape(text.body(translate))
            style = ' style="color:#B03000"' if key == "fixed_offset" and task == "induction-fixed" else ""
            parts.append(f"<p><b{style}>{title}</b><br>{body}</p>")
        self.explanation.setHtml("".join(parts))

    def set_presentation(self, on: bool) -> None:
        """Larger fonts; like the window's controls dock, the settings, file buttons and the
        explanation collapse so the plots take the screen (leaving presentation brings them back)."""
        self.controls.set_compact(on)
        self.explanation.setVisible(not on)
        self.mode_bar.setVisible(not on)  # chosen before presenting, like the settings
        font = ui_font(16 if on else 10)
        for widget in (self.controls, self.explanation, self.scrubber_label):
            widget.setFont(font)
        self.curves.set_presentation(on)
        self.heads.set_presentation(on)
        self.lora.set_presentation(on)
        total = sum(self.right_splitter.sizes()) or 1000
        # larger fonts: the curves need more of the height (at 0.45 their plots were ~55 px
        # tall on a 1024 × 768 projector; at 0.55 the heads below shrank to ~30 px); at 0.36 without
        # presentation the four curves in two rows under their legend were ~40 px tall, at 0.46 the heads ~25 px
        share = 0.5 if on else 0.41
        self.right_splitter.setSizes([round(total * share), round(total * (1 - share))])

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self._refresh_texts()
            self._on_status(self.session.status)
            if self.scrubber.isEnabled():
                self._show(self.scrubber.value())
        super().changeEvent(event)
