"""e5-small's multilingual tokens are drawn with the bundled fonts, without a Qt warning.

Qt draws Syriac, the Indic scripts and Khmer only from a font whose OpenType tables name the
script, and it checks every family of a font in turn until one has them: each family without
them is reported once per size and script ("OpenType support missing for "Noto Sans", script
11"), even when a later family (or a system font) has the glyphs. The soak met 153–276 such
warnings a run, from a pretrained model's tokens on the heads' token axes and in the model
source's text box. The bundled Explorer Sans (Noto Sans with these scripts merged in) is the
first family of every font, so Qt shapes them there and never warns.

Each test draws at point sizes no other test uses: Qt warns once per font engine, and an engine
another test made first would hide the warning.
"""

import unicodedata

import pytest

from PySide6.QtCore import qInstallMessageHandler
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QTextLayout

from explorer.gui.plotting import fonts

NO_SCRIPT = "OpenType support missing"

# Pieces of e5-small's vocabulary (id: piece), two of each script Qt checks for OpenType tables
# (Syriac has single letters only); test_every_complex_piece_of_e5_small reads them all.
PIECES = {
    "Syriac": {246985: "ܐ", 248238: "ܠ"},
    "Devanagari": {287: "▁के", 356: "को"},
    "Bengali": {896: "ের", 2801: "য়"},
    "Gurmukhi": {1075: "▁ਦੇ", 1370: "▁ਦੀ"},
    "Gujarati": {666: "▁છે", 1074: "માં"},
    "Oriya": {868: "ରେ", 2036: "କୁ"},
    "Tamil": {938: "ம்", 1629: "கள்"},
    "Telugu": {1296: "లో", 1361: "లు"},
    "Kannada": {2321: "ಗಳು", 2474: "ರು"},
    "Malayalam": {1626: "ന്", 1763: "▁ഒരു"},
    "Sinhala": {942: "ක්", 1386: "ත්"},
    "Khmer": {2399: "▁និង", 2904: "▁បាន"},
}
COMPLEX = tuple(name.upper() for name in PIECES)  # Unicode character names start with these


@pytest.fixture
def qt_messages(qapp):
    """Every Qt message while the test runs (the previous handler restored after)."""
    messages: list[str] = []
    previous = qInstallMessageHandler(lambda mode, context, text: messages.append(text))
    yield messages
    qInstallMessageHandler(previous)


def _draw(text: str, font: QFont) -> list[tuple[str, list[int]]]:
    """Paint `text` with `font` and lay it out: (family, glyph indexes) of each glyph run."""
    image = QImage(400, 60, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor("black"))
    painter.drawText(4, 40, text)
    painter.end()
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return [(run.rawFont().familyName(), list(run.glyphIndexes())) for run in layout.glyphRuns()]


def _complex(pieces) -> list[str]:
    """The pieces with a letter of a script Qt checks (▁, the word start, drawn as a space)."""
    return [p.replace("▁", " ").strip() for p in pieces
            if any(unicodedata.name(c, "").startswith(COMPLEX) for c in p)]


@pytest.mark.parametrize("bold", [False, True])
def test_e5_pieces_of_every_complex_script_draw_from_the_bundled_font_without_warning(qt_messages, bold):
    fonts.load_bundled_fonts()
    for size in (10.25, 17.75):
        font = fonts.ui_font(size, bold)
        for script, pieces in PIECES.items():
            for piece in _complex(pieces.values()):
                runs = _draw(piece, font)
                assert runs and all(family == fonts.LATIN_FAMILY for family, _ in runs), (script, piece, runs)
                assert all(0 not in glyphs for _, glyphs in runs), f"{script} {piece!r}: a missing glyph"
    assert not [m for m in qt_messages if NO_SCRIPT in m]


def test_the_application_font_draws_them_without_warning(qt_messages):
    """Widgets (the model source's text box) draw with the application font."""
    from PySide6.QtGui import QGuiApplication
    fonts.load_bundled_fonts()
    font = QFont(QGuiApplication.font())
    font.setPointSizeF(11.125)
    text = " ".join(p for pieces in PIECES.values() for p in _complex(pieces.values()))
    runs = _draw(text, font)
    assert {family for family, _ in runs if family != fonts.LATIN_FAMILY} == set()
    assert not [m for m in qt_messages if NO_SCRIPT in m]


def test_token_axis_ticks_and_a_line_edit_draw_them_without_warning(qt_messages):
    """The two places the soak's warnings came from: the heads' token axes (pyqtgraph measures
    and paints every tick text) and the model source's QLineEdit (laid out, then re-fonted by
    presentation mode)."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication, QLineEdit
    from explorer.gui.plotting.token_axis import TokenAxis
    fonts.load_bundled_fonts()
    tokens = [p for pieces in PIECES.values() for p in _complex(pieces.values())]
    axis = TokenAxis("bottom")
    plot = pg.PlotWidget(axisItems={"bottom": axis})
    axis.setStyle(tickFont=fonts.ui_font(12.625))
    axis.setTicks([[(i, t) for i, t in enumerate(tokens)]])
    plot.setXRange(-0.5, len(tokens) - 0.5, padding=0)
    plot.resize(1200, 300)
    edit = QLineEdit(" ".join(tokens))
    edit.setFont(fonts.ui_font(9.375))
    try:
        plot.show()
        edit.show()
        QApplication.processEvents()
        plot.grab()
        edit.grab()
        edit.setFont(fonts.ui_font(19.875))  # presentation mode's larger font
        QApplication.processEvents()
        edit.grab()
    finally:
        plot.close()
        edit.close()
        plot.deleteLater()
        edit.deleteLater()
    assert not [m for m in qt_messages if NO_SCRIPT in m]


def test_a_first_family_without_the_scripts_warns(qt_messages):
    """What the tests above would see without Explorer Sans first: the old first family (Noto
    Sans, like NanumGothic here, has none of these scripts) warns for each script."""
    fonts.load_bundled_fonts()
    font = fonts.ui_font(14.375)
    font.setFamilies([fonts.BUNDLED_FAMILY, fonts.LATIN_FAMILY])
    _draw("के கள்", font)
    warned = [m for m in qt_messages if NO_SCRIPT in m]
    assert any(f'"{fonts.BUNDLED_FAMILY}", script 11' in m for m in warned), qt_messages  # Devanagari
    assert any(f'"{fonts.BUNDLED_FAMILY}", script 16' in m for m in warned), qt_messages  # Tamil


def test_every_complex_piece_of_e5_small(qt_messages):
    """All of e5-small's pieces in these scripts (about 34,000) have glyphs in the bundled font."""
    from explorer.core.learned import get_spec, is_installed, weights_path
    spec = get_spec("e5-small")
    if not is_installed(spec):
        pytest.skip(f"e5-small is not installed ({spec.install_command})")
    from explorer.core.learned.e5s1 import E5S1File
    vocab = E5S1File(weights_path(spec)).vocab
    for i, piece in PIECES["Devanagari"].items():
        assert vocab.pieces[i] == piece
    pieces = [p for p in _complex(vocab.pieces) if p]
    assert len(pieces) > 1000
    fonts.load_bundled_fonts()
    font = fonts.ui_font(8.875)
    missing = []
    for piece in pieces:
        for family, glyphs in _draw(piece, font):
            if family != fonts.LATIN_FAMILY or 0 in glyphs:
                missing.append((piece, family))
    assert not missing[:20], f"{len(missing)} pieces not drawn from {fonts.LATIN_FAMILY}"
    assert not [m for m in qt_messages if NO_SCRIPT in m]
