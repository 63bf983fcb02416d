"""x @ weight.T (+ bias) on torch's CPU: oneDNN's kernel where it applies (every model's full pass,
the torch backend's projections).

Why (issue 26): torch's CPU F.linear goes to MKL, which on this project's AMD EPYC took twice as
long as oneDNN's kernel for every layer shape of MiniLM and SmolLM2 at 16 to 256 rows, 1 and 2
threads, and for the torch backend's 512 × 512 projections (e.g. 256 × 384 → 1536: 1.30 ms against
0.59 ms; benchmarks/linear_kernels.py). On an earlier AVX-512 Xeon the layers' products were as
fast either way. Below MIN_ROWS rows (a cached
step's single row) oneDNN was slower, so F.linear stays there.

oneDNN serves CPU float32 without autograd (a LoRA being trained keeps F.linear, which can be
differentiated); anything else, or a torch without the op, takes F.linear. The same product up
to float32 round-off (another order of the in-feature sums). Imported only with torch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

MIN_ROWS = 4  # fewer rows: F.linear (oneDNN measured slower at 1 and 2 rows)
_onednn = torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")


def uses_onednn(x: torch.Tensor, weight: torch.Tensor) -> bool:
    """Whether `linear(x, weight)` takes oneDNN's kernel."""
    return (_onednn and x.dim() == 2 and x.shape[0] >= MIN_ROWS and x.device.type == "cpu"
            and x.dtype == weight.dtype == torch.float32 and not torch.is_grad_enabled())


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """x (n, in) @ weight (out, in).T + bias (out,) -> (n, out), as F.linear."""
    global _onednn
    if uses_onednn(x, weight):
        try:
            return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")  # (n, out)
        except (RuntimeError, NotImplementedError):  # a build whose op refuses these: F.linear from now on
            _onednn = False
    return F.linear(x, weight, bias)
