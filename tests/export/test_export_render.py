"""Widget -> PNG at a scale or width, -> SVG with text, on a generic pyqtgraph view."""

import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from explorer.gui.export.frame import FigureFrame
from explorer.gui.export.render import output_size, render_image, render_svg, settle

TOKENS = ["나는", "학교에", "버스로", "갔다"]
SVG = "{http://www.w3.org/2000/svg}"


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4).copy()


def make_frame(qtbot, seed=1, background="white", title=""):
    view = pg.PlotWidget()
    plot = view.getPlotItem()
    plot.addItem(pg.ImageItem(np.random.default_rng(seed).random((4, 4)), axisOrder="row-major"))
    plot.getAxis("left").setTicks([[(i + 0.5, t) for i, t in enumerate(TOKENS)]])
    frame = FigureFrame(view, background, title)
    qtbot.addWidget(frame)
    return settle(frame, QSize(400, 300))


def test_output_size():
    assert output_size(QSize(400, 300), 4)[0] == QSize(1600, 1200)
    assert output_size(QSize(400, 300), width=1000) == (QSize(1000, 750), 2.5)
    with pytest.raises(ValueError):
        output_size(QSize(400, 300), 100)
    with pytest.raises(ValueError):
        output_size(QSize(0, 300), 1)


@pytest.mark.parametrize("scale", [1, 2, 4])
def test_png_is_scale_times_size_and_not_blank(qtbot, scale):
    frame = make_frame(qtbot)
    image = render_image(frame, scale)
    assert (image.width(), image.height()) == (400 * scale, 300 * scale)
    assert pixels(image)[..., :3].std() > 10


def test_png_at_width_keeps_proportions(qtbot):
    image = render_image(make_frame(qtbot), width=1000)
    assert (image.width(), image.height()) == (1000, 750)


def test_4x_is_drawn_at_4x_not_upscaled(qtbot):
    """A 4× render has detail a nearest-neighbour upscale of the 1× render lacks (crisp text)."""
    frame = make_frame(qtbot)
    small, big = pixels(render_image(frame, 1)), pixels(render_image(frame, 4))
    upscaled = small.repeat(4, axis=0).repeat(4, axis=1)
    assert np.abs(big.astype(int) - upscaled.astype(int)).mean() > 1
    # Yet it is the same picture: the 4× downsampled by block means resembles the 1×.
    down = big.reshape(300, 4, 400, 4, 4).mean(axis=(1, 3))
    assert np.abs(down - small).mean() < 25


def test_png_differs_with_content_and_background(qtbot):
    a = pixels(render_image(make_frame(qtbot, seed=1)))
    b = pixels(render_image(make_frame(qtbot, seed=2)))
    dark = pixels(render_image(make_frame(qtbot, seed=1, background="dark")))
    assert not np.array_equal(a, b)
    assert a[2, 2, :3].tolist() == [255, 255, 255]
    assert dark[2, 2, :3].max() < 40


def test_svg_parses_and_keeps_labels_as_text(qtbot):
    svg = render_svg(make_frame(qtbot, title="d_model 8 · 2 heads"))
    root = ET.fromstring(svg)
    texts = [el.text.strip() for el in root.iter(SVG + "text") if el.text and el.text.strip()]
    for token in TOKENS:
        assert token in texts
    assert "d_model 8 · 2 heads" in texts
    for el in root.iter(SVG + "text"):
        assert "," not in el.get("font-family")  # one family: QtSvg cannot parse lists
        if el.text and el.text.strip():
            assert float(el.get("textLength")) > 0
    hangul = {el.get("font-family") for el in root.iter(SVG + "text") if el.text in TOKENS}
    assert hangul == {"NanumGothic"}
