"""The KV panel's counter texts, with the formulas written out (Qt-free, easy to test).

Numbers come from the core's KVStep (cache_bytes, flops_*); the formulas are spelled
out next to them so a student can redo the arithmetic.
"""

from __future__ import annotations

import numpy as np

from ...core import AttentionConfig, KVStep

LAYERS = 1   # this app has one attention layer and a batch of one sentence
BATCH = 1
TOLERANCE = {"float64": 1e-6, "float32": 1e-4}
CHECK_OK = "✓"
CHECK_BAD = "✗"


def human(value: float, unit: str = "", base: int = 1000) -> str:
    """3 significant digits with a k / M / G / T prefix (KiB, MiB ... when base=1024)."""
    prefixes = ("", "k", "M", "G", "T", "P") if base == 1000 else ("", "Ki", "Mi", "Gi", "Ti", "Pi")
    value = float(value)
    i = 0
    while abs(value) >= base and i < len(prefixes) - 1:
        value /= base
        i += 1
    number = f"{value:.0f}" if i == 0 else f"{value:.3g}"
    return f"{number} {prefixes[i]}{unit}".strip()


def grouped(n: int) -> str:
    """12,345,678: exact counts stay readable."""
    return f"{int(n):,}"


def bytes_per_value(config: AttentionConfig) -> int:
    return int(np.dtype(config.dtype).itemsize)


def tokens_line(step: KVStep, n_tokens: int) -> str:
    return f"step {step.step} / {n_tokens - 1}: token “{step.token}”, tokens cached {step.cached}"


def bytes_line(step: KVStep, config: AttentionConfig) -> str:
    """cache size = 2 · layers · batch · heads · t · d_head · bytes = numbers = total."""
    b = bytes_per_value(config)
    numbers = f"2 · {LAYERS} · {BATCH} · {config.n_heads} · {step.cached} · {config.d_head} · {b}"
    return (f"cache size = 2 · layers · batch · heads · t · d_head · bytes = {numbers} = "
            f"{grouped(step.cache_bytes)} bytes ({human(step.cache_bytes, 'B', 1024)}, {config.dtype})")


def step_flops_line(step: KVStep, config: AttentionConfig) -> str:
    """With the cache: project one token (q, k, v, o) and attend over the t cached keys."""
    d, t = config.d_model, step.cached
    return (f"FLOPs this step with the cache: 4·2·d² + 2·2·t·d = 4·2·{d}² + 2·2·{t}·{d} = "
            f"{grouped(step.flops_cached)}")


def recompute_flops_line(step: KVStep, config: AttentionConfig) -> str:
    """Without: the full causal pass over the t-token prefix again."""
    d, t = config.d_model, step.cached
    return (f"FLOPs this step without it (recompute the {t}-token prefix): 8·t·d² + 4·t²·d = "
            f"8·{t}·{d}² + 4·{t}²·{d} = {grouped(step.flops_recompute)}  "
            f"({step.flops_recompute / step.flops_cached:.2f}× the cached step)")


def cumulative_line(step: KVStep) -> str:
    saved = step.cum_flops_recompute - step.cum_flops_cached
    return (f"cumulative FLOPs — with cache: {grouped(step.cum_flops_cached)} "
            f"({human(step.cum_flops_cached)});  without: {grouped(step.cum_flops_recompute)} "
            f"({human(step.cum_flops_recompute)});  saved {human(saved)}")


def check_passed(step: KVStep, dtype: str) -> bool:
    return bool(np.isfinite(step.max_diff) and step.max_diff <= TOLERANCE[dtype])


def check_line(step: KVStep, dtype: str) -> str:
    """The evidence that the cache is right: this step's output vs row t of the full pass."""
    mark = CHECK_OK if check_passed(step, dtype) else CHECK_BAD
    return (f"cached output = row {step.step} of the full causal pass: "
            f"max |difference| = {step.max_diff:.1e} {mark}")
