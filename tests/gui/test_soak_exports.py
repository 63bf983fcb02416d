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
from explorer.gui.window.exports.figures import (ExportOptions, FigureCache, ViewOptions, build_figure,
                                                 figure_bytes, frame_bytes, release)

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


def _png(cache, result):
    frame = build_figure(FigureSpec("heads"), result, look=LOOK, cache=cache)
    try:
        return figure_bytes(frame, ExportOptions(fmt="png"))
    finally:
        release(frame, cache)


def test_the_cache_stays_under_its_byte_budget_with_16_head_grids(qapp):
    """A 16-head grid at the CLI's 400 px a head (1714 x 1624 px, ~27 MB by frame_bytes) does not
    fit a 12 MB budget: each export builds it fresh and frees it; a 4-head grid (~7 MB) fits and is
    kept. Both give the figure a fresh, uncached build gives."""
    sixteen = forward(dataclasses.replace(PRESETS["course-lab3"].config, n_heads=16, d_model=64))
    four = forward(dataclasses.replace(PRESETS["course-lab3"].config, n_heads=4, d_model=32, seed=5))
    budget = 12 << 20
    cache = FigureCache(budget_bytes=budget)
    before = _top_levels()
    try:
        for _ in range(3):
            assert _png(cache, sixteen) == _png(None, sixteen)
            assert len(cache) == 0 and cache.kept_bytes() == 0
            assert _top_levels() <= before  # freed whole, nothing kept
        first = _png(cache, four)
        assert len(cache) == 1 and 0 < cache.kept_bytes() <= budget
        kept = cache.get(("HeadsGrid", "white"))
        assert _png(cache, four) == first == _png(None, four)
        assert cache.get(("HeadsGrid", "white")) is kept  # refilled, not rebuilt
        del kept  # (a Python reference keeps its plots' parentless context menus)
        assert _png(cache, sixteen) == _png(None, sixteen)  # the kept grid refilled with 16 heads: too big now
        assert len(cache) == 0 and cache.kept_bytes() == 0
    finally:
        cache.clear()
    assert _top_levels() <= before


def test_the_least_recently_used_frame_goes_first(qapp):
    """A grid and a KV panel that do not fit together: the one used last stays."""
    result = forward(dataclasses.replace(PRESETS["course-lab3"].config, n_heads=4, d_model=32))
    grid = build_figure(FigureSpec("heads"), result, look=LOOK)
    kv = build_figure(FigureSpec("kv", 1), result, look=LOOK)
    sizes = frame_bytes(grid, 4), frame_bytes(kv)
    release(grid, None)
    release(kv, None)
    cache = FigureCache(budget_bytes=max(sizes) + min(sizes) // 2)
    try:
        _export(cache, result, "white")  # heads, head 1, then kv: the grid is the older
        assert [key[0] for key in cache._frames] == ["KVPanel"]
        assert cache.kept_bytes() <= cache.budget_bytes
        _png(cache, result)  # the grid again: now the KV panel is the older
        assert [key[0] for key in cache._frames] == ["HeadsGrid"]
    finally:
        cache.clear()
