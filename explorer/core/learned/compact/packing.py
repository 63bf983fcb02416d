"""Packed weights for generation: a decoder's matrices in 4 or 8 bits, one matmul kernel (issue 26).

Why: a cached step multiplies ONE row by every weight matrix, so its time is the time to read the
weights. SmolLM2 in float32 reads 540 MB a step; packed, about 100 MB. torch's CPU kernel for
4-bit weights (`_weight_int4pack_mm_for_cpu`, bfloat16 activations, a bfloat16 scale and offset
per 32 weights of a row: w = (q − 8)·s + z, q in 0..15) is the fast one measured on this
project's AVX-512 machine: on the 49,152 × 576 output layer at one row it took 1–2 ms where torch's
8-bit kernel (`_weight_int8pack_mm`, one scale per row) took 6.5–12 ms and float32 F.linear 13–18 ms;
bfloat16 weights through F.linear gained nothing over float32 (benchmarks/generation.py measures
every kind in whole steps). The kernel is chosen where torch dispatches to AVX-512 or AVX2 (whole
steps measured 5× and 3× faster than float32 there) and measured elsewhere (packed_is_faster).

Two kinds of packed matrix, chosen per matrix from its values:

- "int4": 4 bits and a (min, step) per 32 weights, where the weights already lie on such a grid
  (SmolLM2's file keeps its layers as Q4_1 blocks: w = q·d + m). Nothing is lost but the rounding
  of d and m to bfloat16.
- "int8": 8 bits, one scale per 32 weights (Q8_0's layout: w = q·d, q in −127..127; SmolLM2's
  embedding, and every own checkpoint's matrices), computed as two 4-bit planes by the same
  kernel: with u = q + 128 = 16·hi + lo, plane hi (s = 16d, z = 0) gives 16d·hi − 128d and plane lo
  (s = d, z = 8d) gives d·lo; their sum is d·q. Weights already in Q8_0 are kept exactly.

Two more kinds exist to be measured against (benchmarks/generation.py, `pack(..., kind=)`), never
chosen by themselves: "bfloat16" (F.linear on bfloat16 weights) and "int8-row" (torch's 8-bit kernel,
`_weight_int8pack_mm`, one scale per row).

A shape the kernel does not take (in-features not a multiple of 32) stays float32. Packing runs
in row chunks (the kernel's packing is row by row), so its peak is one chunk over the packed
bytes. Qt-free; torch is imported by the caller's module (generation imports this on use).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import torch
import torch.nn.functional as F

GROUP = 32        # weights per scale (the kernel's group size, and GGUF's block)
ROWS = 64         # rows padded to a multiple of 64: the kernel packs blocks of 64 rows (16 is
                  # accepted, but a second plane starting off a 64-row block reads wrong rows)
CHUNK = 8192      # rows packed at a time (bounds the packing's temporary float32 copies)
GRID_STEPS = 1e-3  # "on a 4-bit grid": every weight within this many steps of its grid point


@dataclass
class Packed:
    """One weight matrix (out, in), packed, with its bias; `(x)` -> float32 (1, out)."""

    kind: str                    # "int4", "int8" or "float32" (or, to measure: "bfloat16", "int8-row")
    out: int                     # rows of the matrix (before padding to ROWS)
    weight: torch.Tensor         # int4/int8: the kernel's packed uint8; float32: the matrix itself
    scales: torch.Tensor | None  # (in / GROUP, padded rows (× 2 planes for int8), 2) bfloat16
    bias: torch.Tensor | None    # (out,) float32

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """x (1, in) float32 -> (1, out) float32."""
        if self.kind == "float32":
            return F.linear(x, self.weight, self.bias)
        if self.kind in ("bfloat16", "int8-row"):
            y = (F.linear(x.to(torch.bfloat16), self.weight) if self.kind == "bfloat16" else
                 torch._weight_int8pack_mm(x.to(torch.bfloat16), self.weight, self.scales)).float()
            return y if self.bias is None else y + self.bias
        y = torch._weight_int4pack_mm_for_cpu(x.to(torch.bfloat16), self.weight, GROUP, self.scales)
        if self.kind == "int8":  # the two planes' rows: hi then lo, each padded to `rows`
            rows = y.shape[1] // 2
            y = y[:, :self.out].float() + y[:, rows:rows + self.out]  # (1, out)
        else:
            y = y[:, :self.out].float()
        return y if self.bias is None else y + self.bias

    @property
    def nbytes(self) -> int:
        """What one call reads: the packed weights, their scales and the bias."""
        return sum(t.numel() * t.element_size() for t in (self.weight, self.scales, self.bias) if t is not None)


def kernel_available() -> bool:
    return all(hasattr(torch, name) for name in ("_weight_int4pack_mm_for_cpu",
                                                  "_convert_weight_to_int4pack_for_cpu"))


_MEASURED: bool | None = None  # whether the packed kernel was the faster (decided once a process)
_MEASURE_LOCK = threading.Lock()
# torch's dispatch levels (torch.backends.cpu.get_cpu_capability) where SmolLM2's whole steps were
# measured faster packed: 5× at AVX512, 3× at AVX2 (ATEN_CPU_CAPABILITY=avx2), 1 and 2 threads
# (benchmarks/generation.py, docs/benchmarks.md: issue 26, session 16).
FAST_CAPABILITIES = ("AVX512", "AVX2")  # and their variants' names ("AVX512_..."), if a torch has them
MEASURED_BYTES = 64 << 20  # the measurement's float32 working set: more than a last-level cache


def packed_is_faster() -> bool:
    """Whether the packed kernel beats float32 F.linear on this CPU: decided once per process.

    Where torch dispatches to AVX-512 or AVX2 it is known (FAST_CAPABILITIES) and nothing is
    timed: a timing is noise on a busy machine, and the choice decides a generation's numbers
    (bfloat16 or float32 steps: greedy tokens can differ) and whether a packed copy (~100 MB for
    SmolLM2) is kept beside the weights. Elsewhere (no vector unit torch uses, another
    architecture) it is measured (`_measure`).

    Once, not once per thread count: training changes torch's thread count, and a choice made
    again could flip mid-session (docs/benchmarks.md, issue 21 session 15)."""
    global _MEASURED
    with _MEASURE_LOCK:  # two runners generating at once must not measure (and decide) twice
        if _MEASURED is None:
            _MEASURED = kernel_available() and (
                torch.backends.cpu.get_cpu_capability().startswith(FAST_CAPABILITIES) or _measure())
        return _MEASURED


def measured_matrices() -> list[torch.Tensor]:
    """The measurement's weights: SmolLM2-wide (2048, 576) matrices, MEASURED_BYTES in all.

    A step reads every weight from memory once; a matrix that fits in the cache measures the
    cache instead (one 1536 × 576 matrix, 3.5 MB, timed float32 faster at AVX2 in 10 of 10 runs
    while whole steps were 3× faster packed)."""
    generator = torch.Generator().manual_seed(0)
    count = -(-MEASURED_BYTES // (2048 * 576 * 4))  # 15 matrices of 4.7 MB
    return [torch.randn(2048, 576, generator=generator) for _ in range(count)]


def _measure(rounds: int = 5) -> bool:
    """One pass over every matrix, float32 then packed, interleaved; medians of `rounds` (~0.2 s)."""
    import statistics
    import time
    weights = measured_matrices()
    packed = [pack(w) for w in weights]
    x = torch.randn(1, 576, generator=torch.Generator().manual_seed(1))
    times = {"float32": [], "packed": []}
    passes = (("float32", lambda: [F.linear(x, w) for w in weights]),
              ("packed", lambda: [p(x) for p in packed]))
    with torch.inference_mode():
        for r in range(rounds + 1):
            for name, call in passes:
                start = time.perf_counter()
                call()
                if r:  # one warm-up round
                    times[name].append(time.perf_counter() - start)
    return statistics.median(times["packed"]) < statistics.median(times["float32"])


def pack(weight: torch.Tensor, bias: torch.Tensor | None = None, kind: str | None = None) -> Packed:
    """The matrix (out, in) packed as "int4" where its values lie on a 4-bit grid, else "int8"
    (or as `kind` says: module docstring)."""
    out, inner = weight.shape
    if inner % GROUP or weight.device.type != "cpu" or not kernel_available():
        return Packed("float32", out, weight, None, bias)
    bias = None if bias is None else bias.float()
    if kind in ("bfloat16", "int8-row"):
        return _pack_other(weight, bias, kind)
    kind = kind or ("int4" if on_4bit_grid(weight) else "int8")
    planes = 1 if kind == "int4" else 2
    rows = -(-out // ROWS) * ROWS
    packed = torch.empty(planes * rows, inner // 2, dtype=torch.uint8)  # the kernel's layout
    scales = torch.empty(inner // GROUP, planes * rows, 2, dtype=torch.bfloat16)
    for start in range(0, rows, CHUNK):
        block = _rows(weight, start, min(rows, start + CHUNK))  # (chunk, in) float32, zero-padded
        parts = _int4(block) if kind == "int4" else _int8_planes(block)
        for plane, (q, sz) in enumerate(parts):
            at = slice(plane * rows + start, plane * rows + start + block.shape[0])
            packed[at] = torch._convert_weight_to_int4pack_for_cpu(q, 1)
            scales[:, at] = sz
    return Packed(kind, out, packed, scales, bias)


def _pack_other(weight: torch.Tensor, bias, kind: str) -> Packed:
    """The kinds measured against: bfloat16 weights, or int8 with one bfloat16 scale per row."""
    if kind == "bfloat16":
        return Packed(kind, weight.shape[0], weight.to(torch.bfloat16).contiguous(), None, bias)
    q = torch.empty(weight.shape, dtype=torch.int8)
    scales = torch.empty(weight.shape[0], dtype=torch.bfloat16)
    for start in range(0, weight.shape[0], CHUNK):
        rows = weight[start:start + CHUNK].float()
        s = (rows.abs().amax(-1) / 127).clamp_min(torch.finfo(torch.float32).tiny)  # (chunk,)
        q[start:start + CHUNK] = torch.round(rows / s[:, None]).clamp(-127, 127).to(torch.int8)
        scales[start:start + CHUNK] = s.to(torch.bfloat16)
    return Packed(kind, weight.shape[0], q, scales, bias)


def _rows(weight: torch.Tensor, start: int, stop: int) -> torch.Tensor:
    """Rows start..stop of the matrix as float32, zero rows past its end (the padding to ROWS)."""
    block = weight[start:min(stop, weight.shape[0])].float()
    if block.shape[0] < stop - start:
        block = torch.cat([block, block.new_zeros(stop - start - block.shape[0], block.shape[1])])
    return block.contiguous()


def _grid(block: torch.Tensor):
    """(blocks (n, in/GROUP, GROUP), min, step) of each 32 weights' 16-level grid."""
    b = block.view(block.shape[0], -1, GROUP)
    low, high = b.amin(-1), b.amax(-1)  # (n, in / GROUP)
    return b, low, ((high - low) / 15).clamp_min(torch.finfo(torch.float32).tiny)


