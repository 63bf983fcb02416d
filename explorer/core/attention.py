"""The forward pass: one validated config in, one result with every intermediate out."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from . import flops
from .backends import canonical_device
from .cancel import StopCheck, check
from .config import AttentionConfig, validate
from .masks import build_mask, fully_masked_rows
from .backends.numpy_ops import head_chunks, self_attention as numpy_self_attention
from .positional import sinusoidal_table
from .stats import HeadStats, head_stats
from .weights import draw_weights_polling


@dataclass(frozen=True)
class AttentionResult:
    """Everything a view may show. Arrays are numpy, whatever backend computed them."""

    config: AttentionConfig
    x: np.ndarray             # (n, d) drawn input
    pe: np.ndarray | None     # (n, d) positional encoding when enabled
    x_in: np.ndarray          # (n, d) what is projected: x (+ pe)
    q: np.ndarray             # (n, d)
    k: np.ndarray             # (n, d)
    v: np.ndarray             # (n, d)
    qh: np.ndarray            # (h, n, d_head)
    kh: np.ndarray            # (h, n, d_head)
    vh: np.ndarray            # (h, n, d_head)
    raw_scores: np.ndarray    # (h, n, n) q.k
    scores: np.ndarray        # (h, n, n) fed to softmax (÷ sqrt(d_head) when scaled)
    mask: np.ndarray          # (n, n) bool, True = may attend
    empty_rows: np.ndarray    # (n,) bool, rows with every key masked (weights all 0)
    weights: np.ndarray       # (h, n, n)
    head_outputs: np.ndarray  # (h, n, d_head)
    concat: np.ndarray        # (n, d)
    output: np.ndarray        # (n, d)
    stats: HeadStats
    param_count: int
    flop_count: int
    elapsed_s: float          # compute time on the device, transfers included
    device: str               # where it really ran, e.g. "numpy/cpu", "torch/cuda:0"

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.config.tokens

    def shape_flow(self) -> str:
        c = self.config
        return (f"({c.n_tokens}, {c.d_model}) → ({c.n_heads}, {c.n_tokens}, {c.d_head}) "
                f"→ ({c.n_tokens}, {c.d_model})")


def model_input(config: AttentionConfig, should_stop: StopCheck = None):
    """(weights in the config's dtype, pe or None, x_in) for a valid config."""
    weights = draw_weights_polling(config.seed, config.n_tokens, config.d_model, config.init,
                                   should_stop)
    weights = weights.as_dtype(config.dtype)
    pe = None
    x_in = weights.x
    if config.positional:
        pe = sinusoidal_table(config.n_tokens, config.d_model).astype(config.dtype, copy=False)
        x_in = weights.x + pe  # (n, d)
    return weights, pe, x_in


def forward(config: AttentionConfig, should_stop: StopCheck = None) -> AttentionResult:
    """Multi-head self-attention for `config` on its backend.

    Raises ConfigError for invalid configs and DeviceUnavailableError when the
    requested device is missing. `should_stop` (optional) is polled between pieces of
    numpy work of well under half a second each, even at 1024 tokens × d_model 2048 × 16
    heads (a whole forward there takes seconds); once it returns true, `Cancelled` is raised.
    """
    validate(config)
    weights, pe, x_in = model_input(config, should_stop)
    check(should_stop, "forward pass")
    allowed = build_mask(config.n_tokens, config.n_tokens, config.causal, config.padding)
    if config.backend == "torch":
        from .backends import torch_ops  # lazy: the first torch use pays the import, not start-up
    start = time.perf_counter()
    if config.backend == "torch":
        parts = torch_ops.self_attention(weights, pe, config.n_heads, allowed, config.scaled,
                                         config.device, config.dtype)
        device = f"torch/{canonical_device(config.device)}"
    else:
        parts = numpy_self_attention(x_in, weights, config.n_heads, allowed, config.scaled,
                                     should_stop)
        device = "numpy/cpu"
    elapsed = time.perf_counter() - start
    empty = fully_masked_rows(allowed)
    stats = chunked_head_stats(parts, allowed, empty, config, should_stop)
    read_only(x_in, allowed, empty, *parts.values(), *vars(stats).values())
    return AttentionResult(
        config=config, x=np.asarray(weights.x), pe=pe, x_in=np.asarray(x_in),
        mask=allowed, empty_rows=empty, stats=stats,
        param_count=flops.param_count(config.d_model),
        flop_count=flops.forward_flops(config.n_tokens, config.d_model),
        elapsed_s=elapsed, device=device, **parts,
    )


def chunked_head_stats(parts: dict, allowed, empty, config: AttentionConfig,
                       should_stop: StopCheck) -> HeadStats:
    """`head_stats` a few heads at a time, polling `should_stop` between them (all heads at
    once take ~1.5 s at 1024 tokens). Same numbers as all at once: every statistic is per head
    or per row. At least two heads a chunk: with a mask, the variance reads scores[:, allowed],
    whose memory order for one head differs from two or more (a different summation order,
    last-bit differences); for two or more it is the same."""
    scale = 1 / math.sqrt(config.d_head) if config.scaled else 1.0
    weights = parts["weights"]  # (h, n, n)
    pieces = []
    for hs in head_chunks(weights.shape[0], weights.shape[1] * weights.shape[2], min_heads=2):
        check(should_stop, "forward pass")
        pieces.append(head_stats(weights[hs], parts["raw_scores"][hs], parts["scores"][hs],
                                 allowed, empty, score_scale=scale))
    if len(pieces) == 1:
        return pieces[0]
    return HeadStats(**{name: np.concatenate([vars(p)[name] for p in pieces])
                        for name in vars(pieces[0])})


def read_only(*arrays: np.ndarray) -> None:
    """Freeze arrays handed to other threads (the GUI, topic jobs, caches): a view that
    mutated one in place would corrupt every other reader, so it raises instead."""
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)
