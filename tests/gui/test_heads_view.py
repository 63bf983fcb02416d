"""HeadsGrid: read the drawn data back from its items and compare with the core's numbers."""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage

from explorer.core import PRESETS, AttentionConfig, forward
from explorer.gui.plotting.cell_text_item import CellTextItem
from explorer.gui.plotting.colormaps import COLORMAPS, dark_text_mask, get_colormap
from explorer.gui.heads.grid import MAX_GRID_HEADS, choose_columns
from explorer.app.pictures import CoursePicture
from explorer.gui.plotting.fonts import LATIN_FAMILY
from qt_settle import painted, run_posted_events

WORDS = "the cat that the dog chased ran up the old tree and sat there on a mat".split()


def make_result(n_tokens=4, n_heads=2, causal=False, padding=(), seed=1, tokens=None):
    tokens = tuple(tokens or (WORDS * 40)[:n_tokens])
    return forward(AttentionConfig(tokens=tokens, d_model=4 * n_heads, n_heads=n_heads,
                                   seed=seed, causal=causal, padding=frozenset(padding)))


@pytest.fixture
def lab3():
    return forward(PRESETS["course-lab3"].config)


def settle(qtbot, widget):
    painted(widget)  # pyqtgraph lays out (posted events) and paints, now


def pixel_at(image: QImage, widget, view, scene_pos: QPointF) -> QColor:
    """Colour of the grabbed widget at a scene position of its graphics view."""
    point = view.mapTo(widget, view.mapFromScene(scene_pos))
    ratio = image.devicePixelRatio()
    return image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))


def cell_pixel(grid, image, head, row, col, dx=0.0, dy=0.0):
    panel = grid.panel(head)
    scene = panel.plot.getViewBox().mapViewToScene(QPointF(col + dx, row + dy))
    return pixel_at(image, grid, grid.graphics_view(), scene)


# -- data ------------------------------------------------------------------------------------
def test_each_head_shows_its_weights(grid, lab3):
    grid.set_result(CoursePicture(lab3))
    for head in range(2):
        assert np.array_equal(grid.head_image(head), lab3.weights[head])
        assert grid.panel(head).image.image is grid.head_image(head)
    assert round(float(grid.head_image(0)[0, 2]), 2) == 0.57  # the course's 나는 -> 버스로


def test_images_follow_new_results_and_plots_are_reused(grid):
    first = make_result(6, 4, seed=1)
    grid.set_result(CoursePicture(first))
    plots = grid.plot_items()
    second = make_result(9, 4, seed=2, causal=True)
    grid.set_result(CoursePicture(second))
    assert grid.plot_items() == plots  # same PlotItems: no rebuild for the same head count
    for head in range(4):
        assert np.array_equal(grid.head_image(head), second.weights[head])
        assert grid.head_image(head).shape == (9, 9)


@pytest.mark.parametrize("n_heads", [1, 2, 3, 8, 16])
def test_grid_reflows_to_the_head_count(grid, n_heads):
    grid.set_result(CoursePicture(make_result(5, 2)))
    grid.set_result(CoursePicture(make_result(5, n_heads)))
    plots = grid.plot_items()
    assert len(plots) == n_heads
    assert grid.visible_heads() == list(range(n_heads))
    rows_cols = {(grid._grid.items[p][0]) for p in plots}  # each plot in its own grid slot
    assert len(rows_cols) == n_heads


def test_more_heads_than_the_grid_shows(grid):
    result = make_result(4, 32)
    grid.set_result(CoursePicture(result))
    assert len(grid.plot_items()) == MAX_GRID_HEADS
    assert grid._notice.isVisible()
    grid.set_focus_head(20)
    assert len(grid.plot_items()) == 1
    assert np.array_equal(grid.head_image(20), result.weights[20])


def test_enlarging_one_head_after_another_keeps_as_many_panels_as_shown_at_once(grid, qtbot):
    """Each head ever enlarged kept its own panel (~0.5 MB): 22 for 12 shown in the soak. Now a
    panel no longer wanted is taken by the next head, and every head still shows its own data."""
    result = make_result(4, 32)
    grid.set_result(CoursePicture(result))
    for head in range(MAX_GRID_HEADS, 32):
        grid.set_focus_head(head)
        assert grid.plot_items() == [grid.panel(head).plot]
        assert np.array_equal(grid.head_image(head), result.weights[head])
    assert len(grid._panels) == MAX_GRID_HEADS
    grid.set_focus_head(None)
    settle(qtbot, grid)
    plots = grid.plot_items()
    assert len(set(plots)) == MAX_GRID_HEADS and len(grid._panels) == MAX_GRID_HEADS
    assert len({grid._grid.items[p][0] for p in plots}) == MAX_GRID_HEADS  # each in its own slot
    for head in range(MAX_GRID_HEADS):
        assert grid.panel(head).head == head
        assert np.array_equal(grid.head_image(head), result.weights[head])
    assert grid.panel(3).plot.titleLabel.text.startswith("head 3")


