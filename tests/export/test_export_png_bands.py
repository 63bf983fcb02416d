"""Large PNGs drawn and encoded in bands: the same picture as one QImage, never held whole."""

import struct
import zlib

import numpy as np
import pytest
from PySide6.QtGui import QImage

from explorer.core import AttentionConfig, forward, get_preset
from explorer.export import png
from explorer.gui.export import render
from explorer.export.naming import parse_what
from explorer.export.png import PngStream
from explorer.gui.export.render import encode_png, image_rgb, render_bands, render_image, render_png
from explorer.gui.window.exports.figures import ExportOptions, build_figure, figure_bytes

LAB3 = get_preset("course-lab3").config
MID = AttentionConfig(tokens=tuple(f"t{i}" for i in range(40)), d_model=64, n_heads=4, seed=2)


def decoded_rgb(data: bytes) -> np.ndarray:
    image = QImage.fromData(data, "PNG")
    assert not image.isNull()
    return image_rgb(image)


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    out, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        out.append((data[at + 4:at + 8], data[at + 8:at + 8 + length]))
        at += 12 + length
    return out


@pytest.fixture
def frame(qtbot):
    made = []

    def make(config=MID, spec="heads", **kw):
        made.append(build_figure(parse_what(spec, config)[0], forward(config), **kw))
        return made[-1]
    yield make
    for f in made:
        f.close()


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("band_rows", [1, 7, 50, 200])
def test_png_stream_round_trips_exactly(qapp, monkeypatch, threads, band_rows):
    monkeypatch.setattr(png, "PIECE_BYTES", 500)  # several deflate pieces a band
    rng = np.random.default_rng(band_rows)
    rgb = rng.integers(0, 256, (123, 301, 3), dtype=np.uint8)  # (h, w, 3)
    rgb[40:90] = (200, 30, 60)  # flat areas as in figures, and noise
    stream = PngStream(301, 123, (3780, 3780), {"Description": "학교에 d8"}, threads=threads)
    for top in range(0, 123, band_rows):
        stream.add_rows(rgb[top:top + band_rows])
    data = stream.finish()
    np.testing.assert_array_equal(decoded_rgb(data), rgb)
    parts = chunks(data)
    stream_bytes = b"".join(body for kind, body in parts if kind == b"IDAT")
    raw = zlib.decompress(stream_bytes)  # one valid zlib stream, checksum included
    assert len(raw) == 123 * (1 + 3 * 301)
    assert [k for k, _ in parts][:4] == [b"IHDR", b"pHYs", b"iTXt", b"IDAT"] and parts[-1][0] == b"IEND"
    assert "학교에 d8".encode() in dict(parts)[b"iTXt"]


def test_png_stream_refuses_missing_or_extra_rows(qapp):
    stream = PngStream(4, 3)
    stream.add_rows(np.zeros((2, 4, 3), np.uint8))
    with pytest.raises(ValueError):
        stream.finish()
    with pytest.raises(ValueError):
        stream.add_rows(np.zeros((2, 4, 3), np.uint8))


@pytest.mark.parametrize("scale, band_pixels", [(2, 100_000), (3, 1_000_000), (2.5, 333_333)])
def test_banded_render_equals_the_one_shot_render(frame, scale, band_pixels):
    """Equal except where Qt's clipped image scaling rounds differently: a heatmap cell edge
    moves by one row (the pixel takes the one-shot colour just above or below it) or a
    smoothly scaled gradient (the colour bar) is off by a few levels."""
    figure = frame(title=True)
    one = image_rgb(render_image(figure, scale, None, figure.colours.background))
    bands = list(render_bands(figure, scale, None, figure.colours.background, band_pixels))
    assert len(bands) > 3
    assert [top for top, _ in bands] == sorted({top for top, _ in bands})
    banded = np.concatenate([rgb for _, rgb in bands])
    assert banded.shape == one.shape
    differs = np.any(banded != one, axis=2)  # (h, w)
    assert differs.mean() < 0.002
    rows, cols = np.nonzero(differs)
    above = one[np.maximum(rows - 1, 0), cols]
    below = one[np.minimum(rows + 1, one.shape[0] - 1), cols]
    moved_edge = np.all(banded[rows, cols] == above, axis=1) | np.all(banded[rows, cols] == below, axis=1)
    near = np.abs(banded[rows, cols].astype(int) - one[rows, cols]).max(axis=1) <= 8
    assert (moved_edge | near).all()


def test_large_png_goes_through_bands_with_its_metadata(frame, monkeypatch):
    monkeypatch.setattr(render, "ONE_SHOT_PIXELS", 10_000)
    monkeypatch.setattr(render, "BAND_PIXELS", 200_000)
    figure = frame()
    data = figure_bytes(figure, ExportOptions(fmt="png", scale=2))
    one = render_image(figure, 2, None, figure.colours.background)
    assert len([k for k, _ in chunks(data) if k == b"IDAT"]) > 3  # banded
    rgb = decoded_rgb(data)
    assert rgb.shape == (one.height(), one.width(), 3)
    assert np.any(rgb != image_rgb(one), axis=2).mean() < 0.002
    image = QImage.fromData(data, "PNG")
    assert image.dotsPerMeterX() == one.dotsPerMeterX()
    assert image.text("Description") == figure.description


@pytest.mark.parametrize("scale", [1, 2, 4, 8])
def test_course_preset_exports_are_one_shot_and_unchanged(frame, scale):
    """Below ONE_SHOT_PIXELS (the course preset even at 8×) the bytes are those of the
    single-image encoder, so its pixels are exactly what they were."""
    figure = frame(LAB3, title=True)
    image = render_image(figure, scale, None, figure.colours.background)
    assert image.width() * image.height() <= render.ONE_SHOT_PIXELS
    expected = encode_png(image, {"Description": figure.description})
    assert render_png(figure, scale, None, figure.colours.background, figure.description) == expected
