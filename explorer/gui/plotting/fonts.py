"""The bundled fonts: Explorer Sans (Noto Sans and the Indic scripts) first, NanumGothic for Hangul.

No system font on a student's machine is guaranteed to have Hangul glyphs, so the app ships
NanumGothic (regular + bold, OFL) in ``resources/fonts`` and registers it with Qt at start-up.
NanumGothic's full stop sits low and wide (0.57 reads "0,57" from the back of a room), so a Noto
Sans comes first in every family list: Qt draws digits and Latin text with it and falls back to
NanumGothic, glyph by glyph, for Hangul.

That first family is "Explorer Sans": Noto Sans (OFL) with the scripts Qt will only draw from a
font whose OpenType tables name them (Syriac, Devanagari, Bengali, Gurmukhi, Gujarati, Oriya,
Tamil, Telugu, Kannada, Malayalam, Sinhala, Khmer) merged in from the Noto Sans <Script> fonts,
each subset to its Unicode blocks with its layout features kept (resources/fonts/OFL-NotoSans.txt
says how it is built). Qt checks the *first* family of a font for those tables, then every other
family in turn, and warns "OpenType support missing for <family>, script N" for each that lacks
them, even when a later family has the glyphs: e5-small's multilingual tokens on an axis gave
153–276 such warnings a soak. With the scripts in the first family, Qt shapes them there and
never asks another. Its name is not "Noto Sans": a system Noto Sans (Debian's and Ubuntu's
fonts-noto-core) would be chosen in its place, and that one has no Indic scripts. Scripts it
does not have (Thai, Arabic, Ethiopic, Myanmar, CJK ideographs beyond NanumGothic's, ...) need
no OpenType check: Qt takes them, glyph by glyph, from whatever system font has them, or draws
its missing-glyph box.
A missing or unreadable font file is logged and the default family is used instead: never a crash.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontInfo, QGuiApplication, QPalette

log = logging.getLogger(__name__)

BUNDLED_FAMILY = "NanumGothic"  # Hangul
LATIN_FAMILY = "Explorer Sans"  # digits, Latin text and the Indic scripts, in front of the Hangul family
FONT_FILES = ("ExplorerSans-Regular.ttf", "ExplorerSans-Bold.ttf", "NanumGothic.ttf", "NanumGothicBold.ttf")

_family: str | None = None  # set by the first load_bundled_fonts() call
_families: list[str] = []   # the bundled families in drawing order (Latin first)
_scale = 1.0                # every ui_font size is multiplied by this (presentation mode)

PROJECTOR = (1024, 768)     # presentation sizes are drawn for this screen; others scale
SCALE_RANGE = (0.85, 2.0)


def screen_scale(width: int, height: int) -> float:
    """How much larger presentation text is on a `width` × `height` screen than on 1024 × 768.

    Text must keep its share of the screen: 21 px is 2.7 % of a 768 px projector but 1.9 % of
    a 1080 px one. The smaller ratio of the two sides decides, within SCALE_RANGE
    (1280 × 720 → 0.94, 1920 × 1080 → 1.41).
    """
    ratio = min(width / PROJECTOR[0], height / PROJECTOR[1])
    return min(SCALE_RANGE[1], max(SCALE_RANGE[0], ratio))


def set_font_scale(scale: float) -> None:
    """Scale every later ui_font() (views re-apply their fonts when presentation changes)."""
    global _scale
    _scale = float(scale)


def font_scale() -> float:
    return _scale


def css_pt(point_size: float) -> str:
    """A size for pyqtgraph's html labels ('15pt'), scaled like ui_font()."""
    return f"{point_size * _scale:g}pt"


def fonts_dir() -> Path | None:
    """The folder holding the bundled .ttf files, source checkout or installed package."""
    from .resources import resource_path
    return resource_path("fonts")


def _register(folder: Path | None) -> list[str]:
    """Add every bundled font file to Qt's database; the families it reports."""
    families: list[str] = []
    for name in FONT_FILES:
        path = folder / name if folder is not None else None
        if path is None or not path.is_file():
            log.warning("bundled font %s not found; Hangul or Indic text may render as boxes", name)
            continue
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id < 0:
            log.warning("Qt could not load the bundled font %s", path)
            continue
        families.extend(QFontDatabase.applicationFontFamilies(font_id))
    return families


def _install_app_fonts(families: list[str]) -> None:
    """Put the bundled families in front of the application font's own (digits, then Hangul)."""
    app = QGuiApplication.instance()
    if app is None:
        return
    font = QFont(app.font())
    primary = QFontInfo(font).family()
    font.setFamilies(families + [primary] if primary not in families else families)
    app.setFont(font)


def load_bundled_fonts() -> str:
    """Register resources/fonts/*.ttf once and return the family to use for Hangul text.

    Needs a QGuiApplication. Idempotent. Returns the default family when the files are missing.
    """
    global _family
    if _family is not None:
        return _family
    if QGuiApplication.instance() is None:
        raise RuntimeError("load_bundled_fonts() needs a QGuiApplication")
    registered = _register(fonts_dir())
    _families[:] = [f for f in (LATIN_FAMILY, BUNDLED_FAMILY) if f in registered]
    if BUNDLED_FAMILY in registered:
        _family = BUNDLED_FAMILY
    else:
        _family = QFontInfo(QGuiApplication.font()).family()
    if _families:
        _install_app_fonts(_families)
    return _family


def bundled_families() -> list[str]:
    """The families every text is drawn with, in order: Explorer Sans (digits, Latin, Indic),
    NanumGothic (Hangul); the default family alone when the files are missing."""
    hangul = load_bundled_fonts()
    return list(_families) or [hangul]


def ui_font(point_size: float, bold: bool = False) -> QFont:
    """The bundled families (then the default ones) at `point_size` points."""
    families = bundled_families()
    font = QFont(QGuiApplication.font())
    font.setFamilies(families + [f for f in font.families() if f not in families])
    font.setPointSizeF(float(point_size) * _scale)
    font.setBold(bold)
    return font


def set_text_colour(widget, colour: str | None, background: str | None = None) -> None:
    """A widget's text colour (and optionally its background) through a partial palette; None:
    the inherited ones. Used instead of a style sheet, which switches the widget to
    QStyleSheetStyle and stops it following the window's font in presentation mode."""
    palette = QPalette()  # no role set: everything not set below is inherited
    if colour is not None:
        palette.setColor(QPalette.ColorRole.WindowText, QColor(colour))
    if background is not None:
        palette.setColor(QPalette.ColorRole.Window, QColor(background))
    widget.setAutoFillBackground(background is not None)
    widget.setPalette(palette)


def set_bold(widget, bold: bool) -> None:
    """Bold or not, keeping the widget's font family and size."""
    font = widget.font()
    font.setBold(bold)
    widget.setFont(font)
