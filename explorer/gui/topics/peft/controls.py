"""The PEFT topic's controls, each bound to one field of the topic settings (`peft_*`).

Shown: method, head, adapter seed and layers for every method; LoRA adds its matrix, r, α,
rsLoRA, B's start and the training steps (those only while B is trained); IA³ its strength;
prefix and prompt tuning the virtual tokens. Each label wraps together with its box (a
FlowLayout: one row at 1024 px was wider than the tab beside the controls dock).
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel,
                               QSpinBox, QVBoxLayout, QWidget)

from ....core.config import SEED_MAX
from ....core.topics.peft import MAX_ALPHA, MAX_IA3_STRENGTH, MAX_LAYERS, MAX_STEPS, MAX_VIRTUAL
from ...plotting.flow_layout import FlowLayout
from ...plotting.i18n import QT_TRANSLATE_NOOP, translate
from ..bindings import bind_check, bind_combo, bind_spin

CONTEXT = "topics.peft_view"
METHODS = (("lora", "LoRA"), ("ia3", "IA³"),
           ("prefix", QT_TRANSLATE_NOOP("topics.peft_view", "prefix tuning")),
           ("prompt", QT_TRANSLATE_NOOP("topics.peft_view", "prompt tuning")))
TARGETS = (("q", "W_Q"), ("k", "W_K"), ("v", "W_V"), ("o", "W_O"))
B_STARTS = (("zero", QT_TRANSLATE_NOOP("topics.peft_view", "B = 0 (peft's start)")),
            ("seed", QT_TRANSLATE_NOOP("topics.peft_view", "B drawn by the seed")),
            ("trained", QT_TRANSLATE_NOOP("topics.peft_view", "B trained (toy task)")))
GROUP_SPACING_PX = 10


def _group(*widgets: QWidget) -> QWidget:
    """A label and its box, side by side, wrapping together."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    for widget in widgets:
        row.addWidget(widget)
    return box


def _spin(low: int, high: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setKeyboardTracking(False)  # one recompute when typing ends, not one per digit
    return spin


def bind_double(spin: QDoubleSpinBox, settings, name: str) -> None:
    """A double spin box <-> a float field (bindings.bind_spin's pattern: the field's change
    sets the box with its signals blocked)."""
    spin.valueChanged.connect(lambda value: setattr(settings, name, round(float(value), 2)))

    def show(value) -> None:
        if abs(spin.value() - value) > 1e-9:
            blocker = QSignalBlocker(spin)
            spin.setValue(value)
            blocker.unblock()
    getattr(settings, name + "_changed").connect(show)
    show(getattr(settings, name))


class PeftControls(QWidget):
    """Every control of the PEFT topic (see the module docstring); `view` supplies tr_label."""

    def __init__(self, view, topics):
        super().__init__()
        self.topics = topics
        self.method = self._combo(METHODS, "peft_method")
        self.head = _spin(0, 0)
        self.seed = _spin(0, min(SEED_MAX, 2**31 - 1))
        self.layers = _spin(1, MAX_LAYERS)
        self.target = self._combo(TARGETS, "peft_target")
        self.rank = _spin(1, 1)
        self.alpha = _spin(0, MAX_ALPHA)
        self.rslora = QCheckBox("rsLoRA (α/√r)")
        self.b_init = self._combo(B_STARTS, "peft_b_init")
        self.steps = _spin(0, MAX_STEPS)
        self.strength = QDoubleSpinBox()
        self.strength.setRange(0.0, MAX_IA3_STRENGTH)
        self.strength.setSingleStep(0.05)
        self.strength.setDecimals(2)
        self.strength.setKeyboardTracking(False)
        self.virtual = _spin(1, MAX_VIRTUAL)
        for spin, name in ((self.head, "peft_head"), (self.seed, "peft_seed"),
                           (self.layers, "peft_layers"), (self.rank, "peft_rank"),
                           (self.alpha, "peft_alpha"), (self.steps, "peft_steps"),
                           (self.virtual, "peft_virtual")):
            bind_spin(spin, topics, name)
        bind_check(self.rslora, topics, "peft_rslora")
        bind_double(self.strength, topics, "peft_ia3_strength")
        self.groups = {
            "method": _group(self.method),
            "target": _group(view.tr_label("topics.peft_view", "on"), self.target),
            "rank": _group(view.tr_label("topics.peft_view", "rank r"), self.rank),
            "alpha": _group(QLabel("α"), self.alpha),
            "rslora": _group(self.rslora),
            "b_init": _group(self.b_init),
            "steps": _group(view.tr_label("topics.peft_view", "steps"), self.steps),
            "strength": _group(view.tr_label("topics.peft_view", "strength"), self.strength),
            "virtual": _group(view.tr_label("topics.peft_view", "virtual tokens v"), self.virtual),
            "head": _group(view.tr_label("topics.peft_view", "head"), self.head),
            "seed": _group(view.tr_label("topics.peft_view", "adapter seed"), self.seed),
            "layers": _group(view.tr_label("topics.peft_view", "layers"), self.layers),
        }
        self.flow = FlowLayout(spacing=GROUP_SPACING_PX)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self.flow)
        topics.peft_method_changed.connect(lambda _m: self.arrange())
        topics.peft_b_init_changed.connect(lambda _b: self.arrange())
        self.retranslate()
        self.arrange()

    def _combo(self, items, name: str) -> QComboBox:
        combo = QComboBox()
        for key, _text in items:
            combo.addItem("", key)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        combo._items = items
        bind_combo(combo, self.topics, name)
        return combo

    def retranslate(self) -> None:
        for combo in (self.method, self.target, self.b_init):
            for i, (_key, text) in enumerate(combo._items):
                combo.setItemText(i, translate(CONTEXT, text))

    def shown_groups(self) -> list[str]:
        """The groups the current method uses, in the order they are laid out."""
        method = self.topics.peft_method
        names = ["method"]
        if method == "lora":
            names += ["target", "rank", "alpha", "rslora", "b_init"]
            if self.topics.peft_b_init == "trained":
                names.append("steps")
        elif method == "ia3":
            names.append("strength")
        else:
            names.append("virtual")
        return names + ["head", "seed", "layers"]

    def arrange(self) -> None:
        """Lay out the groups the current method uses; hide the others."""
        while self.flow.count():
            self.flow.takeAt(0)
        shown = self.shown_groups()
        for name, group in self.groups.items():
            group.setVisible(name in shown)
        for name in shown:
            self.flow.addWidget(self.groups[name])
        self.flow.invalidate()
        self.updateGeometry()

    def set_sizes(self, d_model: int, n_heads: int) -> None:
        """The boxes' ranges for a new result (signals blocked: the fields keep their values,
        the job clamps r, the view the head)."""
        for spin, high, value in ((self.rank, d_model, self.topics.peft_rank),
                                  (self.head, n_heads - 1, self.topics.peft_head)):
            blocker = QSignalBlocker(spin)
            spin.setRange(spin.minimum(), max(spin.minimum(), high))
            spin.setValue(value)
            blocker.unblock()

    def lesson_widgets(self) -> dict:
        return {"peft_method": self.method, "peft_target": self.target, "peft_rank": self.rank,
                "peft_b_init": self.b_init}
