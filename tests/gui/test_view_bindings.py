"""The window's view settings live in ViewState: widgets write them, follow them, export reads them."""

from explorer.core import get_preset
from explorer.gui.window.exports.from_window import available_specs, view_options

WAIT_MS = 30_000


def test_pe_rows_and_kv_head_go_both_ways_and_reach_the_export(qtbot, make_window):
    window = make_window(get_preset("course-lab3").config)
    view, pe, kv = window.state.view, window.pe_panel, window.kv_panel
    window.tabs.setCurrentWidget(pe)
    qtbot.waitUntil(lambda: view.pe_positions == window.state.config.n_tokens, timeout=WAIT_MS)
    pe.positions_spin.setValue(9)                     # the user edits the widget ...
    assert view.pe_positions == 9                      # ... the state follows
    view.pe_positions = 4                              # something else sets the state ...
    assert pe.positions_spin.value() == 4              # ... the widget follows
    pe.set_dims([1, 3])
    assert view.pe_dims == (1, 3)
    window.tabs.setCurrentWidget(kv)
    qtbot.waitUntil(lambda: kv.trace is not None, timeout=WAIT_MS)
    kv.controls.head_combo.setCurrentIndex(2)
    assert view.kv_head_choice == 2
    view.kv_head_choice = 1
    assert kv.controls.head_combo.currentIndex() == 1
    kv.set_step(3)
    assert view.kv_step == 3
    view.kv_step = 2
    assert kv.step == 2
    assert ("KV cache at step 2", ("kv", 2)) in [(label, (s.kind, s.index))
                                                  for label, s in available_specs(window)]
    look = view_options(window)
    assert (look.pe_positions, look.pe_dims, look.kv_head_choice) == (4, [1, 3], 1)


def test_the_focused_head_is_state(qtbot, make_window):
    window = make_window(get_preset("course-lab3").config)
    window.set_focus_head(1)
    assert window.state.view.focus_head == 1 == window.focus_head()
    window.set_focus_head(None)
    assert window.state.view.focus_head is None
