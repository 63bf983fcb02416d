"""Two-way bindings between a topic view's controls and the Qt-free ``TopicSettings``.

One control, one field (napari's layer-control pattern, as ``gui/window/bindings.py`` does for
the PE and KV panels): a user edit writes the field through its setter; a change of the field
(from anywhere: the settings file, a test, another control) sets the control with its signals
blocked, so the control never writes back what it was just given. The field emits only on a
real change, so nothing ping-pongs. The view recomputes or redraws on the field's event, never
on the widget's signal: one path whoever changes it.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QSignalBlocker


def _follow(settings, name: str, show: Callable) -> None:
    """Call show(value) now and on every change of `settings.name`."""
    getattr(settings, name + "_changed").connect(show)
    show(getattr(settings, name))


def _quiet(widget, action: Callable) -> None:
    blocker = QSignalBlocker(widget)
    try:
        action()
    finally:
        blocker.unblock()


def bind_combo(combo, settings, name: str) -> None:
    """A combo box whose items carry the field's values as data."""
    combo.currentIndexChanged.connect(lambda _i: setattr(settings, name, combo.currentData()))

    def show(value) -> None:
        index = next((i for i in range(combo.count()) if combo.itemData(i) == value), -1)
        if index >= 0 and index != combo.currentIndex():
            _quiet(combo, lambda: combo.setCurrentIndex(index))
    _follow(settings, name, show)


def bind_check(box, settings, name: str) -> None:
    """A check box <-> a bool field."""
    box.toggled.connect(lambda on: setattr(settings, name, bool(on)))

    def show(value) -> None:
        if box.isChecked() != value:
            _quiet(box, lambda: box.setChecked(value))
    _follow(settings, name, show)


def bind_spin(spin, settings, name: str) -> None:
    """A spin box <-> an int field. A value beyond the box's range is kept in the field (the
    view clamps where it uses it); the box shows the nearest value it can."""
    spin.valueChanged.connect(lambda value: setattr(settings, name, int(value)))

    def show(value) -> None:
        if spin.value() != value:
            _quiet(spin, lambda: spin.setValue(value))
    _follow(settings, name, show)


def bind_line_edit(edit, settings, name: str) -> None:
    """A line edit <-> a str field, written when editing finishes (Enter or focus out)."""
    edit.editingFinished.connect(lambda: setattr(settings, name, edit.text()))

    def show(value) -> None:
        if edit.text() != value:
            _quiet(edit, lambda: edit.setText(value))
    _follow(settings, name, show)
