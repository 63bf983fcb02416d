"""The bundled Hangul font (NanumGothic): registered once, used as the Hangul fallback everywhere.

No system font on a student's machine is guaranteed to have Hangul glyphs, so the app ships
NanumGothic (regular + bold, OFL) in ``resources/fonts`` and registers it with Qt at start-up.
A missing or unreadable font file is logged and the default family is used instead: never a crash.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

log = logging.getLogger(__name__)

BUNDLED_FAMILY = "NanumGothic"
FONT_FILES = ("NanumGothic.ttf", "NanumGothicBold.ttf")

_family: str | None = None  # set by the first load_bundled_fonts() call


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
            log.warning("bundled font %s not found; Hangul may render as boxes", name)
            continue
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id < 0:
            log.warning("Qt could not load the bundled font %s", path)
            continue
        families.extend(QFontDatabase.applicationFontFamilies(font_id))
    return families


def _install_app_fallback(family: str) -> None:
    """Append the bundled family to the application font's family list (Hangul fallback)."""
    app = QGuiApplication.instance()
    if app is None:
        return
    font = QFont(app.font())
    primary = QFontInfo(font).family()
    if primary == family:
        return
    font.setFamilies([primary, family])
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
    families = _register(fonts_dir())
    if families:
        _family = BUNDLED_FAMILY if BUNDLED_FAMILY in families else families[0]
        _install_app_fallback(_family)
    else:
        _family = QFontInfo(QGuiApplication.font()).family()
    return _family


def ui_font(point_size: float, bold: bool = False) -> QFont:
    """The bundled family (falling back to the default one) at `point_size` points."""
    family = load_bundled_fonts()
    font = QFont(QGuiApplication.font())
    font.setFamilies([family] + [f for f in font.families() if f != family])
    font.setPointSizeF(float(point_size))
    font.setBold(bold)
    return font
