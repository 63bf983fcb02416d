"""Switches (scaling, causal, positional), the backend/device combo and the display options."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from ...core import AttentionConfig, DeviceInfo
from ...core.backends import canonical_device
from ...app.course.state import SHOW_VALUES_MODES, AppState
from ..plotting.i18n import QT_TRANSLATE_NOOP, Texts, on_language_change, translate

SWITCHES = (  # config field, label
    ("scaled", QT_TRANSLATE_NOOP("controls.options", "÷√d_head scaling")),
    ("causal", QT_TRANSLATE_NOOP("controls.options", "causal mask (no looking ahead)")),
    ("positional", QT_TRANSLATE_NOOP("controls.options", "add positional encoding")),
)
LOADING_LABEL = QT_TRANSLATE_NOOP("controls.options", "torch (loading…)")
CHOICES = (  # config field, label, ((value, text, tooltip), ...)
    ("init", QT_TRANSLATE_NOOP("controls.options", "weights"), (
        ("course", QT_TRANSLATE_NOOP("controls.options", "course: randn × 0.5"),
         QT_TRANSLATE_NOOP("controls.options", "the course's numbers (Lab 3)")),
        ("unit", QT_TRANSLATE_NOOP("controls.options", "unit: randn / √d_model"),
         QT_TRANSLATE_NOOP("controls.options", "as real models start: q·k has variance d_head, "
                                          "so ÷√d_head brings the scores back to variance 1")),
    )),
    ("dtype", QT_TRANSLATE_NOOP("controls.options", "precision"), (
        ("float64", QT_TRANSLATE_NOOP("controls.options", "float64 (exact)"),
         QT_TRANSLATE_NOOP("controls.options", "teaching numbers to the last digit")),
        ("float32", QT_TRANSLATE_NOOP("controls.options", "float32 (fast)"),
         QT_TRANSLATE_NOOP("controls.options", "about twice as fast at large sizes")),
    )),
)


def device_key(backend: str, device: str) -> str:
    """'backend/device' with bare "cuda" read as "cuda:0", as the core runs it."""
    return f"{backend}/{canonical_device(device)}"


class SwitchesControl(QWidget):
    """One checkbox per boolean config field."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.boxes: dict[str, QCheckBox] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        texts = Texts(self)
        for name, text in SWITCHES:
            box = QCheckBox()
            texts.set(box.setText, "controls.options", text)
            box.toggled.connect(lambda on, name=name: self._state.update(**{name: on}))
            layout.addWidget(box)
            self.boxes[name] = box
        state.config_changed.connect(self.sync)
        self.sync(state.config)

    def sync(self, config: AttentionConfig) -> None:
        for name, box in self.boxes.items():
            with QSignalBlocker(box):
                box.setChecked(getattr(config, name))

    def toggle(self, name: str) -> None:
        self._state.update(**{name: not getattr(self._state.config, name)})


class ChoicesControl(QWidget):
    """A combo box per config field with a fixed set of values (weight init, precision)."""

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.combos: dict[str, QComboBox] = {}
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        texts = Texts(self)
        for name, label, options in CHOICES:
            combo = QComboBox()
            for i, (value, text, tip) in enumerate(options):
                combo.addItem("", value)
                texts.set(lambda t, combo=combo, i=i: combo.setItemText(i, t), "controls.options", text)
                texts.set(lambda t, combo=combo, i=i: combo.setItemData(i, t, Qt.ItemDataRole.ToolTipRole),
                          "controls.options", tip)
            combo.activated.connect(
                lambda i, name=name, combo=combo: self._state.update(**{name: combo.itemData(i)}))
            row_label = QLabel()
            texts.set(row_label.setText, "controls.options", label)
            layout.addRow(row_label, combo)
            self.combos[name] = combo
        state.config_changed.connect(self.sync)
        self.sync(state.config)

    def sync(self, config: AttentionConfig) -> None:
        for name, combo in self.combos.items():
            with QSignalBlocker(combo):
                combo.setCurrentIndex(combo.findData(getattr(config, name)))


