"""The KV-cache timeline: step through a precomputed KVTrace one token at a time.

The window's worker computes the trace (core `run_kv_cache`); here a step is only a
redraw, and that redraw only updates existing items (see KVCacheView), so playing stays
smooth at 1024 tokens. The timer lives and dies with the widget: it stops on pause, on
hide and on close.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from ...app.models.learned_kv import LearnedKVTrace
from ...core import KVTrace
from . import text as kv_text
from .cache_view import KVCacheView
from .controls import KVControls
from .flops_plot import KVFlopsPlot
from ..plotting.fonts import font_scale, set_text_colour, ui_font
from ..plotting.i18n import translate

# the counter lines' size: on a projector 12 pt (13 left the FLOPs curves ~60 px at 1024 x 768)
COUNTER_PT = {False: 10, True: 12}
OK_COLOUR, BAD_COLOUR = "#1a7f37", "#d1242f"  # the check line (bold: set_presentation)


class KVPanel(QWidget):
    """set_trace(trace), set_step(i), play(), pause(); emits step_changed(i)."""

    # the controls a lesson step may name (`highlight`, app.lesson_schema.CONTROLS)
    LESSON_CONTROLS = ("kv_step", "kv_play", "kv_head")

    def lesson_controls(self) -> dict:
        """Each of LESSON_CONTROLS: its widget."""
        return {"kv_step": self.controls.slider, "kv_play": self.controls.play_button,
                "kv_head": self.controls.head_combo}

    step_changed = Signal(int)
    head_choice_changed = Signal(int)  # index in the head list: 0 = all heads, h + 1 = head h

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.trace: KVTrace | None = None
        self._step = 0
        self._check_ok: bool | None = None
        self.setFocusPolicy(Qt.StrongFocus)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._advance)
        self.controls = KVControls()
        self.cache_view = KVCacheView()
        self.flops_plot = KVFlopsPlot()
        (self.tokens_label, self.bytes_label, self.step_flops_label, self.recompute_label,
         self.cum_label, self.check_label) = (QLabel() for _ in range(6))
        self.empty_label = QLabel(translate("kv.panel",
                                            "The KV-cache timeline appears when a trace has been computed."))
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._build_layout()
        self._connect()
        self.set_presentation(False)
        self.controls.show_playing(False)

    # ----- construction -------------------------------------------------------------------
    def _counter_labels(self) -> list[QLabel]:
        return [self.tokens_label, self.bytes_label, self.step_flops_label, self.recompute_label,
                self.cum_label, self.check_label]

    def _build_layout(self) -> None:
        """Controls on top; the K/V caches left, the FLOPs curves right; the counter lines under
        everything, or (presentation mode) under the FLOPs curves, so that on a projector the
        caches keep the full height (see set_presentation)."""
        self.counters = _ResizeNotifier(self._fit_counter_heights)
        self._ruler = QLabel()  # never shown: measures the counter lines' wrapped height
        self._ruler.setWordWrap(True)
        counters = QVBoxLayout(self.counters)
        counters.setContentsMargins(0, 0, 0, 0)
        for label in self._counter_labels():
            # Text changes every step: the label's height follows its line count only (see
            # _fit_counter_heights), so a step never resizes (and so repaints) the plots.
            label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
            label.setWordWrap(True)  # a formula line wider than a projector wraps, never cut
            label.setTextInteractionFlags(Qt.TextSelectableByMouse)
            counters.addWidget(label)
        self.side = QVBoxLayout()
        self.side.addWidget(self.flops_plot, 1)
        self.body = body = QHBoxLayout()
        body.addWidget(self.cache_view, 3)
        body.addLayout(self.side, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.controls)
        layout.addWidget(self.empty_label)
        layout.addLayout(body, 1)
        layout.addWidget(self.counters)

    def _connect(self) -> None:
        c = self.controls
        c.first_button.clicked.connect(lambda: self.set_step(0))
        c.back_button.clicked.connect(self.step_back)
        c.play_button.clicked.connect(self.play)
        c.pause_button.clicked.connect(self.pause)
        c.forward_button.clicked.connect(self.step_forward)
        c.last_button.clicked.connect(lambda: self.set_step(self.step_count - 1))
        c.slider.valueChanged.connect(self.set_step)
        c.step_spin.valueChanged.connect(self.set_step)
        c.speed_spin.valueChanged.connect(self._speed_changed)
        c.head_combo.currentIndexChanged.connect(
            lambda _: self.cache_view.set_head(c.head_combo.currentData()))
        c.head_combo.currentIndexChanged.connect(self.head_choice_changed.emit)
        self._keys = {
            Qt.Key_Right: self.step_forward, Qt.Key_Left: self.step_back,
            Qt.Key_Space: self.toggle_play, Qt.Key_Home: lambda: self.set_step(0),
            Qt.Key_End: lambda: self.set_step(self.step_count - 1),
            Qt.Key_PageDown: lambda: self.set_step(self._step + 10),
            Qt.Key_PageUp: lambda: self.set_step(self._step - 10),
        }

        # A clicked plot takes the focus, and QGraphicsView would scroll on arrow keys.
        for view in (self.cache_view, self.flops_plot.graphics):
            view.installEventFilter(self)

    def _handle_key(self, event) -> bool:
        action = self._keys.get(event.key())
        if action is None or event.modifiers() & ~Qt.KeypadModifier:
            return False
        action()
        return True

    def keyPressEvent(self, event) -> None:
        """Arrows, Space, Home/End, PgUp/PgDn, from the panel or any child that leaves them
        alone (the slider and spin box keep their own arrow keys)."""
        if self._handle_key(event):
            event.accept()
        else:
            super().keyPressEvent(event)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.KeyPress and self._handle_key(event):
            return True
        return super().eventFilter(watched, event)

    # ----- public API ---------------------------------------------------------------------
    def set_trace(self, trace: KVTrace) -> None:
        """A new trace (the config changed): back to step 0; keeps playing if it was.

        The same trace again (the window re-sends it when its tab is shown) keeps the step.
        """
        if trace is self.trace:
            return
        playing = self.is_playing
        self.timer.stop()
        self.trace = trace
        self.empty_label.hide()
        self._show_body(True)
        self.controls.set_steps(len(trace.steps), trace.config.n_heads,
                                self.controls.head_combo.currentData())
        self.cache_view.set_trace(trace, self.controls.head_combo.currentData())
        self.flops_plot.set_trace(trace)
        self._show(0)
        if playing and self.step_count > 1:
            self.timer.start()
        self.controls.show_playing(self.is_playing)
        self.head_choice_changed.emit(self.head_choice)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self.trace is not None:
            for label, line in zip(self._counter_labels(), self._lines(self._step)):
                label.setText(line)  # the counters of the step shown, in the new language
            self._fit_counter_heights()
        elif event.type() == QEvent.Type.LanguageChange and self._message is None:
            self.empty_label.setText(translate("kv.panel",
                                               "The KV-cache timeline appears when a trace has been computed."))

    _message = None  # the text show_message put up (said by its caller, in its language)

    def show_message(self, text: str) -> None:
        """No trace to step through: say why (an encoder has no KV cache; a decoder's is coming)."""
        self.pause()
        self.trace = None
        self._message = text
        self.empty_label.setText(text)
        self.empty_label.show()
        self._show_body(False)

    def _show_body(self, on: bool) -> None:
        for widget in (self.controls, self.cache_view, self.flops_plot, self.counters):
            widget.setVisible(on)

    @property
    def head_choice(self) -> int:
        """The index in the head list: 0 = all heads (concatenated), h + 1 = head h."""
        return max(self.controls.head_combo.currentIndex(), 0)

    def set_head_choice(self, index: int) -> None:
        if index != self.head_choice and 0 <= index < self.controls.head_combo.count():
            self.controls.head_combo.setCurrentIndex(index)

    def set_step(self, step: int) -> None:
        """Show the cache after `step` (clamped to the trace)."""
        if self.trace is None:
            return
        step = max(0, min(int(step), self.step_count - 1))
        if step != self._step:
            self._show(step)

    def step_forward(self) -> None:
        self.set_step(self._step + 1)

    def step_back(self) -> None:
        self.set_step(self._step - 1)

    def play(self) -> None:
        """Advance at the chosen speed; from the last step, start again at 0."""
        if self.trace is None or self.step_count < 2:
            return
        if self._step >= self.step_count - 1:
            self.set_step(0)
        self._speed_changed(self.controls.speed_spin.value())
        self.timer.start()
        self.controls.show_playing(True)

    def pause(self) -> None:
        self.timer.stop()
        self.controls.show_playing(False)

    def toggle_play(self) -> None:
        self.pause() if self.is_playing else self.play()

    def set_speed(self, steps_per_second: float) -> None:
        self.controls.speed_spin.setValue(steps_per_second)

    @property
    def is_playing(self) -> bool:
        return self.timer.isActive()

    @property
    def step(self) -> int:
        return self._step

    @property
    def step_count(self) -> int:
        return 0 if self.trace is None else len(self.trace.steps)

    def set_presentation(self, on: bool) -> None:
        self.controls.set_presentation(on)
        self.cache_view.set_presentation(on)
        self.flops_plot.set_presentation(on)
        for label in self._counter_labels() + [self.empty_label]:
            label.setFont(ui_font(COUNTER_PT[on], bold=label is self.check_label))
            label.setFixedHeight(label.fontMetrics().height() + 6)
        self.empty_label.setFont(ui_font(13 if on else 10))  # may be a paragraph: wraps, own height
        if on:
            self.side.addWidget(self.counters)  # moves it: beside the caches, under the curves
        else:
            self.layout().addWidget(self.counters)
        # On a projector the curves keep a readable height; the step and token line repeats
        # the step counter above and the highlighted cache row, so it gives way.
        self.flops_plot.setMinimumHeight(round(120 * font_scale()) if on else 0)
        self.tokens_label.setVisible(not on)
        self.body.setStretch(1, 4 if on else 2)  # the side column holds the counters too: wider,
        # they wrap to fewer lines, and the curves get the height (1024 x 768: 65 -> ~140 px)
        self._fit_counter_heights()

    def _fit_counter_heights(self) -> None:
        """Each counter line as tall as its wrapped text at the current width; changed only
        when the number of lines changes (rarely between steps)."""
        width = self.counters.contentsRect().width()  # the labels' own width may lag behind
        ruler = self._ruler  # measures like a label (QLabel's own heightForWidth is floored by
        for label in self._counter_labels():  # the fixed height set here: it only grows)
            ruler.setFont(label.font())
            ruler.setText(label.text())
            height = max(ruler.heightForWidth(width), label.fontMetrics().height()) + 6
            if label.height() != height:
                label.setFixedHeight(height)

    # ----- internals ----------------------------------------------------------------------
    def _show(self, step: int) -> None:
        """The per-step redraw: cheap updates of existing items only."""
        trace, self._step = self.trace, step
        s, cfg = trace.steps[step], trace.config
        self.cache_view.show_step(step)
        self.flops_plot.show_step(step)
        self.controls.show_step(step, self.step_count)
        for label, line in zip(self._counter_labels(), self._lines(step)):
            label.setText(line)
        ok = kv_text.check_passed(s, cfg.dtype)
        self._fit_counter_heights()
        if ok != self._check_ok:  # restyling is not free: only when the verdict flips
            self._check_ok = ok
            set_text_colour(self.check_label, OK_COLOUR if ok else BAD_COLOUR)
        self.step_changed.emit(step)

    def _lines(self, step: int) -> tuple[str, ...]:
        """The six counter lines; a pretrained decoder's trace writes its own (whole-model bytes
        with grouped-query attention, FLOPs of every layer, the check of the whole step)."""
        trace = self.trace
        if isinstance(trace, LearnedKVTrace):
            return trace.counter_lines(step)
        s, cfg = trace.steps[step], trace.config
        return (kv_text.tokens_line(s, cfg.n_tokens), kv_text.bytes_line(s, cfg),
                kv_text.step_flops_line(s, cfg), kv_text.recompute_flops_line(s, cfg),
                kv_text.cumulative_line(s), kv_text.check_line(s, cfg.dtype))

    def _advance(self) -> None:
        if self._step >= self.step_count - 1:
            self.pause()
        else:
            self.set_step(self._step + 1)

    def _speed_changed(self, steps_per_second: float) -> None:
        self.timer.setInterval(max(1, round(1000.0 / max(steps_per_second, 1e-3))))

    def hideEvent(self, event) -> None:
        self.pause()
        super().hideEvent(event)

    def closeEvent(self, event) -> None:
        self.pause()
        super().closeEvent(event)


class _ResizeNotifier(QWidget):
    """A plain container that calls `on_resize()` after each resize."""

    def __init__(self, on_resize, parent: QWidget | None = None):
        super().__init__(parent)
        self._on_resize = on_resize

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._on_resize()
