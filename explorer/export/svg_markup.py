"""SVG rewrites that need no Qt: the markup half of tidying what QSvgGenerator writes.

`explorer.gui.export.svg_tidy` runs them with the parts that need Qt (font metrics, PNG images):

- `well_formed`: characters XML forbids replaced, so the file always parses;
- `bake_cosmetic_strokes`: groups of non-scaling strokes get their coordinates transformed and
  an identity transform, which reads the same in every viewer;
- `fix_text_runs`: one font family per text run and its width as textLength, from a measure
  the caller gives (Qt's font metrics in the window and the CLI).
"""

from __future__ import annotations

import html
import re
from typing import Callable

FAMILY_RE = re.compile(r'font-family="([^"]*)"')
GROUP_RE = re.compile(r'<g ([^>]*)transform="matrix\(([^)]*)\)"([^>]*)>(.*?)</g>', re.S)
ELEMENT_RE = re.compile(r"<(\w+)\b([^>]*?)(/?)>")
NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR_RE = re.compile(rf"({NUMBER}),({NUMBER})")
_BAKEABLE = {"path", "polyline", "polygon", "rect"}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

Measure = Callable[[str, str], tuple[str, float]]  # (attributes, text) -> (family, width)


def well_formed(svg: str) -> str:
    """Characters XML 1.0 forbids (NUL, ESC and the other control characters but tab and
    newlines, lone surrogates, U+FFFE/FFFF) as U+FFFD. QSvgGenerator escapes <, & and quotes
    in texts and titles but writes these as they are, and no XML reader opens the file then
    (a lesson's title or text, a token, a model's sentence)."""
    return _NOT_XML.sub("\ufffd", svg)


# ----- text -------------------------------------------------------------------------------
def fix_text_runs(svg: str, measure: Measure) -> str:
    """One family per text run (the one `measure` finds its glyphs in) plus textLength."""
    def fix_text(match: re.Match) -> str:
        attrs, content = match.group(1), match.group(2)
        text = html.unescape(content)
        family, width = measure(attrs, text)
        attrs = FAMILY_RE.sub(f'font-family="{family}"', attrs)
        if text.strip() and width > 0 and "textLength" not in attrs:
            attrs = attrs.rstrip() + f' textLength="{width:.2f}" lengthAdjust="spacingAndGlyphs"'
        return f"<text {attrs}>{content}</text>"

    svg = re.sub(r"<text ([^>]*)>([^<]*)</text>", fix_text, svg)
    return FAMILY_RE.sub(lambda m: f'font-family="{families(m.group(1))[0]}"', svg)


def families(value: str) -> list[str]:
    """The families of a font-family attribute, in order ("sans-serif" when none)."""
    names = [name.strip().strip("'\"") for name in html.unescape(value).split(",")]
    return [name for name in names if name] or ["sans-serif"]


def attributes(attrs: str) -> dict[str, str]:
    """name -> value of an element's attributes."""
    return dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))


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
        elements = ELEMENT_RE.findall(body)
        scaled_stroke = 'stroke="none"' not in before + after
        if any(tag not in _BAKEABLE or (scaled_stroke and "non-scaling-stroke" not in attrs)
               for tag, attrs, _ in elements):
            return match.group(0)  # text, images or scaling strokes: leave the group alone

        def point(x: float, y: float) -> str:
            return f"{num(a * x + c * y + e)},{num(b * x + d * y + f)}"

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
        return f'<g {before}transform="matrix(1,0,0,1,0,0)"{after}>{ELEMENT_RE.sub(element, body)}</g>'

    return GROUP_RE.sub(bake, svg)


def _absolute_only(d: str) -> bool:
    """Only the absolute commands Qt writes (M, L, C, Z): relative ones would need other maths."""
    return set(re.sub(NUMBER, "", d)) <= set("MLCZ ,")


def _rect_as_path(attrs: str) -> str:
    """A <rect>'s x, y, width, height as the d of an equivalent closed path."""
    found = dict(re.findall(r'\s(x|y|width|height)="([^"]*)"', attrs))
    x, y = float(found.get("x", 0)), float(found.get("y", 0))
    w, h = float(found.get("width", 0)), float(found.get("height", 0))
    rest = re.sub(r'\s(?:x|y|width|height)="[^"]*"', "", attrs)
    d = f"M{num(x)},{num(y)} L{num(x + w)},{num(y)} L{num(x + w)},{num(y + h)} L{num(x)},{num(y + h)} Z"
    return f'{rest} d="{d}"'


def num(value: float) -> str:
    return f"{value:.6g}"
