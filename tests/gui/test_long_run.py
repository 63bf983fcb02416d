"""Thousands of updates and repaints in one process end without a crash.

Guards against regressions like PySide6 6.12.0's leaked reference to None on void Qt calls,
which aborted the interpreter (none_dealloc) after a few dozen repaints.
"""

import random

from PySide6.QtWidgets import QApplication

from explorer.core import AttentionConfig
from window_support import assert_window_shows_state, settle

UPDATES = 3000


def test_3000_updates_each_computed_and_repainted(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=16, n_heads=4))
    state, grid = window.state, window.heads_grid
    viewport = grid.graphics_view().viewport()
    shown = []
    state.result_changed.connect(shown.append)
    rng = random.Random(7)
    for i in range(UPDATES):
        if i % 10 == 9:
            state.update(causal=not state.config.causal)
        else:
            state.update(seed=rng.randrange(2**32))
        while not state.is_idle():
            state.worker.wait_idle(10)  # blocks without holding the GIL the worker needs
            QApplication.processEvents()
        viewport.repaint()  # synchronous paint of every heatmap, its values and marks
        if i % 500 == 0:
            window.info_strip.repaint()
    settle(qtbot, window)
    assert len(shown) == UPDATES
    assert_window_shows_state(window)
