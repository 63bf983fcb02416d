"""The strip under the heads: shape flow, parameter count, entropy per head, time and device.

It describes the picture on screen (``result.config``), which during a fast slider drag can be
one step behind the controls.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QGridLayout, QWidget

from ...core import AttentionResult
from ..plotting.labels import WrappingLabel
from ..plotting.i18n import translate

MAX_ENTROPY_HEADS = 16  # more than this and the strip shows the first ones and the mean


def mean_entropy_per_head(result: AttentionResult) -> np.ndarray:
    """(h,) mean row entropy in nats over rows that attend to something."""
    rows = ~result.empty_rows  # (n,)
    if not rows.any():
        return np.zeros(result.config.n_heads)
    return result.stats.entropy[:, rows].mean(axis=1)  # (h,)


def entropy_text(result: AttentionResult) -> str:
    per_head = mean_entropy_per_head(result)
    shown = " · ".join(f"h{i} {e:.2f}" for i, e in enumerate(per_head[:MAX_ENTROPY_HEADS]))
    if len(per_head) > MAX_ENTROPY_HEADS:
        shown += translate("heads.info_strip", " … (mean {mean})").format(mean=f"{per_head.mean():.2f}")
    return translate("heads.info_strip", "entropy per head (nats; ln n = {ln_n}): {shown}").format(
        ln_n=f"{math.log(result.config.n_tokens):.2f}", shown=shown)


def time_text(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.0f} ms"


SLACK_PX = 60  # room a layout must have to spare before the strip goes back to fewer rows


class InfoStrip(QWidget):
    """Four labels, refreshed from each new result, in as few rows as they fit: one line; or
    (shapes, parameters, time) over the entropy; or, narrower still, (shapes, parameters), the
    entropy, then the time; each label wrapping only if it must. On one line at 16 pt and
    d_model 2048 the strip was ~900 px, which made the window wider than a projector's screen in
    presentation mode.

    Its height never shrinks from one result to the next at one width (it is reset when the
    width or the font changes): a strip whose height follows the texts (a time of "17 ms" or
    "7.30 ms" wrapping to one line more or less) re-laid out the window at every update,
    resizing every head's view and rebuilding all 16 tick labels (128 tokens × 8 heads in a
    514 px wide tab: 70–90 ms an update instead of ~30, measured)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.shape_label = WrappingLabel()
        self.params_label = WrappingLabel()
        self.entropy_label = WrappingLabel()
        self.time_label = WrappingLabel()
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(8, 2, 8, 2)
        self._grid.setHorizontalSpacing(18)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(2, 1)
        self._rows: int | None = None  # 1, 2 or 3 (the class docstring)
        self._held_for: tuple | None = None  # (width, font key) the minimum height holds for
        for label in self._labels():
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.shape_label.setText(translate("heads.info_strip", "computing…"))
        self._arrange()

    def _labels(self) -> tuple[WrappingLabel, ...]:
        return self.shape_label, self.params_label, self.entropy_label, self.time_label

    @property
    def two_rows(self) -> bool:
        """More than one row (the entropy under the rest)."""
        return bool(self._rows and self._rows > 1)

    def _arrange(self) -> None:
        """As few rows as fit the current width (class docstring), then the height held."""
        # Hysteresis: back to fewer rows only with SLACK_PX to spare. The time text changes on
        # every update ("14 ms" → "9.8 ms"); right at a border the strip flipped each time,
        # which re-laid out the window, resized every head's view box and rebuilt all tick
        # labels (128 tokens × 8 heads: 56 → 39 ms an update, measured).
        width = self.width()
        rows = 3
        for count, needed in ((1, self.one_line_width()), (2, self.first_row_width())):
            slack = SLACK_PX if self._rows is not None and self._rows > count else 0
            if needed + slack <= width:
                rows = count
                break
        if rows != self._rows:
            self._rows = rows
            self._place(rows)
        self._hold_height()

    def _place(self, rows: int) -> None:
        for label in self._labels():
            self._grid.removeWidget(label)
        self._grid.addWidget(self.shape_label, 0, 0)
        self._grid.addWidget(self.params_label, 0, 1)
        if rows == 1:
            self._grid.addWidget(self.entropy_label, 0, 2)
            self._grid.addWidget(self.time_label, 0, 3)
        elif rows == 2:  # the time takes the stretching column, flush right
            self._grid.addWidget(self.time_label, 0, 2)
            self._grid.addWidget(self.entropy_label, 1, 0, 1, 3)
        else:
            self._grid.addWidget(self.entropy_label, 1, 0, 1, 3)
            self._grid.addWidget(self.time_label, 2, 0, 1, 3)

    def _hold_height(self) -> None:
        """The minimum height: what the texts need now, and never less than before at this
        width and font (the class docstring)."""
        key = (self.width(), self.font().key())
        if key != self._held_for:
            self._held_for = key
            self.setMinimumHeight(0)
        needed = self._grid.totalHeightForWidth(self.width()) if self.width() > 0 else 0
        if needed > self.minimumHeight():
            self.setMinimumHeight(needed)

    def one_line_width(self) -> int:
        """The width the four labels need side by side, margins and spacing included."""
        return self._row_width(self._labels())

    def first_row_width(self) -> int:
        """The width shapes, parameters and time need side by side (the two-row layout's top)."""
        return self._row_width((self.shape_label, self.params_label, self.time_label))

    def _row_width(self, labels) -> int:
        margins = self._grid.contentsMargins()
        return (sum(label.sizeHint().width() for label in labels)
                + (len(labels) - 1) * self._grid.horizontalSpacing() + margins.left() + margins.right())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._arrange()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._arrange()
        if event.type() == QEvent.Type.LanguageChange and self._shown is not None:
            self.set_result(*self._shown)  # the texts built from the result, in the new language

    _shown = None

    def set_result(self, result: AttentionResult, auto_float32: bool = False) -> None:
        """`auto_float32`: the state computed this float64 config in float32 because no value is
        displayed (``AppState.auto_precision``); the time label says so."""
        self._shown = (result, auto_float32)
        c = result.config
        self.shape_label.setText(translate("heads.info_strip",
                                           "shapes {flow}").format(flow=result.shape_flow()))
        self.shape_label.setToolTip(translate("heads.info_strip",
                                              "X (n, d_model) → split into heads (h, n, d_head) → "
                                    "concat and W_O (n, d_model)"))
        self.params_label.setText(translate("heads.info_strip",
                                            "parameters {count}").format(count=f"{result.param_count:,}"))
        self.params_label.setToolTip(translate("heads.info_strip",
                                               "W_Q, W_K, W_V, W_O: {numbers}, the same for "
                                               "any number of heads").format(numbers=f"4 · {c.d_model} · {c.d_model}"))
        self.entropy_label.setText(entropy_text(result))
        time = translate("heads.info_strip", "{time} on {device}").format(
            time=time_text(result.elapsed_s), device=result.device)
        tip = translate("heads.info_strip", "{count} floating-point operations").format(
            count=f"{result.flop_count:,}")
        if auto_float32:
            time += " · " + translate("heads.info_strip", "float32 (auto)")
            tip += "\n" + translate("heads.info_strip",
                                     "Computed in float32 because no values are shown at this size; "
                                     "show values (or fewer tokens) for exact float64 numbers.")
        self.time_label.setText(time)
        self.time_label.setToolTip(tip)
        self._arrange()
