"""Multi-head attention in torch (CPU or CUDA). Imported only when a torch backend is used.

The arithmetic mirrors numpy_ops line for line; inputs come from the same numpy draw,
so a seed gives the same numbers on every backend.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import torch

from . import resolve_torch_device
from .linear import linear
from ..weights import Weights

_DTYPES = {"float64": torch.float64, "float32": torch.float32}


@lru_cache(maxsize=4)
def device_weights(weights: Weights, device: str, dtype: str) -> tuple:
    """(x, w_q, w_k, w_v, w_o) as tensors on `device`, cached so toggles don't re-upload."""
    dev = resolve_torch_device(device)
    return tuple(torch.tensor(np.array(a), dtype=_DTYPES[dtype], device=dev)  # copy: drawn arrays are read-only
                 for a in (weights.x, weights.w_q, weights.w_k, weights.w_v, weights.w_o))


def split_heads(m: torch.Tensor, n_heads: int) -> torch.Tensor:
    n, d = m.shape
    return m.reshape(n, n_heads, d // n_heads).transpose(0, 1)  # (h, n, d_head)


def masked_softmax(scores: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Softmax where allowed; masked cells exactly 0; rows with nothing allowed all 0.

    Each masked_fill is a full (h, nq, nk) copy, so it is skipped when there is nothing to mask.
    """
    if bool(allowed.all()):
        return torch.softmax(scores, dim=-1)
    neg = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(neg, dim=-1)  # NaN on fully masked rows
    empty = ~allowed.any(dim=-1, keepdim=True)  # (nq, 1)
    return weights.masked_fill(empty, 0.0) if bool(empty.any()) else weights


def attend(q, k, v, w_o, n_heads: int, allowed: torch.Tensor, scaled: bool) -> dict:
    qh, kh, vh = (split_heads(m, n_heads) for m in (q, k, v))  # (h, n, d_head)
    raw = qh @ kh.transpose(1, 2)  # (h, nq, nk)
    scores = raw / math.sqrt(qh.shape[-1]) if scaled else raw
    weights = masked_softmax(scores, allowed)  # (h, nq, nk)
    head_out = weights @ vh  # (h, nq, d_head)
    concat = head_out.transpose(0, 1).reshape(q.shape[0], -1)  # (nq, d)
    return {
        "qh": qh, "kh": kh, "vh": vh, "raw_scores": raw, "scores": scores,
        "weights": weights, "head_outputs": head_out, "concat": concat,
        "output": linear(concat, w_o.T),  # (nq, d): concat @ w_o, oneDNN's kernel on the CPU
    }


def self_attention(weights: Weights, pe, n_heads: int, allowed: np.ndarray, scaled: bool,
                   device: str, dtype: str) -> dict:
    """Forward on `device`; returns numpy arrays (copies of the device results, in `dtype`)."""
    x, w_q, w_k, w_v, w_o = device_weights(weights, device, dtype)
    if pe is not None:
        x = x + torch.tensor(pe, dtype=x.dtype, device=x.device)  # (n, d) copy: pe is read-only
    mask = torch.as_tensor(allowed, device=x.device)
    q, k, v = (linear(x, w.T) for w in (w_q, w_k, w_v))  # (n, d) each: x @ w
    out = attend(q, k, v, w_o, n_heads, mask, scaled)
    out.update(q=q, k=k, v=v)
    if x.is_cuda:
        torch.cuda.synchronize(x.device)
    return {name: t.detach().cpu().numpy() for name, t in out.items()}
