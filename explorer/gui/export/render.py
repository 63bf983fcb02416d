"""A widget as pixels (QImage/PNG) or vectors (SVG), at any scale.

Rendering goes through `QWidget.render` into a QImage whose device-pixel ratio is the
scale, so text and lines are drawn at the target resolution (crisp at 4×), not
upscaled. pyqtgraph's GraphicsView overrides `render` with the scene's signature, so
the base-class method is called explicitly. SVG uses QSvgGenerator, which writes text as
<text> elements (the token labels stay searchable and editable in the file).

Large PNGs are drawn in bands: a 16384-pixel-wide export is up to 16384 × 16384 pixels, 1 GiB
as one RGB32 QImage and three times that while encoding. Above ONE_SHOT_PIXELS, `render_png`
draws horizontal bands of about BAND_PIXELS into one small image and hands each to a
`PngStream`, so the image never exists whole. Banded pixels equal the one-shot ones except
along the edges of scaled images (heatmaps, the colour bar): Qt's raster engine scales a
clipped image with a slightly different rounding, which can move a cell edge by one device
pixel or a gradient by a few levels (under 0.1 % of the pixels; tests/export).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from PySide6.QtCore import (QBuffer, QByteArray, QIODevice, QPoint, QRect, QSize, Qt,
                            qInstallMessageHandler)
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QWidget

import numpy as np

from ...export.png import LEVEL, PngStream, encode_rgb
from .svg_tidy import tidy_svg

MAX_PIXELS = 16384  # per side: QImage and PNG viewers cope
ONE_SHOT_PIXELS = 32 << 20  # up to this many pixels (~330 MB while encoding), one QImage:
# the course preset's figures stay one-shot (unchanged pixels) up to 8×
BAND_PIXELS = 4 << 20       # pixels a band: 16 MB of RGB32
SCREEN_DPI = 96
_RENDER_FLAGS = QWidget.RenderFlag.DrawWindowBackground | QWidget.RenderFlag.DrawChildren


def settle(widget: QWidget, size: QSize | None = None) -> QWidget:
    """Lay out a widget that may never have been shown, at `size` (or its current size).

    WA_DontShowOnScreen lets `show()` run the layouts and resize events (pyqtgraph sizes
    its items there) without a window appearing, on any platform.
    """
    with _without_platform_chatter():
        if size is not None:
            widget.resize(size)
        if not widget.isVisible():
            widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            widget.show()
        QApplication.processEvents()
        if widget.layout() is not None:
            widget.layout().activate()
        QApplication.processEvents()
    return widget


@contextmanager
def _without_platform_chatter():
    """Drop the offscreen platform's "does not support propagateSizeHints()" warning.

    The offscreen platform prints it whenever a shown top-level widget's size limits change
    (while laying out) and it would clutter the CLI's output; every other message goes
    where it went before.
    """
    previous = None

    def handler(mode, context, message):
        if "propagateSizeHints" in message:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)


def output_size(logical: QSize, scale: float | None = None, width: int | None = None) -> tuple[QSize, float]:
    """The pixel size of an export and its ratio to the logical size.

    `width` wins over `scale`: exactly `width` pixels wide, height in proportion.
    """
    if logical.width() < 1 or logical.height() < 1:
        raise ValueError(f"nothing to export: the figure is {logical.width()}×{logical.height()}")
    if width is not None:
        ratio = width / logical.width()
        pixels = QSize(int(width), max(1, round(logical.height() * ratio)))
    else:
        ratio = 1.0 if scale is None else float(scale)
        pixels = QSize(max(1, round(logical.width() * ratio)), max(1, round(logical.height() * ratio)))
    if ratio <= 0 or max(pixels.width(), pixels.height()) > MAX_PIXELS:
        raise ValueError(f"export size {pixels.width()}×{pixels.height()} is outside 1..{MAX_PIXELS} pixels")
    return pixels, ratio


def render_image(widget: QWidget, scale: float | None = None, width: int | None = None,
                 background: QColor | None = None) -> QImage:
    """The widget drawn at `scale` × its size (or `width` pixels wide); see `output_size`."""
    pixels, ratio = output_size(widget.size(), scale, width)
    image = QImage(pixels, QImage.Format.Format_RGB32)  # opaque: slides need no alpha
    image.setDevicePixelRatio(ratio)
    image.fill(background or widget.palette().window().color())
    dots_per_metre = _dots_per_metre(ratio)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    QWidget.render(widget, image, QPoint(), QRegion(), _RENDER_FLAGS)
    image.setDevicePixelRatio(1.0)  # a plain pixel image from here on (saving, comparing)
    return image


def render_png(widget: QWidget, scale: float | None = None, width: int | None = None,
               background: QColor | None = None, description: str = "") -> bytes:
    """The widget as PNG bytes (see `render_image`), drawn in bands when it is large."""
    pixels, ratio = output_size(widget.size(), scale, width)
    if pixels.width() * pixels.height() <= ONE_SHOT_PIXELS:
        return png_bytes(render_image(widget, scale, width, background), description)
    dpm = _dots_per_metre(ratio)
    stream = PngStream(pixels.width(), pixels.height(), (dpm, dpm),
                       {"Description": description} if description else None)
    for _, rgb in render_bands(widget, scale, width, background):
        stream.add_rows(rgb)
    return stream.finish()


def render_bands(widget: QWidget, scale: float | None = None, width: int | None = None,
                 background: QColor | None = None, band_pixels: int | None = None):
    """Yield (first row, (rows, w, 3) uint8) for the image `render_image` would draw, band by
    band (a band is a whole number of device rows; the painter is shifted by that many)."""
    pixels, ratio = output_size(widget.size(), scale, width)
    w, h = pixels.width(), pixels.height()
    band_rows = max(1, (band_pixels or BAND_PIXELS) // w)
    band = QImage(w, min(band_rows, h), QImage.Format.Format_RGB32)
    fill = background or widget.palette().window().color()
    for top in range(0, h, band_rows):
        rows = min(band_rows, h - top)
        band.setDevicePixelRatio(ratio)
        band.fill(fill)
        painter = QPainter(band)
        painter.translate(0, -top / ratio)  # logical units: exactly `top` device rows
        QWidget.render(widget, painter, QPoint(), QRegion(), _RENDER_FLAGS)
        painter.end()
        band.setDevicePixelRatio(1.0)
        yield top, image_rgb(band)[:rows]


def image_rgb(image: QImage) -> np.ndarray:
    """(h, w, 3) uint8 copy of the image's colours."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w = rgb.height(), rgb.width()
    rows = np.frombuffer(rgb.constBits(), np.uint8).reshape(h, rgb.bytesPerLine())  # (h, stride)
    return rows[:, :w * 3].reshape(h, w, 3).copy()


