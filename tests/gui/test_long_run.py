"""A thousand updates, each computed and painted (thousands of paints), end without a crash.

Guards against regressions like PySide6 6.12.0's leaked reference to None on void Qt calls,
which aborted the interpreter (none_dealloc) after a few dozen repaints: every update here makes
hundreds of void Qt calls (new images, titles, ticks, marks) and one or two paints of the grid.
The window is the smallest it can be and the model small (two heads): what is exercised is the
number of calls and paints, not their size.
"""

import random

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from explorer.core import AttentionConfig
from window_support import assert_window_shows_state, settle

UPDATES = 1000


class PaintCounter(QObject):
    def __init__(self, widget):
        super().__init__(widget)
        self.paints = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def test_1000_updates_each_computed_and_repainted(qtbot, make_window):
    window = make_window(AttentionConfig(d_model=8, n_heads=2), size=(640, 480))  # (clamped to its minimum size)
    state, grid = window.state, window.heads_grid
    viewport = grid.graphics_view().viewport()
    counter = PaintCounter(viewport)
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
    assert counter.paints >= UPDATES  # each update painted (a hidden grid would paint nothing)
    assert_window_shows_state(window)
