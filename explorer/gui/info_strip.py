"""The strip under the heads: shape flow, parameter count, entropy per head, time and device.

It describes the picture on screen (``result.config``), which during a fast slider drag can be
one step behind the controls.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from ..core import AttentionResult
from .wrapping_label import WrappingLabel

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
        shown += f" … (mean {per_head.mean():.2f})"
    return f"entropy per head (nats; ln n = {math.log(result.config.n_tokens):.2f}): {shown}"


def time_text(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.0f} ms"


class InfoStrip(QWidget):
    """Four labels, refreshed from each new result."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        # They wrap when short of room: on one line at 16 pt and d_model 2048 the strip was
        # ~900 px, which made the window wider than a projector's screen in presentation mode.
        self.shape_label = WrappingLabel()
        self.params_label = WrappingLabel()
        self.entropy_label = QLabel()
        self.entropy_label.setWordWrap(True)
        self.entropy_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.time_label = WrappingLabel()
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        layout.setSpacing(18)
        layout.addWidget(self.shape_label)
        layout.addWidget(self.params_label)
        layout.addWidget(self.entropy_label, 1)
        layout.addWidget(self.time_label)
        for label in (self.shape_label, self.params_label, self.entropy_label, self.time_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.shape_label.setText("computing…")

    def set_result(self, result: AttentionResult) -> None:
        c = result.config
        self.shape_label.setText(f"shapes {result.shape_flow()}")
        self.shape_label.setToolTip("X (n, d_model) → split into heads (h, n, d_head) → "
                                    "concat and W_O (n, d_model)")
        self.params_label.setText(f"parameters {result.param_count:,}")
        self.params_label.setToolTip(f"W_Q, W_K, W_V, W_O: 4 · {c.d_model} · {c.d_model}, "
                                     "the same for any number of heads")
        self.entropy_label.setText(entropy_text(result))
        self.time_label.setText(f"{time_text(result.elapsed_s)} on {result.device}")
        self.time_label.setToolTip(f"{result.flop_count:,} floating-point operations")
