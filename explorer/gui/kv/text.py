"""The KV panel's counter texts, with the formulas written out (Qt-free, easy to test).

Numbers come from the core's KVStep (cache_bytes, flops_*); the formulas are spelled
out next to them so a student can redo the arithmetic.
"""

from __future__ import annotations

import numpy as np

from ...core import AttentionConfig, KVStep
from ..plotting.i18n import translate

LAYERS = 1   # this app has one attention layer and a batch of one sentence
BATCH = 1
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
    return translate("kv.text", "step {step} / {last}: token “{token}”, tokens cached {cached}").format(
        step=step.step, last=n_tokens - 1, token=step.token, cached=step.cached)


def bytes_line(step: KVStep, config: AttentionConfig) -> str:
    """cache size = 2 · layers · batch · heads · t · d_head · bytes = numbers = total."""
    b = bytes_per_value(config)
    numbers = f"2 · {LAYERS} · {BATCH} · {config.n_heads} · {step.cached} · {config.d_head} · {b}"
    return translate("kv.text", "cache size = 2 · layers · batch · heads · t · d_head · bytes = {numbers} = "
                     "{total} bytes ({human}, {dtype})").format(
        numbers=numbers, total=grouped(step.cache_bytes), human=human(step.cache_bytes, "B", 1024),
        dtype=config.dtype)


def step_flops_line(step: KVStep, config: AttentionConfig) -> str:
    """With the cache: project one token (q, k, v, o) and attend over the t cached keys."""
    d, t = config.d_model, step.cached
    return translate("kv.text",
                     "FLOPs this step with the cache: 4·2·d² + 2·2·t·d = {numbers} = {total}").format(
        numbers=f"4·2·{d}² + 2·2·{t}·{d}", total=grouped(step.flops_cached))


def recompute_flops_line(step: KVStep, config: AttentionConfig) -> str:
    """Without: the full causal pass over the t-token prefix again."""
    d, t = config.d_model, step.cached
    return translate("kv.text",
                     "FLOPs this step without it (recompute the {t}-token prefix): 8·t·d² + 4·t²·d = "
                     "{numbers} = {total}  ({ratio}× the cached step)").format(
        t=t, numbers=f"8·{t}·{d}² + 4·{t}²·{d}", total=grouped(step.flops_recompute),
        ratio=f"{step.flops_recompute / step.flops_cached:.2f}")


def cumulative_line(step: KVStep) -> str:
    saved = step.cum_flops_recompute - step.cum_flops_cached
    return translate("kv.text", "cumulative FLOPs — with cache: {cached} ({cached_h});  without: {full} "
                     "({full_h});  saved {saved}").format(
        cached=grouped(step.cum_flops_cached), cached_h=human(step.cum_flops_cached),
        full=grouped(step.cum_flops_recompute), full_h=human(step.cum_flops_recompute),
        saved=human(saved))


def check_passed(step: KVStep, dtype: str) -> bool:
    """Within the step's tolerance, which scales with the magnitudes (core.kv_cache.step_tolerance);
    `dtype` is kept for callers, the tolerance already knows it."""
    return bool(np.isfinite(step.max_diff) and step.max_diff <= step.tolerance)


def check_line(step: KVStep, dtype: str) -> str:
    """The evidence that the cache is right: this step's output vs row t of the full pass."""
    mark = CHECK_OK if check_passed(step, dtype) else CHECK_BAD
    return translate("kv.text", "cached output = row {row} of the full causal pass: max |difference| = "
                     "{diff} {mark}").format(row=step.step, diff=f"{step.max_diff:.1e}", mark=mark)
