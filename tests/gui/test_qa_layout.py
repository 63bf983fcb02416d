"""QA pass: the window must fit a small laptop screen and never widen itself on a projector.

Found by hand: the window could not be narrower than 1221 px (the KV transport row alone was
860 px), and in presentation mode it grew to 2023 px, wider than the 1600 px screen, as topics
were opened (a 780 px combo box, the info strip at d_model 2048, the "computing…" label).
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from explorer.core import AttentionConfig, get_preset, run_kv_cache
from explorer.core.attention import forward
from explorer.gui.fonts import load_bundled_fonts, ui_font
from explorer.gui.info_strip import InfoStrip
from explorer.gui.kv_panel import KVPanel
from explorer.gui.main_window import PRESENTATION_PT
from explorer.gui.pe_panel import PEPanel
from explorer.gui.state import AppState
from explorer.gui.topics.scaling_view import ScalingView

WAIT_MS = 60_000
LAPTOP_WIDTH = 1024        # a small laptop window: 1024 x 700
PROJECTOR_WIDTH = 1280     # a common projector, presentation mode on
CONTROLS_WIDTH = 340       # the control panel's own minimum at 10 pt (it never scrolls sideways)
PAGE_BUDGET = LAPTOP_WIDTH - CONTROLS_WIDTH - 4   # what a tab page may need at 10 pt


# ----- one test per widget that held the window wide -----------------------------------------
def test_kv_panel_transport_controls_wrap_when_narrow(qtbot):
    panel = KVPanel()
    qtbot.addWidget(panel)
    panel.set_trace(run_kv_cache(get_preset("course-lab3").config))
    assert panel.minimumSizeHint().width() <= PAGE_BUDGET
    panel.set_presentation(True)
    assert panel.minimumSizeHint().width() <= PROJECTOR_WIDTH - 480
    panel.set_presentation(False)
    panel.resize(PAGE_BUDGET, 700)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(20)
    c = panel.controls
    boxes = [c.first_button, c.back_button, c.play_button, c.pause_button, c.forward_button,
             c.last_button, c.speed_spin, c.step_spin, c.head_combo, c.slider]
    rects = [w.rect().translated(w.mapTo(panel, w.rect().topLeft())) for w in boxes]
    for w, rect in zip(boxes, rects):
        assert w.isVisible() and panel.rect().contains(rect), w
    for i, a in enumerate(rects):  # wrapped rows, nothing drawn over anything else
        assert not any(a.intersects(b) for b in rects[i + 1:])


def test_kv_cache_plots_fit_a_narrow_view(qtbot):
    """A long plot title made pyqtgraph's layout wider than the view: V cache cut off."""
    panel = KVPanel()
    qtbot.addWidget(panel)
    panel.set_trace(run_kv_cache(get_preset("course-lab3").config))
    panel.resize(PAGE_BUDGET, 700)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(20)
    view = panel.cache_view
    needed = view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
    assert needed <= view.viewport().width()
    for plot in (view.k_plot, view.v_plot, view.w_plot):  # titles fit over their plots
        assert plot.titleLabel.item.boundingRect().width() <= plot.width()


def test_pe_panel_fits_beside_the_controls(qtbot):
    panel = PEPanel()
    qtbot.addWidget(panel)
    panel.set_result(forward(get_preset("course-lab3").config))
    assert panel.minimumSizeHint().width() <= PAGE_BUDGET


def test_scaling_view_combos_shrink_rather_than_widen(qtbot):
    load_bundled_fonts()
    state = AppState(get_preset("saturated-softmax").config)
    view = ScalingView(state)
    qtbot.addWidget(view)
    view.set_presentation(True)  # first shown on a projector: the combo sized to 16 pt text
    view.setFont(ui_font(PRESENTATION_PT))
    view.show()
    qtbot.waitExposed(view)
    assert view.minimumSizeHint().width() <= PROJECTOR_WIDTH - 480
    assert view.init.currentText().endswith("(randn / √d_model)")  # the full text is kept
    view.runner.wait()
    state.shutdown()


def test_info_strip_wraps_rather_than_widen_the_window(qtbot):
    strip = InfoStrip()
    qtbot.addWidget(strip)
    strip.setFont(ui_font(PRESENTATION_PT))
    config = AttentionConfig(tokens=("a", "b"), d_model=2048, n_heads=16)
    strip.set_result(forward(config))
    assert strip.minimumSizeHint().width() <= 500
    assert strip.shape_label.text() == "shapes (2, 2048) → (16, 2, 128) → (2, 2048)"
