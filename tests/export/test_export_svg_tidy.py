"""The SVG rewrites change how the file is written, not what it shows."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from explorer.core import forward, get_preset
from explorer.gui.window.exports.figures import build_figure
from explorer.export.naming import FigureSpec
from explorer.gui.export.render import raw_svg
from explorer.gui.export.svg_tidy import bake_cosmetic_strokes, bake_images, sharpen_images, tidy_svg

PADDED = get_preset("padding").config  # masks, hatching, outlines: every kind of stroke


def rasterise(svg: str) -> np.ndarray:
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    size = renderer.viewBox().size()
    image = QImage(size, QImage.Format.Format_RGB888)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, :image.width() * 3].astype(int)


@pytest.fixture
def raw(qtbot):
    frame = build_figure(FigureSpec("heads"), forward(PADDED))
    qtbot.addWidget(frame)
    return raw_svg(frame)


def test_baking_keeps_the_picture(raw):
    baked = sharpen_images(bake_images(bake_cosmetic_strokes(raw)))
    before, after = rasterise(raw), rasterise(baked)
    assert before.shape == after.shape
    assert np.abs(before - after).mean() < 0.2  # anti-aliasing differences only
    assert (np.abs(before - after) > 60).mean() < 0.0005


def test_viewers_ignoring_vector_effect_see_the_same(raw):
    """ImageMagick and some office suites ignore non-scaling-stroke: thin lines became 50 px."""
    ignore = 'vector-effect="non-scaling-stroke"'
    baked = bake_images(bake_cosmetic_strokes(raw))
    reference = rasterise(raw)
    assert np.abs(rasterise(raw.replace(ignore, "")) - reference).mean() > 20  # the problem
    assert np.abs(rasterise(baked.replace(ignore, "")) - reference).mean() < 0.2  # solved


def test_no_scaled_group_keeps_a_cosmetic_stroke_or_an_image(raw):
    tidy = tidy_svg(raw)
    kept = [attrs for attrs, body in re.findall(r"<g ([^>]*)>(.*?)</g>", tidy, re.S)
            if "non-scaling-stroke" in body or "<image" in body]
    assert kept  # the figure has such groups: the check below is not over nothing
    for attrs in kept:
        assert 'transform="matrix(1,0,0,1,' in attrs, attrs
    ET.fromstring(tidy)


def test_heatmaps_are_embedded_with_enough_pixels(raw):
    tidy = tidy_svg(raw)
    sizes = [(float(w), float(h)) for w, h in
             re.findall(r'<image [^>]*width="([^"]*)" height="([^"]*)"', tidy)]
    assert any(w > 100 and h > 100 for w, h in sizes)  # heatmaps placed at their page size
    from base64 import b64decode
    embedded = re.findall(r'base64,([^"]*)"', tidy)
    assert embedded
    for data in embedded:
        image = QImage.fromData(b64decode(data), "PNG")
        assert max(image.width(), image.height()) >= 256


def test_text_runs_get_one_family_and_a_width(raw):
    tidy = tidy_svg(raw)
    root = ET.fromstring(tidy)
    texts = list(root.iter("{http://www.w3.org/2000/svg}text"))
    assert texts
    for el in texts:
        assert "," not in el.get("font-family")
    assert {el.get("font-family") for el in texts if el.text and "학교에" in el.text} == {"NanumGothic"}
