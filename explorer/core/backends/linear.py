"""x @ weight.T (+ bias) on torch's CPU: oneDNN's kernel where it applies (every model's full pass,
the torch backend's projections).

Why (issue 26): torch's CPU F.linear goes to MKL, which on this project's AMD EPYC took twice as
long as oneDNN's kernel for every layer shape of MiniLM and SmolLM2 at 16 to 256 rows, 1 and 2
threads, and for the torch backend's 512 × 512 projections (e.g. 256 × 384 → 1536: 1.30 ms against
0.59 ms; benchmarks/linear_kernels.py). On an earlier AVX-512 Xeon the layers' products were as
fast either way. Below MIN_ROWS rows (a cached step's single row) oneDNN was slower, so F.linear
stays there.

oneDNN serves CPU float32 without autograd (a LoRA being trained keeps F.linear, which can be
differentiated); anything else, a torch without the op, or operands it refuses take F.linear. The same product up
to float32 round-off (another order of the in-feature sums). Imported only with torch.
"""

from __future__ import annotations

import os

import torch
import torch.nn.functional as F

MIN_ROWS = 4  # fewer rows: F.linear (oneDNN measured slower at 1 and 2 rows)

# oneDNN keeps what it made for every product shape it has run, in two caches (its primitive cache
# and ideep's, 1024 shapes each by default) at ~0.4-0.6 MB a shape whatever the matrix: every text
# length typed is new shapes, so a session grew without bound in practice (the soak: +107 MB in use,
# 200 lengths of one matrix +111 MB). Bounded before the first product (the variables are read
# then; a user's own setting is kept): 32 shapes, ~5 lengths of a decoder's 6 shapes, ~13 MB. A shape
# made again costs ~1.6 ms (a new length's first pass), the same as without the caches.
CACHED_SHAPES = 32
for _name in ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY"):
    os.environ.setdefault(_name, str(CACHED_SHAPES))
_onednn = torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")


def uses_onednn(x: torch.Tensor, weight: torch.Tensor) -> bool:
    """Whether `linear(x, weight)` takes oneDNN's kernel."""
    return (_onednn and x.dim() == 2 and x.shape[0] >= MIN_ROWS and x.device.type == "cpu"
            and x.dtype == weight.dtype == torch.float32 and not torch.is_grad_enabled())


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """x (n, in) @ weight (out, in).T + bias (out,) -> (n, out), as F.linear."""
    if uses_onednn(x, weight):
        try:
            return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")  # (n, out)
        except (RuntimeError, NotImplementedError):  # operands this build's op refuses: F.linear for them
            pass
    return F.linear(x, weight, bias)
