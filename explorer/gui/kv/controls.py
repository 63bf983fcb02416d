"""Transport controls of the KV timeline: first / back / play / pause / forward / last,
speed, jump-to-step, head choice, and a scrubber. Widgets only; the panel wires them."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QSlider, QSpinBox,
                               QStyle, QToolButton, QVBoxLayout, QWidget)

from ..plotting.flow_layout import FlowLayout
from ..plotting.fonts import ui_font
from ..plotting.i18n import translate

DEFAULT_SPEED = 4.0      # steps per second: slow enough to follow on a projector
MAX_SPEED = 120.0


def _group(*widgets: QWidget) -> QWidget:
    """Widgets side by side that wrap together."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    return box


class KVControls(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        style = self.style()

        def button(icon, text: str, tip: str) -> QToolButton:
            b = QToolButton()
            b.setIcon(style.standardIcon(icon))
            b.setText(text)
            b.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
            b.setToolTip(tip)
            return b

        self.first_button = button(QStyle.SP_MediaSkipBackward, "", "")
        self.back_button = button(QStyle.SP_MediaSeekBackward, "", "")
        self.play_button = button(QStyle.SP_MediaPlay, "", "")
        self.pause_button = button(QStyle.SP_MediaPause, "", "")
        self.forward_button = button(QStyle.SP_MediaSeekForward, "", "")
        self.last_button = button(QStyle.SP_MediaSkipForward, "", "")
        self.speed_spin = QDoubleSpinBox()
        self.speed_spin.setRange(0.25, MAX_SPEED)
        self.speed_spin.setDecimals(2)
        self.speed_spin.setValue(DEFAULT_SPEED)
        self.step_spin = QSpinBox()
        self.step_spin.setRange(0, 0)
        self.head_combo = QComboBox()
        # as wide as its longest entry, also after set_steps refills it ("all heads (concatenated)"
        # was cut to "all head" when the box had been sized while empty)
        self.head_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setPageStep(10)
        self.position_label = QLabel()
        self._position = (0, 1)  # (step, count) shown
        self._labels = [QLabel(), QLabel(), QLabel(), self.position_label]
        self.retranslate()
        self._build_layout()
        self.set_presentation(False)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """Every text from its source, in the UI language (at start and after a switch)."""
        for button, text, tip in (
                (self.first_button, translate("kv.controls", "first"), translate("kv.controls", "First step (Home)")),
                (self.back_button, translate("kv.controls", "back"), translate("kv.controls", "Step back (Left)")),
                (self.play_button, translate("kv.controls", "play"), translate("kv.controls", "Play (Space)")),
                (self.pause_button, translate("kv.controls", "pause"), translate("kv.controls", "Pause (Space)")),
                (self.forward_button, translate("kv.controls", "forward"), translate("kv.controls", "Step forward (Right)")),
                (self.last_button, translate("kv.controls", "last"), translate("kv.controls", "Last step (End)"))):
            button.setText(text)
            button.setToolTip(tip)
        self.speed_spin.setSuffix(translate("kv.controls", " steps/s"))
        self.speed_spin.setToolTip(translate("kv.controls", "Playback speed"))
        self.step_spin.setToolTip(translate("kv.controls", "Jump to a step"))
        self.head_combo.setToolTip(translate("kv.controls", "Which head's K and V to show"))
        self.slider.setToolTip(translate("kv.controls", "Scrub through the steps (Left / Right, PgUp / PgDn)"))
        for label, text in zip(self._labels, (translate("kv.controls", "speed"), translate("kv.controls", "jump to step"), translate("kv.controls", "K, V of"))):
            label.setText(text)
        for i in range(self.head_combo.count()):
            head = self.head_combo.itemData(i)
            self.head_combo.setItemText(i, self._head_text(head))
        self.show_step(*self._position)

    @staticmethod
    def _head_text(head: int | None) -> str:
        return (translate("kv.controls", "all heads (concatenated)") if head is None
                else translate("kv.controls", "head {head}").format(head=head))

    def _build_layout(self) -> None:
        """The buttons and each label with its box wrap as groups when the panel is narrow (a
        single row was 860 px wide at 10 pt, too wide for a 1024 px window beside the controls)."""
        row = FlowLayout(spacing=12)
        row.addWidget(_group(self.first_button, self.back_button, self.play_button,
                             self.pause_button, self.forward_button, self.last_button))
        for label, widget in zip(self._labels[:3], (self.speed_spin, self.step_spin, self.head_combo)):
            row.addWidget(_group(label, widget))
        scrub = QHBoxLayout()
        scrub.addWidget(self.slider, 1)
        scrub.addWidget(self.position_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addLayout(scrub)

    def set_steps(self, count: int, n_heads: int, head: int | None) -> None:
        """Ranges for a new trace (signals blocked: the panel sets the step itself)."""
        for widget in (self.slider, self.step_spin):
            widget.blockSignals(True)
            widget.setRange(0, max(0, count - 1))
            widget.blockSignals(False)
        self.head_combo.blockSignals(True)
        self.head_combo.clear()
        self.head_combo.addItem(self._head_text(None), None)
        for i in range(n_heads):
            self.head_combo.addItem(self._head_text(i), i)
        self.head_combo.setCurrentIndex(0 if head is None or head >= n_heads else head + 1)
        self.head_combo.blockSignals(False)

    def show_step(self, step: int, count: int) -> None:
        self._position = (step, count)
        for widget in (self.slider, self.step_spin):
            if widget.value() != step:
                widget.blockSignals(True)
                widget.setValue(step)
                widget.blockSignals(False)
        self.position_label.setText(translate("kv.controls", "step {step} / {last}").format(step=step,
                                                                                            last=count - 1))

    def show_playing(self, playing: bool) -> None:
        self.play_button.setEnabled(not playing)
        self.pause_button.setEnabled(playing)

    def set_presentation(self, on: bool) -> None:
        font = ui_font(14 if on else 10)
        for widget in [*self._labels, self.speed_spin, self.step_spin, self.head_combo, self.first_button,
                       self.back_button, self.play_button, self.pause_button, self.forward_button,
                       self.last_button]:
            widget.setFont(font)
        metrics = self.position_label.fontMetrics()
        self.position_label.setFixedWidth(metrics.horizontalAdvance("step 0000 / 0000") + 8)
