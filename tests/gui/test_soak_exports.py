"""The window's offscreen export frames stay bounded (issue 21's soak: memory grew with exports).

A kept frame is large (a 16-head grid: about 25 MB), so the FigureCache keeps the frames of one
background only: white and dark exports in turn must not keep two sets, and a discarded frame
must go whole (no top-level widget of it left: pyqtgraph's parentless context menus included).
"""

import dataclasses
import gc

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from explorer.core import PRESETS, forward
from explorer.export.naming import FigureSpec
from explorer.gui.window.exports.figures import FigureCache, ViewOptions, build_figure, release

LOOK = ViewOptions(colormap="viridis", show_values="auto", pe_positions=8, pe_dims=[0, 1], kv_head_choice=0)
SPECS = (FigureSpec("heads"), FigureSpec("head", 1), FigureSpec("kv", 1))


def _top_levels() -> int:
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    return len(QApplication.topLevelWidgets())


def _export(cache, result, background):
    for spec in SPECS:
        release(build_figure(spec, result, background=background, look=LOOK, cache=cache), cache)


def test_white_and_dark_exports_in_turn_keep_one_set_of_frames(qapp):
    result = forward(dataclasses.replace(PRESETS["course-lab3"].config, n_heads=4, d_model=32))
    cache = FigureCache()
    before = _top_levels()
    try:
        _export(cache, result, "white")
        one_set = _top_levels() - before
        assert len(cache) == 2 and one_set > 0  # a grid and a KV panel
        counts = []
        for background in ("dark", "white", "dark", "white", "dark"):
            _export(cache, result, background)
            assert len(cache) == 2
            assert {key[1] for key in cache._frames} == {background}
            counts.append(_top_levels() - before)
        assert max(counts) <= one_set, (one_set, counts)  # the other set went, whole
    finally:
        cache.clear()
    assert _top_levels() <= before


def test_a_discarded_frame_leaves_no_top_level_widget(qapp):
    """What the bound relies on: a frame built fresh and discarded goes whole (its plots'
    context menus, which have no parent, too)."""
    result = forward(dataclasses.replace(PRESETS["course-lab3"].config, n_heads=8, d_model=64))
    release(build_figure(FigureSpec("heads"), result), None)
    before = _top_levels()
    for _ in range(3):
        release(build_figure(FigureSpec("heads"), result), None)
    assert _top_levels() == before
