"""A small, fast PNG encoder for opaque figures (numpy + zlib, deflate on several threads).

Why not QImage.save: at 4× a heads grid is 10–50 million pixels and Qt's encoder (libpng
trying every row filter, one thread) takes most of the export time. Figures are flat colour
areas, for which the "Up" filter alone compresses as well, and the deflate stream can be
cut into pieces compressed in parallel (as pigz does: each piece primed with the previous
32 KiB, joined by sync flushes), which zlib does with the GIL released.
The output is a plain 8-bit RGB PNG any decoder reads; tests decode it with Qt.
Qt-free: it encodes (h, w, 3) uint8 arrays. A QImage's pixels come from
`explorer.gui.export.render.image_rgb`, and `render.encode_png` encodes a QImage.

`PngStream` encodes an image given in horizontal bands (gui/export/render.py draws images too large
to hold whole band by band): the Up filter carries the last row over, each band's deflate
pieces are primed with the 32 KiB before them, and each band becomes one IDAT chunk.
"""

from __future__ import annotations

import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1           # figures are flat colour: level 1 is 3× faster than 6 for ~2× the bytes
PIECE_BYTES = 4 << 20   # below this, one piece: threads would cost more than they save
WINDOW = 32 << 10       # deflate's window: each piece is primed with the previous 32 KiB
MAX_THREADS = 8


def encode_rgb(rgb: np.ndarray, dots_per_metre: tuple[int, int] = (0, 0),
               text: dict[str, str] | None = None, level: int = LEVEL,
               threads: int | None = None) -> bytes:
    """(h, w, 3) uint8 colours as PNG bytes, with UTF-8 text chunks and the dots per metre
    (written when both are positive)."""
    height, width, _ = rgb.shape
    chunks = [_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))]
    dpm_x, dpm_y = dots_per_metre
    if dpm_x > 0 and dpm_y > 0:
        chunks.append(_chunk(b"pHYs", struct.pack(">IIB", dpm_x, dpm_y, 1)))
    for key, value in (text or {}).items():
        chunks.append(_chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + value.encode("utf-8")))
    raw = up_filtered(rgb)
    chunks.append(_chunk(b"IDAT", deflate(raw, level, threads)))
    chunks.append(_chunk(b"IEND", b""))
    return SIGNATURE + b"".join(chunks)


def up_filtered(rgb: np.ndarray) -> memoryview:
    """Scanlines with filter type 2 (Up): each byte minus the byte above, modulo 256.

    A flat view of the filtered array, not a bytes copy (at 32 M pixels that is 100 MB)."""
    h, w, _ = rgb.shape
    flat = rgb.reshape(h, w * 3)  # (h, 3w)
    out = np.empty((h, w * 3 + 1), np.uint8)  # (h, 1 + 3w)
    out[:, 0] = 2
    out[0, 1:] = flat[0]
    np.subtract(flat[1:], flat[:-1], out=out[1:, 1:])  # uint8 arithmetic wraps, as PNG wants
    return memoryview(out.reshape(-1))


