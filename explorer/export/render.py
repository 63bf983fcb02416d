"""A widget as pixels (QImage/PNG) or vectors (SVG), at any scale.

Rendering goes through `QWidget.render` into a QImage whose device-pixel ratio is the
scale, so text and lines are drawn at the target resolution (crisp at 4×), not
upscaled. pyqtgraph's GraphicsView overrides `render` with the scene's signature, so
the base-class method is called explicitly. SVG uses QSvgGenerator, which writes text as
<text> elements (the token labels stay searchable and editable in the file).
"""

from __future__ import annotations

import html
import re
import sys
from contextlib import contextmanager

from PySide6.QtCore import (QBuffer, QByteArray, QIODevice, QPoint, QRect, QSize, Qt,
                            qInstallMessageHandler)
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QRegion
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QWidget

from .png import encode_png

MAX_PIXELS = 16384  # per side: QImage and PNG viewers cope, memory stays < 1 GiB
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
    dots_per_metre = round(SCREEN_DPI * ratio / 0.0254)  # placed on a slide at the on-screen size
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    QWidget.render(widget, image, QPoint(), QRegion(), _RENDER_FLAGS)
    image.setDevicePixelRatio(1.0)  # a plain pixel image from here on (saving, comparing)
    return image


def png_bytes(image: QImage, description: str = "") -> bytes:
    """The image encoded as PNG (see png.py), with the settings as its Description text."""
    return encode_png(image, {"Description": description} if description else None)


def render_svg(widget: QWidget, title: str = "", description: str = "",
               background: QColor | None = None) -> bytes:
    """The widget as an SVG document (UTF-8 bytes) of its logical size."""
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
    return tidy_svg_text(bytes(data).decode("utf-8")).encode("utf-8")


def tidy_svg_text(svg: str) -> str:
    """Make every <text> element render the same in any SVG viewer.

    Qt writes the widget font's family list (e.g. "NanumGothic,DejaVu Sans") on each text
    run; QtSvg itself cannot parse such a list, and other viewers may lack the fonts. So
    each run gets the one family that really has its glyphs, plus its measured width as
    textLength (lengthAdjust spacingAndGlyphs): where a viewer substitutes another font,
    the text keeps its place and width instead of overlapping its neighbours.
    """
    measure = _TextMeasure()

    def fix_text(match: re.Match) -> str:
        attrs, content = match.group(1), match.group(2)
        text = html.unescape(content)
        family, width = measure(attrs, text)
        attrs = _FAMILY_RE.sub(f'font-family="{family}"', attrs)
        if text.strip() and width > 0 and "textLength" not in attrs:
            attrs = attrs.rstrip() + f' textLength="{width:.2f}" lengthAdjust="spacingAndGlyphs"'
        return f"<text {attrs}>{content}</text>"

    svg = re.sub(r"<text ([^>]*)>([^<]*)</text>", fix_text, svg)
    return _FAMILY_RE.sub(lambda m: f'font-family="{_families(m.group(1))[0]}"', svg)


_FAMILY_RE = re.compile(r'font-family="([^"]*)"')


def _families(value: str) -> list[str]:
    names = [name.strip().strip("'\"") for name in html.unescape(value).split(",")]
    return [name for name in names if name] or ["sans-serif"]


class _TextMeasure:
    """(family with the glyphs, advance width) of a text run, from Qt's font metrics."""

    def __init__(self):
        self._device = QImage(1, 1, QImage.Format.Format_RGB32)  # 96 dpi: SVG user units are px
        self._device.setDotsPerMeterX(round(SCREEN_DPI / 0.0254))
        self._device.setDotsPerMeterY(round(SCREEN_DPI / 0.0254))
        self._metrics: dict[tuple, QFontMetricsF] = {}

    def __call__(self, attrs: str, text: str) -> tuple[str, float]:
        found = {k: v for k, v in re.findall(r'([\w-]+)="([^"]*)"', attrs)}
        families = _families(found.get("font-family", "sans-serif"))
        size = float(found.get("font-size", "12") or 12)
        weight = int(float(found.get("font-weight", "400") or 400))
        italic = found.get("font-style", "normal") != "normal"
        glyphs = [ord(c) for c in text if not c.isspace()]
        for family in families:
            metrics = self._get(family, size, weight, italic)
            if all(metrics.inFontUcs4(code) for code in glyphs):
                return family, metrics.horizontalAdvance(text)
        return families[0], self._get(families[0], size, weight, italic).horizontalAdvance(text)

    def _get(self, family: str, size: float, weight: int, italic: bool) -> QFontMetricsF:
        key = (family, size, weight, italic)
        if key not in self._metrics:
            font = QFont(family)
            font.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)
            font.setPointSizeF(size * 72.0 / SCREEN_DPI)
            font.setWeight(QFont.Weight(min(1000, max(1, weight))))
            font.setItalic(italic)
            self._metrics[key] = QFontMetricsF(font, self._device)
        return self._metrics[key]
