"""The decoder stepped with its real KV cache, for the Generate tab (a job on the learned runner).

`generate` feeds the sentence token by token through SmolLM2 with the KV cache, then `k` tokens
it chooses itself (greedy), checking every step against the full causal pass (core's
run_generation); it keeps the step records (top 5, cache bytes with and without grouped-query
attention, FLOPs with and without the cache, the check) and the final cache as numpy.
Qt-free; torch only inside the job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.learned import load_model

BYTES_FORMULA = "2 (K and V) × layers × KV heads × positions × d_head × 4 bytes"


@dataclass(frozen=True)
class GenerationRun:
    model: str
    prompt_tokens: int
    records: tuple            # core KVStepRecord per fed token
    generated: tuple[str, ...]  # readable pieces chosen by the model
    generated_text: str
    keys: np.ndarray          # (layers, kv_heads, positions, d_head): the real cache at the end
    values: np.ndarray        # (layers, kv_heads, positions, d_head)


def generate(name: str, device: str, text: str, k: int, should_stop=None) -> GenerationRun | None:
    from ..core.learned.analysis import tokenize
    from ..core.learned.generation import run_generation
    model = load_model(name, device)
    if should_stop is not None and should_stop():
        return None
    tokens = tokenize(model, text)
    records, cache, new = run_generation(model, tokens, k, check=True)
    keys = np.stack([t.float().cpu().numpy() for t in cache.keys])      # (layers, kv, pos, dh)
    values = np.stack([t.float().cpu().numpy() for t in cache.values])  # (layers, kv, pos, dh)
    return GenerationRun(name, len(tokens.ids), tuple(records), tuple(new.labels),
                         model.tokenizer.decode(new.ids), keys, values)


def cache_text(spec, record) -> str:
    """Bytes of the cache after a step, and what grouped-query attention saves."""
    saving = 1 - record.cache_bytes / record.cache_bytes_mha
    return (f"cache after this step: {record.cached} positions → {record.cache_bytes:,} bytes = "
            f"2 × {spec.layers} layers × {spec.kv_heads} KV heads × {record.cached} × "
            f"{spec.d_head} × 4 B.  With one K/V per query head ({spec.heads}) it would be "
            f"{record.cache_bytes_mha:,} bytes: grouped-query attention ({spec.heads} query heads "
            f"share {spec.kv_heads} K/V heads) saves {saving:.0%}.")


def flops_text(record) -> str:
    ratio = record.flops_recompute / max(1, record.flops_cached)
    check = ("" if record.max_diff is None else
             f"  Cached step = full causal pass: max |difference| {record.max_diff:.1e}.")
    return (f"this step: {record.flops_cached / 1e6:,.1f} MFLOP with the cache, "
            f"{record.flops_recompute / 1e6:,.1f} MFLOP recomputing every position (×{ratio:.1f})."
            + check)