def deflate(raw, level: int = LEVEL, threads: int | None = None) -> bytes:
    """A zlib stream of `raw` (bytes-like), its pieces compressed on up to `threads` threads."""
    threads = threads or min(MAX_THREADS, os.cpu_count() or 1)
    pieces = max(1, min(threads * 2, len(raw) // PIECE_BYTES)) if threads > 1 else 1
    if pieces == 1:
        return zlib.compress(raw, level)
    view = memoryview(raw)
    bounds = [len(raw) * i // pieces for i in range(pieces + 1)]

    def piece(i: int) -> bytes:
        start, stop = bounds[i], bounds[i + 1]
        primer = bytes(view[max(0, start - WINDOW):start])
        comp = zlib.compressobj(level, zlib.DEFLATED, -15, zdict=primer) if primer else \
            zlib.compressobj(level, zlib.DEFLATED, -15)
        last = i == pieces - 1
        return comp.compress(view[start:stop]) + comp.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        body = b"".join(pool.map(piece, range(pieces)))
    header = b"\x78\x9c"  # deflate, 32 KiB window, default level; (0x789c % 31 == 0)
    return header + body + struct.pack(">I", zlib.adler32(raw))


class PngStream:
    """A PNG made from successive bands of rows; `finish()` returns the file's bytes.

    Only one band, the last row and 32 KiB of the filtered stream are held at a time (plus
    the compressed output, which for figures is a few per cent of the pixels).
    """

    def __init__(self, width: int, height: int, dots_per_metre: tuple[int, int] = (0, 0),
                 text: dict[str, str] | None = None, level: int = LEVEL, threads: int | None = None):
        self.width, self.height, self.rows = width, height, 0
        self.level = level
        self.threads = threads or min(MAX_THREADS, os.cpu_count() or 1)
        self._previous: np.ndarray | None = None  # (3w,) the last row added
        self._tail = b""  # the last WINDOW bytes of the filtered stream
        self._adler = 1
        self._parts = [SIGNATURE, _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))]
        if dots_per_metre[0] > 0 and dots_per_metre[1] > 0:
            self._parts.append(_chunk(b"pHYs", struct.pack(">IIB", *dots_per_metre, 1)))
        for key, value in (text or {}).items():
            self._parts.append(_chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + value.encode("utf-8")))
        self._header_done = False

    def add_rows(self, rgb: np.ndarray) -> None:
        """The next rows of the image: (b, width, 3) uint8."""
        b, w, _ = rgb.shape
        if w != self.width or self.rows + b > self.height:
            raise ValueError(f"rows of width {w} at row {self.rows} do not fit {self.width}×{self.height}")
        flat = rgb.reshape(b, w * 3)  # (b, 3w)
        out = np.empty((b, w * 3 + 1), np.uint8)  # (b, 1 + 3w)
        out[:, 0] = 2
        out[0, 1:] = flat[0] if self._previous is None else flat[0] - self._previous  # wraps mod 256
        np.subtract(flat[1:], flat[:-1], out=out[1:, 1:])
        self._previous = flat[-1].copy()
        raw = out.tobytes()
        self._adler = zlib.adler32(raw, self._adler)
        body = self._deflate(raw)
        if not self._header_done:
            body, self._header_done = b"\x78\x9c" + body, True
        self._parts.append(_chunk(b"IDAT", body))
        self._tail = (self._tail + raw)[-WINDOW:]
        self.rows += b

    def finish(self) -> bytes:
        if self.rows != self.height:
            raise ValueError(f"only {self.rows} of {self.height} rows were added")
        end = zlib.compressobj(self.level, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # empty last block
        self._parts.append(_chunk(b"IDAT", end + struct.pack(">I", self._adler)))
        self._parts.append(_chunk(b"IEND", b""))
        data = b"".join(self._parts)
        self._parts = []
        return data

    def _deflate(self, raw: bytes) -> bytes:
        """Raw deflate of one band, ending in a sync flush, in pieces on several threads."""
        pieces = max(1, min(self.threads * 2, len(raw) // PIECE_BYTES)) if self.threads > 1 else 1
        stream = self._tail + raw
        offset = len(self._tail)
        bounds = [offset + len(raw) * i // pieces for i in range(pieces + 1)]
        view = memoryview(stream)

        def piece(i: int) -> bytes:
            start, stop = bounds[i], bounds[i + 1]
            primer = bytes(view[max(0, start - WINDOW):start])
            comp = zlib.compressobj(self.level, zlib.DEFLATED, -15, zdict=primer) if primer else \
                zlib.compressobj(self.level, zlib.DEFLATED, -15)
            return comp.compress(view[start:stop]) + comp.flush(zlib.Z_SYNC_FLUSH)

        if pieces == 1:
            return piece(0)
        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            return b"".join(pool.map(piece, range(pieces)))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