def encode_png(image: QImage, text: dict[str, str] | None = None, level: int = LEVEL,
               threads: int | None = None) -> bytes:
    """The image (alpha dropped) as PNG bytes (explorer.export.png), with UTF-8 text chunks and
    its dots per metre."""
    return encode_rgb(image_rgb(image), (image.dotsPerMeterX(), image.dotsPerMeterY()), text,
                      level, threads)


def _dots_per_metre(ratio: float) -> int:
    return round(SCREEN_DPI * ratio / 0.0254)  # placed on a slide at the on-screen size


def png_bytes(image: QImage, description: str = "") -> bytes:
    """The image encoded as PNG (explorer.export.png), with the settings as its Description text."""
    return encode_png(image, {"Description": description} if description else None)


def render_svg(widget: QWidget, title: str = "", description: str = "",
               background: QColor | None = None) -> bytes:
    """The widget as an SVG document (UTF-8 bytes) of its logical size, tidied (svg_tidy.py)."""
    return tidy_svg(raw_svg(widget, title, description, background)).encode("utf-8")


def raw_svg(widget: QWidget, title: str = "", description: str = "",
            background: QColor | None = None) -> str:
    """What QSvgGenerator writes for the widget, untouched."""
    size = widget.size()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRect(QPoint(0, 0), size))
    generator.setResolution(SCREEN_DPI)
    generator.setTitle(title)
    generator.setDescription(description)
    painter = QPainter(generator)
    painter.fillRect(QRect(QPoint(0, 0), size), background or widget.palette().window().color())
    QWidget.render(widget, painter, QPoint(), QRegion(), _RENDER_FLAGS)
    painter.end()
    buffer.close()
    return bytes(data).decode("utf-8")
