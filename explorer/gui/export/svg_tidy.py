"""Make Qt's SVG output look the same in every viewer (browsers, Inkscape, office suites).

Three rewrites of what QSvgGenerator writes:

- Text: Qt writes the widget font's family *list* on each run ("NanumGothic,DejaVu Sans"),
  which QtSvg itself cannot parse, and viewers may lack the font. Each run gets the one
  family that has its glyphs, and its measured width as textLength (lengthAdjust
  spacingAndGlyphs), so a substituted font keeps the run's place and width.
- Cosmetic strokes: a 1-pixel line inside a heatmap is drawn in cell units under a group
  transform of ~50×, marked vector-effect="non-scaling-stroke". Viewers that ignore
  vector-effect (ImageMagick, some office suites) draw it 50 pixels wide. Such groups
  get their coordinates transformed and an identity transform, which reads the same everywhere.
- Images: small heatmap images are enlarged with nearest-neighbour sampling, so viewers that
  smooth embedded images still show sharp cells.

First of all, characters XML forbids are replaced (`well_formed`): the file always parses.
The rewrites of the markup alone are Qt-free (`explorer.export.svg_markup`); what is here
measures text with Qt's font metrics and rescales or flips the embedded PNG images.
"""

from __future__ import annotations

import base64
import re

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QImage

from ...export.svg_markup import (ELEMENT_RE, GROUP_RE, attributes, bake_cosmetic_strokes, families,
                                  fix_text_runs, num, well_formed)

__all__ = ["bake_cosmetic_strokes", "bake_images", "sharpen_images", "tidy_svg", "tidy_svg_text",
           "well_formed"]

SCREEN_DPI = 96
UPSCALE_TARGET_PX = 1024  # small embedded images are enlarged to about this many pixels
_IMAGE_RE = re.compile(r'(<image [^>]*xlink:href=")data:image/png;base64,([^"]*)"')


def tidy_svg(svg: str) -> str:
    return sharpen_images(bake_images(bake_cosmetic_strokes(tidy_svg_text(well_formed(svg)))))


# ----- images -----------------------------------------------------------------------------
def sharpen_images(svg: str, target_px: int = UPSCALE_TARGET_PX) -> str:
    """Give embedded heatmap images enough pixels that no viewer blurs their cells.

    A 4×4 heatmap is embedded as a 4×4 PNG stretched over 300 px; many viewers smooth it
    into a gradient (image-rendering is a hint). Each small image is enlarged here by an
    integer factor with nearest-neighbour sampling (flat blocks compress to almost nothing).
    """
    def enlarge(match: re.Match) -> str:
        image = QImage.fromData(base64.b64decode(match.group(2)), "PNG")
        longest = max(image.width(), image.height())
        factor = target_px // max(1, longest)
        if image.isNull() or factor < 2:
            return match.group(0)
        big = image.scaled(image.width() * factor, image.height() * factor,
                           Qt.AspectRatioMode.IgnoreAspectRatio,
                           Qt.TransformationMode.FastTransformation)
        return f'{match.group(1)}data:image/png;base64,{_png_base64(big)}"'

    return _IMAGE_RE.sub(enlarge, svg)


# ----- text -------------------------------------------------------------------------------
def tidy_svg_text(svg: str) -> str:
    """One family per text run (the one with its glyphs) plus textLength; see module doc."""
    return fix_text_runs(svg, _TextMeasure())


class _TextMeasure:
    """(family with the glyphs, advance width) of a text run, from Qt's font metrics."""

    def __init__(self):
        self._device = QImage(1, 1, QImage.Format.Format_RGB32)  # 96 dpi: SVG user units are px
        self._device.setDotsPerMeterX(round(SCREEN_DPI / 0.0254))
        self._device.setDotsPerMeterY(round(SCREEN_DPI / 0.0254))
        self._metrics: dict[tuple, QFontMetricsF] = {}

    def __call__(self, attrs: str, text: str) -> tuple[str, float]:
        found = attributes(attrs)
        names = families(found.get("font-family", "sans-serif"))
        size = float(found.get("font-size", "12") or 12)
        weight = int(float(found.get("font-weight", "400") or 400))
        italic = found.get("font-style", "normal") != "normal"
        glyphs = [ord(c) for c in text if not c.isspace()]
        for family in names:
            metrics = self._get(family, size, weight, italic)
            if all(metrics.inFontUcs4(code) for code in glyphs):
                return family, metrics.horizontalAdvance(text)
        return names[0], self._get(names[0], size, weight, italic).horizontalAdvance(text)

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


# ----- images under a transform -----------------------------------------------------------
def bake_images(svg: str) -> str:
    """Give images drawn under a scaling (or flipping) transform their size on the page.

    A heatmap is a 6×6 <image> under a ~50× transform with y flipped; simple renderers
    resample it to 6×6 pixels first and blur it. Groups holding only images under an
    axis-aligned transform get the image placed in page units (flipped data where needed).
    """
    def bake(match: re.Match) -> str:
        before, matrix, after, body = match.groups()
        elements = ELEMENT_RE.findall(body)
        if not elements or any(tag != "image" for tag, _, _ in elements):
            return match.group(0)
        try:
            a, b, c, d, e, f = (float(v) for v in matrix.replace(" ", ",").split(",") if v)
        except ValueError:
            return match.group(0)
        if abs(b) > 1e-9 or abs(c) > 1e-9 or (a, d, e, f) == (1.0, 1.0, 0.0, 0.0):
            return match.group(0)  # rotated (leave it) or already in page units

        def place(m: re.Match) -> str:
            tag, attrs, close = m.groups()
            found = dict(re.findall(r'\s(x|y|width|height)="([^"]*)"', attrs))
            x, y = float(found.get("x", 0)), float(found.get("y", 0))
            w, h = float(found.get("width", 0)), float(found.get("height", 0))
            x0, x1, y0, y1 = sorted((a * x + e, a * (x + w) + e)) + sorted((d * y + f, d * (y + h) + f))
            attrs = re.sub(r'\s(?:x|y|width|height)="[^"]*"', "", attrs)
            if a < 0 or d < 0:
                attrs = _mirror_data(attrs, horizontal=a < 0, vertical=d < 0)
            box = f' x="{num(x0)}" y="{num(y0)}" width="{num(x1 - x0)}" height="{num(y1 - y0)}"'
            return f"<{tag}{box}{attrs}{close}>"

        return f'<g {before}transform="matrix(1,0,0,1,0,0)"{after}>{ELEMENT_RE.sub(place, body)}</g>'

    return GROUP_RE.sub(bake, svg)


def _mirror_data(attrs: str, horizontal: bool, vertical: bool) -> str:
    def mirror(m: re.Match) -> str:
        image = QImage.fromData(base64.b64decode(m.group(2)), "PNG")
        flipped = image.flipped((Qt.Orientation.Horizontal if horizontal else Qt.Orientation(0))
                                | (Qt.Orientation.Vertical if vertical else Qt.Orientation(0)))
        return f'{m.group(1)}data:image/png;base64,{_png_base64(flipped)}"'
    return re.sub(r'(xlink:href=")data:image/png;base64,([^"]*)"', mirror, attrs)


def _png_base64(image: QImage) -> str:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return base64.b64encode(bytes(data)).decode("ascii")
