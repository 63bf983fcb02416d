"""Two-way bindings between the window's views and the Qt-free ``ViewState``.

One view setting, one field: the widget writes the field through its setter when the user changes
it, and follows the field when something else sets it. ``ViewState`` emits only on a real change,
so a widget's own echo stops at the first round trip (napari's layer-control pattern). The export
reads these fields, never the widgets (see ``from_window.view_options``).
"""

from __future__ import annotations

from ...app.course.state import ViewState


def bind_pe_panel(view: ViewState, panel) -> None:
    """PE rows and curve columns <-> view.pe_positions / view.pe_dims."""
    def from_panel(positions: int, dims: list[int]) -> None:
        with view.batch():
            view.pe_positions, view.pe_dims = positions, tuple(dims)
    panel.shown_changed.connect(from_panel)
    view.pe_positions_changed.connect(
        lambda n: n is not None and n != panel.positions_spin.value() and panel.set_positions(n))
    view.pe_dims_changed.connect(
        lambda dims: dims is not None and list(dims) != panel.dims and panel.set_dims(dims))


def bind_kv_panel(view: ViewState, panel) -> None:
    """The KV panel's head list and step <-> view.kv_head_choice / view.kv_step."""
    panel.head_choice_changed.connect(lambda index: setattr(view, "kv_head_choice", index))
    view.kv_head_choice_changed.connect(panel.set_head_choice)
    panel.step_changed.connect(lambda step: setattr(view, "kv_step", step))
    view.kv_step_changed.connect(lambda step: step != panel.step and panel.set_step(step))