def on_4bit_grid(weight: torch.Tensor) -> bool:
    """Every block of 32 weights (in a row) takes at most 16 evenly spaced values from its min to
    its max: a 4-bit format's own blocks (Q4_0, Q4_1), which "int4" then keeps. The first 64 rows
    are looked at first: most matrices are on no grid, and say so there."""
    n = weight.shape[0]
    bounds = sorted({0, min(ROWS, n), *range(ROWS + CHUNK, n, CHUNK), n})
    for start, stop in zip(bounds, bounds[1:]):
        b, low, step = _grid(weight[start:stop].float())
        q = torch.round((b - low[..., None]) / step[..., None])
        if ((b - low[..., None] - q * step[..., None]).abs() > GRID_STEPS * step[..., None]).any():
            return False
    return True


def _int4(block: torch.Tensor):
    """[(q (n, in) int32 0..15, scales and offsets (in/GROUP, n, 2) bfloat16)]: w ≈ (q − 8)·s + z."""
    b, low, step = _grid(block)
    q = torch.round((b - low[..., None]) / step[..., None]).clamp(0, 15).to(torch.int32)
    sz = torch.stack([step, low + 8 * step], dim=-1).transpose(0, 1)  # (in/GROUP, n, 2)
    return [(q.view(block.shape), sz.to(torch.bfloat16))]


def _int8_planes(block: torch.Tensor):
    """Two 4-bit planes whose sum is q·d, q = round(w / d) in −127..127, d = max |w| / 127 per 32."""
    b = block.view(block.shape[0], -1, GROUP)
    d = b.abs().amax(-1) / 127  # (n, in / GROUP)
    u = torch.div(b, d.clamp_min(torch.finfo(torch.float32).tiny)[..., None])  # a new tensor: in place from here
    u = u.round_().clamp_(-127, 127).add_(128).to(torch.int32)  # (n, in/GROUP, GROUP) 1..255
    zero = torch.zeros_like(d)
    hi = torch.stack([16 * d, zero], dim=-1).transpose(0, 1)  # (in/GROUP, n, 2): (hi − 8)·16d
    lo = torch.stack([d, 8 * d], dim=-1).transpose(0, 1)      # (lo − 8)·d + 8d
    return [((u >> 4).view(block.shape), hi.to(torch.bfloat16)),
            ((u & 15).view(block.shape), lo.to(torch.bfloat16))]
