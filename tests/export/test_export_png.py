"""The PNG encoder: any decoder (here Qt's) reads back exactly the pixels rendered."""

import zlib

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPainter

from explorer.export import png
from explorer.gui.export.render import encode_png, image_rgb


def picture(width=301, height=123) -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.fillRect(10, 10, 100, 50, QColor(200, 30, 60))
    painter.setPen(QColor("black"))
    painter.drawText(20, 100, "학교에 0.57 — weights")
    painter.drawLine(0, 0, width, height)
    painter.end()
    return image


def decoded(data: bytes) -> QImage:
    image = QImage.fromData(data, "PNG")
    assert not image.isNull()
    return image


@pytest.mark.parametrize("threads", [1, 3])
def test_round_trip_is_exact(qapp, monkeypatch, threads):
    monkeypatch.setattr(png, "PIECE_BYTES", 1000)  # force several deflate pieces
    image = picture()
    data = encode_png(image, threads=threads)
    np.testing.assert_array_equal(image_rgb(decoded(data)), image_rgb(image))


def test_pieces_form_one_valid_zlib_stream(qapp, monkeypatch):
    monkeypatch.setattr(png, "PIECE_BYTES", 1000)
    raw = bytes(range(256)) * 400 + b"\0" * 50_000
    assert zlib.decompress(png.deflate(raw, threads=4)) == raw  # checks adler32 too


def test_text_and_resolution(qapp):
    image = picture()
    image.setDotsPerMeterX(15118)
    image.setDotsPerMeterY(15118)
    back = decoded(encode_png(image, {"Description": "d_model 8 · 나는 학교에 ÷√4"}))
    assert back.text("Description") == "d_model 8 · 나는 학교에 ÷√4"
    assert back.dotsPerMeterX() == 15118


def test_alpha_is_dropped_and_size_kept(qapp):
    image = QImage(7, 5, QImage.Format.Format_ARGB32)
    image.fill(QColor(10, 20, 30, 255))
    back = decoded(encode_png(image))
    assert (back.width(), back.height()) == (7, 5) and not back.hasAlphaChannel()
    assert back.pixelColor(3, 3) == QColor(10, 20, 30)
