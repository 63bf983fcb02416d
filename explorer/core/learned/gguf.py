"""A GGUF reader (llama.cpp's file format): metadata and tensors as numpy, no pickle, no gguf package.

Only what SmolLM2's file needs: F32, F16 and the 4-bit Q4_0 / Q4_1 block types, plus Q8_0.
The file is memory-mapped; a tensor is dequantised to float32 when asked for.
Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (little-endian, version 2 or 3).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .quant import dequantize_q4_0, dequantize_q4_1, dequantize_q8_0

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
# ggml type id -> (name, elements per block, bytes per block)
GGML_TYPES = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20),
              8: ("Q8_0", 32, 34)}


class GGUFError(ValueError):
    """The file is not a GGUF file this reader understands."""


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]  # numpy order (the file lists dims fastest first; reversed here)
    ggml_type: int
    offset: int             # from the start of the file


class _Cursor:
    def __init__(self, buf: memoryview):
        self.buf, self.pos = buf, 0

    def unpack(self, fmt: str):
        value = struct.unpack_from(fmt, self.buf, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        n = self.unpack("<Q")
        text = bytes(self.buf[self.pos:self.pos + n]).decode("utf-8", errors="surrogateescape")
        self.pos += n
        return text

    def value(self, kind: int):
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item_kind, count = self.unpack("<I"), self.unpack("<Q")
            if item_kind in _SCALARS and item_kind != 7:
                dtype = np.dtype(_SCALARS[item_kind])
                arr = np.frombuffer(self.buf, dtype=dtype, count=count, offset=self.pos)
                self.pos += count * dtype.itemsize
                return arr
            return [self.value(item_kind) for _ in range(count)]
        if kind not in _SCALARS:
            raise GGUFError(f"unknown GGUF value type {kind}")
        return self.unpack(_SCALARS[kind])


class GGUFFile:
    """metadata: dict of key -> value; tensors: dict of name -> TensorInfo; tensor(name) -> float32."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._map = np.memmap(self.path, dtype=np.uint8, mode="r")
        cur = _Cursor(memoryview(self._map))
        if bytes(self._map[:4]) != b"GGUF":
            raise GGUFError(f"{self.path.name} is not a GGUF file")
        cur.pos = 4
        version = cur.unpack("<I")
        if version not in (2, 3):
            raise GGUFError(f"GGUF version {version} is not supported")
        n_tensors, n_kv = cur.unpack("<Q"), cur.unpack("<Q")
        self.metadata = {}
        for _ in range(n_kv):
            key = cur.string()
            self.metadata[key] = cur.value(cur.unpack("<I"))
        infos = []
        for _ in range(n_tensors):
            name = cur.string()
            dims = [cur.unpack("<Q") for _ in range(cur.unpack("<I"))]
            infos.append((name, tuple(reversed(dims)), cur.unpack("<I"), cur.unpack("<Q")))
        align = int(self.metadata.get("general.alignment", 32))
        data_start = -(-cur.pos // align) * align
        self.tensors = {name: TensorInfo(name, shape, kind, data_start + off)
                        for name, shape, kind, off in infos}

    def tensor(self, name: str) -> np.ndarray:
        """The tensor as float32 in numpy order, e.g. a weight (out, in)."""
        info = self.tensors[name]
        if info.ggml_type not in GGML_TYPES:
            raise GGUFError(f"{name}: ggml type {info.ggml_type} is not supported")
        _, per_block, block_bytes = GGML_TYPES[info.ggml_type]
        count = int(np.prod(info.shape))
        raw = self._map[info.offset:info.offset + count // per_block * block_bytes]
        if info.ggml_type == 0:
            flat = raw.view(np.float32).copy()
        elif info.ggml_type == 1:
            flat = raw.view(np.float16).astype(np.float32)
        else:
            flat = {2: dequantize_q4_0, 3: dequantize_q4_1, 8: dequantize_q8_0}[info.ggml_type](raw)
        return flat.reshape(info.shape)
