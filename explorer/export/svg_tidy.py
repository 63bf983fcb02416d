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
"""

from __future__ import annotations

import base64
import html
import re

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QImage

SCREEN_DPI = 96
UPSCALE_TARGET_PX = 1024  # small embedded images are enlarged to about this many pixels
_IMAGE_RE = re.compile(r'(<image [^>]*xlink:href=")data:image/png;base64,([^"]*)"')
_FAMILY_RE = re.compile(r'font-family="([^"]*)"')
_GROUP_RE = re.compile(r'<g ([^>]*)transform="matrix\(([^)]*)\)"([^>]*)>(.*?)</g>', re.S)
_ELEMENT_RE = re.compile(r"<(\w+)\b([^>]*?)(/?)>")
_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR_RE = re.compile(rf"({_NUMBER}),({_NUMBER})")
_BAKEABLE = {"path", "polyline", "polygon", "rect"}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def tidy_svg(svg: str) -> str:
    return sharpen_images(bake_images(bake_cosmetic_strokes(tidy_svg_text(well_formed(svg)))))


def well_formed(svg: str) -> str:
    """Characters XML 1.0 forbids (NUL, ESC and the other control characters but tab and
    newlines, lone surrogates, U+FFFE/FFFF) as U+FFFD. QSvgGenerator escapes <, & and quotes
    in texts and titles but writes these as they are, and no XML reader opens the file then
    (a lesson's title or text, a token, a model's sentence)."""
    return _NOT_XML.sub("\ufffd", svg)


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
        found = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
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


# ----- cosmetic strokes -------------------------------------------------------------------
def bake_cosmetic_strokes(svg: str) -> str:
    """Apply the group transform to the coordinates of groups that hold non-scaling strokes."""
    def bake(match: re.Match) -> str:
        before, matrix, after, body = match.groups()
        if "non-scaling-stroke" not in body:
            return match.group(0)
        try:
            a, b, c, d, e, f = (float(v) for v in matrix.replace(" ", ",").split(",") if v)
        except ValueError:
            return match.group(0)
        elements = _ELEMENT_RE.findall(body)
        scaled_stroke = 'stroke="none"' not in before + after
        if any(tag not in _BAKEABLE or (scaled_stroke and "non-scaling-stroke" not in attrs)
               for tag, attrs, _ in elements):
            return match.group(0)  # text, images or scaling strokes: leave the group alone

        def point(x: float, y: float) -> str:
            return f"{_num(a * x + c * y + e)},{_num(b * x + d * y + f)}"

        def element(m: re.Match) -> str:
            tag, attrs, close = m.groups()
            if tag == "rect":
                tag, attrs = "path", _rect_as_path(attrs)
            attrs = re.sub(r'(\s(?:d|points)=")([^"]*)(")',
                           lambda g: g.group(1) + _PAIR_RE.sub(
                               lambda p: point(float(p.group(1)), float(p.group(2))), g.group(2))
                           + g.group(3), attrs)
            return f"<{tag}{attrs}{close}>"

        if not all(_absolute_only(d) for d in re.findall(r'\sd="([^"]*)"', body)):
            return match.group(0)
        return f'<g {before}transform="matrix(1,0,0,1,0,0)"{after}>{_ELEMENT_RE.sub(element, body)}</g>'

    return _GROUP_RE.sub(bake, svg)


def bake_images(svg: str) -> str:
    """Give images drawn under a scaling (or flipping) transform their size on the page.

    A heatmap is a 6×6 <image> under a ~50× transform with y flipped; simple renderers
    resample it to 6×6 pixels first and blur it. Groups holding only images under an
    axis-aligned transform get the image placed in page units (flipped data where needed).
    """
    def bake(match: re.Match) -> str:
        before, matrix, after, body = match.groups()
        elements = _ELEMENT_RE.findall(body)
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
            box = f' x="{_num(x0)}" y="{_num(y0)}" width="{_num(x1 - x0)}" height="{_num(y1 - y0)}"'
            return f"<{tag}{box}{attrs}{close}>"

        return f'<g {before}transform="matrix(1,0,0,1,0,0)"{after}>{_ELEMENT_RE.sub(place, body)}</g>'

    return _GROUP_RE.sub(bake, svg)


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


def _absolute_only(d: str) -> bool:
    """Only the absolute commands Qt writes (M, L, C, Z): relative ones would need other maths."""
    return set(re.sub(_NUMBER, "", d)) <= set("MLCZ ,")


def _rect_as_path(attrs: str) -> str:
    """A <rect>'s x, y, width, height as the d of an equivalent closed path."""
    found = dict(re.findall(r'\s(x|y|width|height)="([^"]*)"', attrs))
    x, y = float(found.get("x", 0)), float(found.get("y", 0))
    w, h = float(found.get("width", 0)), float(found.get("height", 0))
    rest = re.sub(r'\s(?:x|y|width|height)="[^"]*"', "", attrs)
    d = f"M{_num(x)},{_num(y)} L{_num(x + w)},{_num(y)} L{_num(x + w)},{_num(y + h)} L{_num(x)},{_num(y + h)} Z"
    return f'{rest} d="{d}"'


def _num(value: float) -> str:
    return f"{value:.6g}"