class BackendCombo(QComboBox):
    """numpy, torch CPU and each CUDA device; unavailable ones disabled with the reason as tooltip.

    Until the worker has listed devices (that imports torch) it offers numpy and a disabled
    "torch (loading…)" entry.
    """

    def __init__(self, state: AppState, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self.set_devices(state.devices)
        on_language_change(self, lambda: self.set_devices(self._state.devices))  # the loading entry
        self.activated.connect(self._on_activated)
        state.config_changed.connect(self.sync)
        state.devices_changed.connect(self.set_devices)

    def set_devices(self, devices: list[DeviceInfo] | None) -> None:
        with QSignalBlocker(self):
            self.clear()
            if devices is None:
                self._add("numpy (CPU)", device_key("numpy", "cpu"), True, "")
                self._add(translate("controls.options", LOADING_LABEL), None, False,
                          translate("controls.options", "torch is being loaded in the background"))
            else:
                for info in devices:
                    self._add(info.label, device_key(info.backend, info.device), info.available,
                              info.reason)
        self.sync(self._state.config)

    def _add(self, label: str, key, enabled: bool, reason: str) -> None:
        self.addItem(label, key)
        item = self.model().item(self.count() - 1)
        item.setEnabled(enabled)
        if reason:
            item.setToolTip(reason if enabled else translate("controls.options",
                                                             "unavailable: {reason}").format(reason=reason))

    def keys(self) -> list:
        return [self.itemData(i) for i in range(self.count())]

    def is_available(self, backend: str, device: str) -> bool:
        key = device_key(backend, device)
        return any(self.itemData(i) == key and self.model().item(i).isEnabled()
                   for i in range(self.count()))

    def sync(self, config: AttentionConfig) -> None:
        key = device_key(config.backend, config.device)
        index = self.findData(key)
        with QSignalBlocker(self):
            if index < 0:  # e.g. torch chosen in code before devices were listed
                self.addItem(key.replace("/", " "), key)
                index = self.count() - 1
            self.setCurrentIndex(index)

    def _on_activated(self, index: int) -> None:
        key = self.itemData(index)
        if key is None or not self.model().item(index).isEnabled():
            self.sync(self._state.config)
            return
        backend, device = key.split("/", 1)
        self._state.update(backend=backend, device=device)


class DisplayControl(QWidget):
    """Colormap and "show values" (auto / on / off): view options, never a recompute."""

    def __init__(self, state: AppState, colormaps: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        self._view = state.view
        texts = Texts(self)
        self.colormap_combo = QComboBox()
        for i, name in enumerate(colormaps):  # shown translated, stored by name
            self.colormap_combo.addItem("", name)
            texts.set(lambda t, i=i: self.colormap_combo.setItemText(i, t), "plotting.colormaps", name)
        self.values_combo = QComboBox()
        for i, mode in enumerate(SHOW_VALUES_MODES):
            self.values_combo.addItem("", mode)
            texts.set(lambda t, i=i: self.values_combo.setItemText(i, t), "controls.options", mode)
        texts.set(self.values_combo.setToolTip, "controls.options", QT_TRANSLATE_NOOP(
            "controls.options", "auto: numbers in the cells when they fit"))
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        names = QLabel(), QLabel()
        texts.set(names[0].setText, "controls.options", QT_TRANSLATE_NOOP("controls.options", "colormap"))
        texts.set(names[1].setText, "controls.options", QT_TRANSLATE_NOOP("controls.options", "cell values"))
        layout.addRow(names[0], self.colormap_combo)
        layout.addRow(names[1], self.values_combo)
        self.colormap_combo.currentIndexChanged.connect(
            lambda i: self._on_colormap(self.colormap_combo.itemData(i)))
        self.values_combo.currentIndexChanged.connect(
            lambda i: setattr(self._view, "show_values", self.values_combo.itemData(i)))
        self._view.colormap_changed.connect(self.sync)
        self._view.show_values_changed.connect(self.sync)
        self.sync()

    def _on_colormap(self, name: str) -> None:
        if name:
            self._view.colormap = name

    def sync(self, *_args) -> None:
        with QSignalBlocker(self.colormap_combo), QSignalBlocker(self.values_combo):
            index = self.colormap_combo.findData(self._view.colormap)
            if index >= 0:
                self.colormap_combo.setCurrentIndex(index)
            self.values_combo.setCurrentIndex(self.values_combo.findData(self._view.show_values))
