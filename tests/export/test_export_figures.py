"""Offscreen figures from a config: sizes, content, backgrounds, SVG text, the live views' data."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from explorer.core import forward, get_preset, run_kv_cache
from explorer.gui.window.exports.figures import (ExportOptions, ViewOptions, build_figure, default_view_size,
                                     export_items, figure_bytes)
from explorer.export.naming import FigureSpec, parse_what
from explorer.gui.export.render import render_image

LAB3 = get_preset("course-lab3").config
SVG_TEXT = "{http://www.w3.org/2000/svg}text"


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4).copy()


@pytest.fixture
def figure(qtbot):
    def make(spec="heads", config=LAB3, **kw):
        spec = parse_what(spec, config)[0]
        frame = build_figure(spec, forward(config), run_kv_cache(config) if spec.kind == "kv" else None, **kw)
        qtbot.addWidget(frame)
        return frame
    return make


@pytest.mark.parametrize("scale", [1, 2, 4])
def test_heads_png_is_scale_times_figure_size(figure, scale):
    frame = figure()
    image = render_image(frame, scale)
    assert (image.width(), image.height()) == (frame.width() * scale, frame.height() * scale)
    assert pixels(image)[..., :3].std() > 20


def test_png_bytes_decode_to_the_requested_width(figure):
    frame = figure()
    data = figure_bytes(frame, ExportOptions(fmt="png", width=1500))
    image = QImage.fromData(data, "PNG")
    assert image.width() == 1500
    assert image.height() == round(frame.height() * 1500 / frame.width())
    assert "d_model 8 · 2 heads" in image.text("Description")  # the settings travel with the file


def test_figure_takes_the_requested_size(figure):
    frame = figure(size=QSize(700, 500))
    assert frame.size() == QSize(700, 500)
    assert render_image(frame, 2).size() == QSize(1400, 1000)


def test_heads_figures_differ_with_the_seed(figure):
    one = pixels(render_image(figure(config=LAB3.replace(seed=1))))
    two = pixels(render_image(figure(config=LAB3.replace(seed=2))))
    assert one.shape == two.shape and not np.array_equal(one, two)


def test_offscreen_grid_draws_the_core_weights(figure):
    config = LAB3.replace(causal=True, padding=frozenset({2}))
    grid = figure(config=config).view
    for head in range(config.n_heads):
        np.testing.assert_array_equal(grid.head_image(head), forward(config).weights[head])


def test_one_head_figure_shows_only_that_head(figure):
    grid = figure("head:1").view
    assert grid.visible_heads() == [1]


@pytest.mark.parametrize("background, light", [("white", True), ("dark", False)])
def test_background(figure, background, light):
    image = pixels(render_image(figure(background=background)))
    corner = image[3, 3, :3].astype(int)
    assert (corner.min() > 240) if light else (corner.max() < 40)
    # The axes follow: the most common non-background colour of the tick text is dark on white.
    frame = figure(background=background)
    axis = frame.view.plot_items()[0].getAxis("left")
    assert (axis.textPen().color().lightness() < 100) == light


@pytest.mark.parametrize("spec", ["heads", "head:0", "pe", "kv:2"])
def test_every_figure_renders_png_and_svg(figure, spec):
    frame = figure(spec, title=True)
    image = pixels(render_image(frame, 1))
    assert image[..., :3].std() > 20
    root = ET.fromstring(figure_bytes(frame, ExportOptions(fmt="svg")))
    texts = " ".join(el.text or "" for el in root.iter(SVG_TEXT))
    assert "d_model 8" in texts and "seed 1" in texts  # the title line
    expected = LAB3.tokens[:3] if spec.startswith("kv") else LAB3.tokens
    for token in expected:
        assert token in texts


def test_svg_differs_with_the_config(figure):
    one = figure_bytes(figure(), ExportOptions(fmt="svg"))
    two = figure_bytes(figure(config=LAB3.replace(seed=2)), ExportOptions(fmt="svg"))
    assert one != two


def test_kv_figure_is_at_the_step_without_controls(figure):
    frame = figure("kv:2")
    panel = frame.view
    assert panel.step == 2 and not panel.is_playing
    assert not panel.controls.play_button.isVisible()
    assert not panel.controls.slider.isVisible()


def test_view_options_are_applied(figure):
    frame = figure(look=ViewOptions(show_values="off", presentation=True))
    assert frame.view.values_shown() is False


def test_export_items_names_and_csv():
    items = export_items(LAB3, parse_what("heads", LAB3), ExportOptions(fmt="csv"))
    assert items[0][0] == "heads_d8_h2_seed1.csv"
    assert bytes(items[0][1]).decode().count("\n") == 1 + 2 * 4 * 4


def test_default_sizes_grow_with_heads():
    two = default_view_size(FigureSpec("heads"), LAB3)
    eight = default_view_size(FigureSpec("heads"), LAB3.replace(d_model=64, n_heads=8))
    assert eight.width() > two.width() and eight.height() > two.height()


def _cell_crop(frame, image_px: np.ndarray, scale: int, head: int, row: int, col: int) -> np.ndarray:
    grid = frame.view
    view = grid.graphics_view()
    centre = grid.panel(head).cell_scene_pos(row, col)
    at = view.viewport().mapTo(frame, view.mapFromScene(centre))
    x, y, half = at.x() * scale, at.y() * scale, 12 * scale  # a 0.13-sized label fits in ±12 px
    return image_px[y - half // 2:y + half // 2, x - half:x + half, :3].astype(int)


def test_value_labels_are_drawn_at_4x_not_upscaled(figure):
    """The cell values are real 4x text, not a 1x label bitmap blown up (4x4 blocks)."""
    frame = figure()
    crop = _cell_crop(frame, pixels(render_image(frame, 4)), 4, 0, 0, 0)
    blocks = crop[:crop.shape[0] // 4 * 4, :crop.shape[1] // 4 * 4]
    blocks = blocks.reshape(blocks.shape[0] // 4, 4, blocks.shape[1] // 4, 4, 3)
    varying = (blocks.max(axis=(1, 3)) != blocks.min(axis=(1, 3))).any(axis=-1)
    background = (blocks == blocks[0, 0, 0, 0]).all(axis=(1, 3, 4))
    ink = ~background
    assert ink.sum() > 10  # the label is there
    assert varying[ink].mean() > 0.3  # glyph edges anti-aliased at the 4x resolution


@pytest.mark.parametrize("spec", ["heads", "pe", "kv:2"])
@pytest.mark.parametrize("background", ["white", "dark"])
def test_titles_and_axes_follow_the_background(figure, spec, background):
    import pyqtgraph as pg
    frame = figure(spec, background=background)
    views = frame.findChildren(pg.GraphicsView)
    labels = [i for v in views for i in v.scene().items() if isinstance(i, pg.LabelItem) and i.text]
    axes = [i for v in views for i in v.scene().items() if isinstance(i, pg.AxisItem)]
    assert labels and axes
    light_text = background == "dark"
    for label in labels:
        assert (pg.mkColor(label.opts["color"]).lightness() > 128) == light_text, label.text
    for axis in axes:
        assert (axis.textPen().color().lightness() > 128) == light_text
