"""Hangul labels are drawn with the bundled font, not as missing-glyph boxes ("tofu")."""

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QFont, QFontDatabase, QFontMetricsF, QImage, QPainter

from explorer.core import forward, get_preset
from explorer.gui.window.exports.figures import build_figure
from explorer.export.naming import FigureSpec
from explorer.gui.export.render import render_image
from explorer.gui.export.theme import bundled_family, figure_font
from explorer.gui.plotting.fonts import LATIN_FAMILY

WORD, OTHER = "학교에", "버스로"


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_Grayscale8)
    stride = image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), stride)
    return raw[:, :image.width()].copy()


def draw(text: str, font: QFont) -> np.ndarray:
    image = QImage(240, 60, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(Qt.GlobalColor.black)
    painter.drawText(QRect(0, 0, 240, 60), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixels(image)


@pytest.fixture
def latin_font(qapp):
    """A system family without Hangul, with font merging off: Hangul becomes tofu."""
    for family in ("DejaVu Sans", "Nimbus Sans", "Noto Mono", *QFontDatabase.families()):
        font = QFont(family, 24)
        font.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)
        if family in QFontDatabase.families() and not QFontMetricsF(font).inFontUcs4(ord("학")):
            return font
    pytest.skip("every font here has Hangul")


def test_bundled_font_has_the_glyphs(qapp):
    assert figure_font(24).families()[:2] == [LATIN_FAMILY, "NanumGothic"]  # digits, then Hangul
    assert bundled_family() == "NanumGothic"
    font = QFont(bundled_family(), 24)
    font.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)
    assert all(QFontMetricsF(font).inFontUcs4(ord(c)) for c in WORD + OTHER)


def test_bundled_rendering_is_not_tofu(qapp, latin_font):
    bundled, tofu = draw(WORD, figure_font(24)), draw(WORD, latin_font)
    assert (bundled < 128).sum() > 50 and (tofu < 128).sum() > 50  # both drew something
    assert not np.array_equal(bundled, tofu)
    # Tofu is the same box for every syllable; real glyphs differ from word to word.
    assert np.array_equal(tofu, draw(OTHER, latin_font))
    assert not np.array_equal(bundled, draw(OTHER, figure_font(24)))


def label_crop(frame, image: QImage, scale: int, row: int) -> np.ndarray:
    """The left-axis tick label of `row` in head 0 of an exported heads figure."""
    grid = frame.view
    plot = grid.plot_items()[0]
    axis, view = plot.getAxis("left"), grid.graphics_view()
    centre = plot.getViewBox().mapViewToScene(QPointF(0, row))
    half = abs(plot.getViewBox().mapViewToScene(QPointF(0, row + 0.5)).y() - centre.y()) * 0.8
    box = axis.sceneBoundingRect()
    top_left = view.viewport().mapTo(frame, view.mapFromScene(QPointF(box.left(), centre.y() - half)))
    bottom_right = view.viewport().mapTo(frame, view.mapFromScene(QPointF(box.right(), centre.y() + half)))
    return pixels(image)[top_left.y() * scale:bottom_right.y() * scale,
                         top_left.x() * scale:bottom_right.x() * scale]


def test_exported_heads_figure_draws_hangul_labels(qtbot, latin_font):
    config = get_preset("course-lab3").config
    frame = build_figure(FigureSpec("heads"), forward(config))
    qtbot.addWidget(frame)
    real = render_image(frame, 2)
    crop_real = label_crop(frame, real, 2, 1)  # 학교에
    assert crop_real.size and (crop_real < 128).sum() > 30  # ink: the label is there
    assert not np.array_equal(crop_real, label_crop(frame, real, 2, 2))  # 버스로 looks different
    axis = frame.view.plot_items()[0].getAxis("left")
    tofu_font = QFont(axis.style["tickFont"])  # same size and weight, a family without Hangul
    tofu_font.setFamilies([latin_font.family()])
    tofu_font.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)
    axis.setStyle(tickFont=tofu_font)
    axis.picture = None
    axis.update()
    tofu = render_image(frame, 2)
    crop_tofu = label_crop(frame, tofu, 2, 1)
    assert (crop_tofu < 128).sum() > 30
    assert not np.array_equal(crop_real, crop_tofu)
