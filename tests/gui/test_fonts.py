"""The bundled NanumGothic: registered once, used for Hangul, never a crash when missing."""

import logging

import pytest

from PySide6.QtGui import (QColor, QFont, QFontDatabase, QFontMetrics, QGuiApplication, QImage,
                           QPainter, QTextLayout)

from explorer.gui.plotting import fonts
from explorer.gui.plotting.fonts import LATIN_FAMILY


def _image_of(text: str, font: QFont) -> QImage:
    image = QImage(120, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor("black"))
    painter.drawText(4, 30, text)
    painter.end()
    return image


def _fonts_used(text: str, font: QFont) -> list[str]:
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return [run.rawFont().familyName() for run in layout.glyphRuns()]


def test_bundled_font_is_registered_once(qapp):
    family = fonts.load_bundled_fonts()
    assert family == "NanumGothic"
    assert fonts.load_bundled_fonts() == family  # idempotent
    assert family in QFontDatabase.families()
    assert set(QFontDatabase.styles(family)) >= {"Regular", "Bold"}


def test_fonts_dir_holds_the_ttf_files():
    folder = fonts.fonts_dir()
    assert folder is not None
    for name in fonts.FONT_FILES:
        assert (folder / name).is_file()


def test_ui_font_has_hangul_glyphs(qapp):
    font = fonts.ui_font(12)
    assert font.families()[:2] == [LATIN_FAMILY, "NanumGothic"]
    assert font.pointSizeF() == 12
    metrics = QFontMetrics(font)
    for char in "나는학교에버스로갔다":
        assert metrics.inFontUcs4(ord(char))
    assert fonts.ui_font(12, bold=True).bold()


def test_hangul_renders_as_glyphs_not_boxes(qapp):
    no_hangul = QFont("DejaVu Sans", 12)
    no_hangul.setStyleStrategy(QFont.StyleStrategy.NoFontMerging)
    assert not QFontMetrics(no_hangul).inFontUcs4(ord("학"))
    bundled = _image_of("학교", fonts.ui_font(12))
    boxes = _image_of("학교", no_hangul)
    assert bundled != boxes
    # distinct glyphs draw distinct pictures; missing-glyph boxes all look alike
    assert _image_of("학", fonts.ui_font(12)) != _image_of("교", fonts.ui_font(12))


def test_application_font_falls_back_to_the_bundled_family(qapp):
    fonts.load_bundled_fonts()
    assert QGuiApplication.font().families()[:2] == [LATIN_FAMILY, "NanumGothic"]
    assert "NanumGothic" in _fonts_used("학교 abc", QGuiApplication.font())


@pytest.mark.parametrize("make_font", [lambda: fonts.ui_font(12), QGuiApplication.font])
def test_digits_use_the_latin_face_and_hangul_the_korean_one(qapp, make_font):
    """NanumGothic's low, wide full stop made 0.57 read as 0,57: digits come from Noto Sans."""
    fonts.load_bundled_fonts()
    assert _fonts_used("0.57", make_font()) == [LATIN_FAMILY]
    assert _fonts_used("학교", make_font()) == ["NanumGothic"]
    assert set(_fonts_used("학교 0.57", make_font())) == {LATIN_FAMILY, "NanumGothic"}


def test_missing_font_files_fall_back_without_crashing(qapp, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(fonts, "_family", None)
    monkeypatch.setattr(fonts, "_families", [])
    monkeypatch.setattr(fonts, "fonts_dir", lambda: tmp_path)  # an empty folder
    with caplog.at_level(logging.WARNING, logger="explorer.gui.plotting.fonts"):
        family = fonts.load_bundled_fonts()
    assert family  # the default family, whatever it is here
    assert "not found" in caplog.text
    assert isinstance(fonts.ui_font(10), QFont)


def test_no_fonts_folder_at_all_is_survivable(qapp, monkeypatch):
    monkeypatch.setattr(fonts, "_family", None)
    monkeypatch.setattr(fonts, "_families", [])
    monkeypatch.setattr(fonts, "fonts_dir", lambda: None)
    assert fonts.load_bundled_fonts()


def test_text_colour_by_palette_keeps_following_the_parents_font(qtbot):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
    from explorer.gui.plotting.fonts import set_text_colour, ui_font

    parent = QWidget()
    qtbot.addWidget(parent)
    label = QLabel("not applied", parent)
    QVBoxLayout(parent).addWidget(label)
    set_text_colour(label, "#b00020")
    parent.setFont(ui_font(16))  # presentation mode sets the window's font
    assert label.font().pointSizeF() == ui_font(16).pointSizeF()
    assert label.palette().color(QPalette.ColorRole.WindowText).name() == "#b00020"
    set_text_colour(label, None)
    assert label.palette().color(QPalette.ColorRole.WindowText) == \
        parent.palette().color(QPalette.ColorRole.WindowText)
    assert label.styleSheet() == ""


def test_only_check_box_indicators_use_style_sheets(qtbot, make_window):
    """Colours and weights are palettes and fonts; a check box's indicator size is the one
    thing Qt offers only through a style sheet (topics.widgets.checkbox_style)."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QWidget
    from explorer.gui.topics import TOPICS

    window = make_window()
    controller = window.findChild(QObject, "topics_controller")
    for topic in TOPICS:
        controller.show_topic(topic.key)
    window.state.view.presentation = True
    sheets = [w.styleSheet() for w in window.findChildren(QWidget) if w.styleSheet()]
    assert sheets and all(s.startswith("QCheckBox::indicator") for s in sheets), sheets
