"""ViewState and the Qt-free events: one event per real change, batches emit once, no Qt."""

import subprocess
import sys

import pytest

from explorer.app.observable import Event
from explorer.app.course.state import ViewState


def test_a_field_emits_only_when_it_really_changes():
    view, seen = ViewState(), []
    view.colormap_changed.connect(seen.append)
    view.colormap = "plasma"
    view.colormap = "plasma"  # an echo: nothing
    view.colormap = "magma"
    assert seen == ["plasma", "magma"] and view.colormap == "magma"


def test_a_bad_value_is_refused_and_nothing_emitted():
    view, seen = ViewState(), []
    view.show_values_changed.connect(seen.append)
    with pytest.raises(ValueError):
        view.show_values = "sometimes"
    assert view.show_values == "auto" and seen == []


def test_a_batch_emits_each_changed_field_once_with_its_final_value():
    view, seen = ViewState(), []
    view.pe_positions_changed.connect(lambda n: seen.append(("rows", n)))
    view.kv_head_choice_changed.connect(lambda i: seen.append(("head", i)))
    with view.batch():
        view.pe_positions = 3
        view.pe_positions = 7
        view.kv_head_choice = 2
        assert seen == []
    assert seen == [("rows", 7), ("head", 2)]


def test_a_slot_of_a_deleted_widget_is_dropped_not_fatal():
    event, seen = Event(), []

    def deleted(_):
        raise RuntimeError("Internal C++ object (QLabel) already deleted.")
    event.connect(deleted)
    event.connect(seen.append)
    event.emit(1)
    event.emit(2)
    assert seen == [1, 2]


def test_a_slot_may_take_fewer_arguments_as_with_qt_signals():
    event, seen = Event(), []
    event.connect(lambda: seen.append("none"))
    event.connect(seen.append)
    event.connect(lambda *args: seen.append(args))
    event.emit("x")
    assert seen == ["none", "x", ("x",)]


def test_the_application_layer_loads_no_qt():
    code = ("import sys, explorer.app.course.state, explorer.app.settings, explorer.app.runner, "
            "explorer.app.course.topics, explorer.app.report; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