@pytest.mark.parametrize("count,width,height", [(1, 800, 600), (2, 1200, 500), (3, 900, 900),
                                                (8, 1600, 900), (16, 1600, 1000), (5, 300, 1200)])
def test_choose_columns_fits_every_head(count, width, height):
    cols = choose_columns(count, width, height)
    assert 1 <= cols <= count
    assert cols * -(-count // cols) >= count


def test_choose_columns_follows_the_aspect():
    assert choose_columns(2, 1600, 500) == 2
    assert choose_columns(2, 500, 1600) == 1
    assert choose_columns(4, 1000, 1000) == 2


def _count_core_computes(monkeypatch) -> list[str]:
    """Count every call of the core's compute functions, wherever a module looks them up.

    `from ...core import forward` binds the function in the importing module, so patching
    explorer.core.forward alone would miss it: each function is replaced by a counting wrapper
    under every name that holds it in every loaded explorer module (the grid's included)."""
    import sys

    from explorer.core import attention, kv_cache, masks, positional, stats
    from explorer.core.backends import numpy_ops
    computes = [attention.forward, attention.model_input, numpy_ops.self_attention,
                numpy_ops.attend, masks.masked_softmax, stats.head_stats, kv_cache.run_kv_cache,
                positional.sinusoidal_table, positional.similarity, positional.offset_map]
    calls: list[str] = []

    def counting(function):
        def wrapper(*args, **kwargs):
            calls.append(function.__name__)
            return function(*args, **kwargs)
        return wrapper

    wrappers = {id(f): counting(f) for f in computes}  # (computes keeps the ids alive)
    for module in [m for name, m in sys.modules.items() if name.startswith("explorer")]:
        for name, value in list(vars(module).items()):
            if id(value) in wrappers:
                monkeypatch.setattr(module, name, wrappers[id(value)])
    return calls


def test_set_result_never_computes(grid, qtbot, monkeypatch, lab3):
    other = make_result(6, 4, causal=True)  # computed here, before the counting starts
    calls = _count_core_computes(monkeypatch)
    grid.set_result(CoursePicture(lab3))
    grid.set_result(CoursePicture(other))  # a new shape: the grid rebuilds its panels
    settle(qtbot, grid)  # laid out and painted
    grid.set_focus_head(1)
    grid.hover_text(1, 0, 1)
    assert calls == [], f"the heads grid computed: {calls}"
    import explorer.core
    explorer.core.forward(lab3.config)  # the counter sees a compute looked up where code looks
    assert {"forward", "self_attention", "attend", "masked_softmax", "head_stats"} <= set(calls)


# -- axes ------------------------------------------------------------------------------------
def _labels(axis):
    ticks = sorted(t for level in axis._tickLevels for t in level)
    return [pos for pos, _ in ticks], [text for _, text in ticks]


def test_tick_labels_are_the_tokens(grid, lab3):
    grid.set_result(CoursePicture(lab3))
    for name in ("bottom", "left"):
        positions, texts = _labels(grid.plot_items()[0].getAxis(name))
        assert positions == [0.0, 1.0, 2.0, 3.0]
        assert texts == list(lab3.tokens)


def test_hangul_tick_labels_use_the_bundled_font(grid, lab3):
    grid.set_result(CoursePicture(lab3))
    for name in ("bottom", "left"):
        font = grid.plot_items()[0].getAxis(name).style["tickFont"]
        assert font.families()[:2] == [LATIN_FAMILY, "NanumGothic"]  # digits, then Hangul


def test_long_tokens_are_abbreviated_and_blanks_visible(grid):
    tokens = ("supercalifragilistic", " ", "ok")
    grid.set_result(CoursePicture(make_result(tokens=tokens)))
    _, texts = _labels(grid.plot_items()[0].getAxis("bottom"))
    assert texts[0].endswith("…") and len(texts[0]) <= 7
    assert texts[1] == "␣" and texts[2] == "ok"


def test_query_zero_is_at_the_top(grid, qtbot, lab3):
    grid.set_result(CoursePicture(lab3))
    settle(qtbot, grid)
    panel = grid.panel(0)
    top = panel.cell_scene_pos(0, 0).y()
    bottom = panel.cell_scene_pos(3, 0).y()
    assert top < bottom


# -- masks -----------------------------------------------------------------------------------
def test_masked_cells_look_different_from_zero_weights(grid, qtbot):
    result = make_result(6, 2, causal=True, seed=3)
    grid.set_result(CoursePicture(result))
    settle(qtbot, grid)
    image = grid.grab().toImage()
    weights = result.weights[0]
    allowed = result.mask
    r, c = np.unravel_index(np.argmin(np.where(allowed, weights, np.inf)), weights.shape)
    assert weights[r, c] < 0.01  # a (near) zero weight on an allowed cell
    zero_colour = cell_pixel(grid, image, 0, r, c, dx=-0.3, dy=-0.3)
    masked_colour = cell_pixel(grid, image, 0, 0, 5, dx=-0.3, dy=-0.3)  # causal: key 5 > query 0
    assert not allowed[0, 5]
    assert abs(zero_colour.lightness() - masked_colour.lightness()) > 60
    cmap_zero = get_colormap("viridis").map(0.0, mode="qcolor")
    assert abs(zero_colour.red() - cmap_zero.red()) < 30
    # the mask item covers exactly the masked cells
    assert np.array_equal(grid.panel(0).mask.masked(), ~allowed)


def test_no_mask_drawn_without_a_mask(grid, lab3):
    grid.set_result(CoursePicture(lab3))
    assert not grid.panel(0).mask.isVisible()


def test_fully_masked_rows_are_marked(grid):
    result = make_result(5, 2, causal=True, padding={0})  # query 0 may only see the padded key
    assert result.empty_rows[0]
    grid.set_result(CoursePicture(result))
    marks = grid.panel(0).empty_rows.path()
    assert not marks.isEmpty()
    bounds = marks.boundingRect()
    # exact: the marks run along the half-integer cell edges (no rounding anywhere)
    assert (bounds.top(), bounds.height()) == (-0.5, 1.0)
    assert "every key is masked" in grid.hover_text(0, 0, 1)


def test_greyscale_uses_another_mask_colour(grid, qtbot):
    result = make_result(4, 2, causal=True)
    grid.set_result(CoursePicture(result))
    settle(qtbot, grid)
    before = cell_pixel(grid, grid.grab().toImage(), 0, 0, 3, dx=-0.3, dy=-0.3)
    assert before.red() == before.green() == before.blue()  # grey on a colour map
    grid.set_colormap("greyscale")
    settle(qtbot, grid)
    after = cell_pixel(grid, grid.grab().toImage(), 0, 0, 3, dx=-0.3, dy=-0.3)
    assert after.blue() > after.red() + 30  # not a grey on a grey map
    assert grid.panel(0).mask.colour() == after


def test_mask_with_many_runs_is_drawn_from_an_image():
    from PySide6.QtGui import QColor, QImage
    from explorer.gui.plotting.mask_item import MAX_RUNS, fill_of, masked_runs
    causal = ~np.tri(6, dtype=bool)
    rows, starts, stops = masked_runs(causal)
    assert rows.tolist() == [0, 1, 2, 3, 4] and stops.tolist() == [6] * 5
    assert starts.tolist() == [1, 2, 3, 4, 5]
    checker = (np.indices((200, 200)).sum(axis=0) % 2).astype(bool)  # 20,000 runs
    assert len(masked_runs(checker)[0]) > MAX_RUNS
    image = fill_of(checker, QColor(200, 200, 200))
    assert isinstance(image, QImage) and image.size().width() == 200
    assert image.pixelColor(1, 0).alpha() == 255 and image.pixelColor(0, 0).alpha() == 0


# -- values ----------------------------------------------------------------------------------
def _values_item(grid, head):
    items = [i for i in grid.panel(head).plot.items if isinstance(i, CellTextItem)]
    assert len(items) == 1  # one item paints every label of a head
    return items[0]


def test_values_printed_up_to_twelve_tokens_in_auto_mode(grid):
    result = make_result(12, 2, causal=True)
    grid.set_result(CoursePicture(result))
    item = _values_item(grid, 1)
    assert item.isVisible()
    labels = item.labels()
    assert len(labels) == int(result.mask.sum())  # masked cells get no label
    for r, c, text in labels:
        assert text == f"{result.weights[1, r, c]:.2f}"
    grid.set_result(CoursePicture(make_result(13, 2)))
    assert not _values_item(grid, 1).isVisible()
    grid.set_show_values("on")
    assert _values_item(grid, 1).isVisible()
    grid.set_show_values("off")
    grid.set_result(CoursePicture(make_result(4, 2)))
    assert not _values_item(grid, 0).isVisible()
    with pytest.raises(ValueError):
        grid.set_show_values("sometimes")


def test_values_are_painted(grid, qtbot, lab3):
    grid.set_result(CoursePicture(lab3))  # head 0, cell (1, 0): 0.12 on dark purple -> white text
    settle(qtbot, grid)

    def lightness_across_cell(image):
        return [cell_pixel(grid, image, 0, 1, 0, dx=dx).lightness()
                for dx in np.linspace(-0.3, 0.3, 40)]
    with_values = lightness_across_cell(grid.grab().toImage())
    grid.set_show_values("off")
    settle(qtbot, grid)
    without = lightness_across_cell(grid.grab().toImage())
    assert max(without) - min(without) < 10   # a plain cell
    assert max(with_values) > 150             # white glyph pixels on a dark cell


def test_text_colour_contrasts_with_the_cell():
    dark = dark_text_mask("viridis", np.array([0.0, 0.1, 0.9, 1.0]))  # purple ... yellow
    assert dark.tolist() == [False, False, True, True]
    assert dark_text_mask("greyscale", np.array([0.0, 1.0])).tolist() == [False, True]


# -- colour ----------------------------------------------------------------------------------
def test_colormap_change_changes_pixels(grid, qtbot, lab3):
    grid.set_result(CoursePicture(lab3))
    settle(qtbot, grid)
    before = cell_pixel(grid, grid.grab().toImage(), 1, 0, 1, dx=-0.35, dy=-0.35)
    grid.set_colormap("magma")
    settle(qtbot, grid)
    after = cell_pixel(grid, grid.grab().toImage(), 1, 0, 1, dx=-0.35, dy=-0.35)
    assert before != after
    expected = get_colormap("magma").map(float(lab3.weights[1, 0, 1]), mode="qcolor")
    assert abs(after.red() - expected.red()) < 12 and abs(after.green() - expected.green()) < 12
    assert grid.colorbar().colorMap() is get_colormap("magma")
    with pytest.raises(KeyError):
        grid.set_colormap("jet")


def test_one_colour_bar_drives_every_head(grid):
    grid.set_result(CoursePicture(make_result(4, 8)))
    bar = grid.colorbar()
    driven = {id(ref()) for ref in bar.img_list if ref() is not None}
    assert {id(grid.panel(h).image) for h in range(8)} <= driven
    assert tuple(bar.levels()) == (0.0, 1.0)
    for head in range(8):
        assert tuple(grid.panel(head).image.getLevels()) == (0.0, 1.0)


def test_colormaps_are_perceptual_and_offline():
    assert "viridis" in COLORMAPS and any("cividis" in v for v in COLORMAPS.values())
    for name in COLORMAPS:
        assert get_colormap(name).map(0.5, mode="qcolor").isValid()


# -- marks -----------------------------------------------------------------------------------
def test_argmax_of_each_row_is_boxed(grid):
    result = make_result(7, 3, causal=True, padding={0})
    grid.set_result(CoursePicture(result))
    for head in range(3):
        argmax = result.stats.argmax[head]
        expected = [(r, int(argmax[r])) for r in range(7) if argmax[r] >= 0]
        assert grid.panel(head).argmax.cells == expected
        assert grid.panel(head).argmax.path().elementCount() == 5 * len(expected)


def test_course_argmax(grid, lab3):
    grid.set_result(CoursePicture(lab3))
    assert grid.panel(0).argmax.cells == [(0, 2), (1, 1), (2, 1), (3, 1)]
    assert grid.panel(1).argmax.cells == [(0, 1), (1, 1), (2, 0), (3, 2)]


# -- mouse -----------------------------------------------------------------------------------
def _viewport_point(grid, head, row, col) -> QPoint:
    view = grid.graphics_view()
    return view.mapFromScene(grid.panel(head).cell_scene_pos(row, col))


def test_hover_shows_tokens_weight_and_raw_score(grid, qtbot, lab3):
    grid.set_result(CoursePicture(lab3))
    settle(qtbot, grid)
    qtbot.mouseMove(grid.graphics_view().viewport(), _viewport_point(grid, 0, 0, 2))
    qtbot.waitUntil(lambda: "버스로" in grid.hover_label())
    text = grid.hover_label()
    assert "head 0" in text and "나는 → 버스로" in text
    assert "weight 0.57" in text
    assert f"raw score {lab3.raw_scores[0, 0, 2]:.2f}" in text


def test_hover_text_of_masked_cell(grid):
    result = make_result(4, 2, causal=True)
    grid.set_result(CoursePicture(result))
    assert "masked" in grid.hover_text(1, 0, 3)


def test_click_emits_head_clicked(grid, qtbot):
    grid.set_result(CoursePicture(make_result(4, 4)))
    settle(qtbot, grid)
    with qtbot.waitSignal(grid.head_clicked, timeout=2000) as blocker:
        qtbot.mouseClick(grid.graphics_view().viewport(), Qt.MouseButton.LeftButton,
                         pos=_viewport_point(grid, 2, 1, 1))
    assert blocker.args == [2]


def test_focus_one_head_and_back(grid, qtbot):
    result = make_result(5, 4)
    grid.set_result(CoursePicture(result))
    settle(qtbot, grid)
    small = grid.panel(1).plot.getViewBox().width()
    grid.set_focus_head(1)
    settle(qtbot, grid)
    assert grid.plot_items() == [grid.panel(1).plot]
    assert grid.panel(1).plot.getViewBox().width() > small
    grid.set_focus_head(None)
    assert len(grid.plot_items()) == 4
    with pytest.raises(IndexError):
        grid.set_focus_head(9)


def test_escape_while_focused_asks_to_go_back(grid, qtbot):
    grid.set_result(CoursePicture(make_result(4, 4)))
    grid.set_focus_head(3)
    with qtbot.waitSignal(grid.head_clicked, timeout=2000) as blocker:
        qtbot.keyClick(grid, Qt.Key.Key_Escape)
    assert blocker.args == [3]


def test_focus_survives_a_smaller_result(grid):
    grid.set_result(CoursePicture(make_result(4, 8)))
    grid.set_focus_head(7)
    grid.set_result(CoursePicture(make_result(4, 2)))
    assert grid.focus_head() is None
    assert len(grid.plot_items()) == 2


# -- presentation ----------------------------------------------------------------------------
def test_presentation_enlarges_text_and_lines(grid, lab3):
    grid.set_result(CoursePicture(lab3))
    panel = grid.panel(0)
    tick = panel.plot.getAxis("left").style["tickFont"].pointSizeF()
    marker = panel.argmax._pens[-1].widthF()
    value_px = panel.values._max_px
    grid.set_presentation(True)
    assert panel.plot.getAxis("left").style["tickFont"].pointSizeF() > tick
    assert panel.argmax._pens[-1].widthF() > marker
    assert panel.values._max_px > value_px
    assert len(grid.plot_items()) == 2
    grid.set_presentation(False)
    assert panel.plot.getAxis("left").style["tickFont"].pointSizeF() == tick


# -- endurance -------------------------------------------------------------------------------
def test_two_thousand_results_in_one_process(grid, qtbot):
    """Guards against the PySide6 6.12 none_dealloc abort (dozens of repaints were enough).

    Every call brings a new result; the shape (tokens, heads, mask) changes every 10 calls,
    as it would while a teacher drags sliders.
    """
    shapes = [(4, 2), (12, 4), (16, 8), (5, 1), (20, 16), (9, 3)]
    pool = [[make_result(n, h, causal=bool(k % 2), padding={n - 1} if k == 2 else (), seed=k)
             for k in range(3)] for n, h in shapes]
    for i in range(2000):
        result = pool[(i // 10) % len(shapes)][i % 3]
        grid.set_result(CoursePicture(result))
        if i % 100 == 0:
            grid.set_presentation(i % 200 == 0)
            assert not grid.grab().isNull()
        elif i % 5 == 0:
            run_posted_events(rounds=1)  # one turn of the event loop: it paints
    assert np.array_equal(grid.head_image(0), result.weights[0])


def test_vector_output_gets_real_text(grid, qtbot, lab3):
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator
    grid.set_result(CoursePicture(lab3))
    settle(qtbot, grid)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(grid.size())
    painter = QPainter(generator)
    grid.render(painter, QPoint())
    painter.end()
    svg = bytes(data).decode("utf-8")
    assert ">0.57<" in svg and ">0.89<" in svg
    assert svg.count("<image") < 10  # the heatmaps, not one bitmap per label
