"""Window helpers for the tests: build a window on a fresh state, wait, check the picture.

`make_window` (tests/conftest.py) hands out a `WindowFactory`; tests import the checks from here.
"""

from __future__ import annotations

import random

import numpy as np

from explorer.core import forward, validate
from explorer.gui.window.main_window import MainWindow
from explorer.app.course.state import AppState
from explorer.app.course.compute import ComputeWorker

SETTLE_MS = 30_000


class WindowFactory:
    def __init__(self, qtbot):
        self.qtbot = qtbot
        self.made: list[tuple[AppState, MainWindow]] = []

    def __call__(self, config=None, compute=None, devices=None, show=True, seed=0,
                 size: tuple[int, int] | None = None, defer: bool = False) -> MainWindow:
        kw = {}
        if compute is not None:
            kw["compute"] = compute
        if devices is not None:
            kw["devices"] = lambda: devices
        state = AppState(config, worker=ComputeWorker(**kw))
        window = MainWindow(state, rng=random.Random(seed), defer_learned=defer)
        self.qtbot.addWidget(window)
        self.made.append((state, window))
        if size is not None:
            window.resize(*size)
        if show:
            window.show()
            self.qtbot.waitExposed(window)
        settle(self.qtbot, window)
        return window

    def close_all(self) -> None:
        for state, window in self.made:
            window.close()
            state.shutdown()


def settle(qtbot, window: MainWindow) -> None:
    """Wait until the worker is idle and its last outcome has been handled."""
    qtbot.waitUntil(window.state.is_idle, timeout=SETTLE_MS)


def assert_window_shows_state(window: MainWindow) -> None:
    """state.config is valid, the result is for it, and each visible heatmap is its weights."""
    state = window.state
    validate(state.config)
    result = state.result
    assert result.config == state.config
    expected = forward(state.config).weights if state.config.backend == "numpy" else result.weights
    grid = window.heads_grid
    visible = grid.visible_heads()
    assert visible, "no head drawn"
    if window.focus_head() is None:
        assert visible == list(range(min(state.config.n_heads, 16)))
    for head in visible:
        # exact: the heatmap shows result.weights[head] itself, and forward() of the same config
        # with the same numpy code is bit-identical (a wrong head or seed is off by ~0.1)
        np.testing.assert_array_equal(grid.head_image(head), expected[head])
