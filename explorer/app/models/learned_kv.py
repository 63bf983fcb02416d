"""The decoder's real KV cache as a trace the KV-cache tab steps through (one layer of a GenerationRun).

The KV tab draws a `core.KVTrace` of the random model: per step the query, the attention over the
cached keys, the output row, the cache bytes, FLOPs and the check against the full causal pass.
`layer_trace(run, layer)` puts one layer of SmolLM2's stepped generation in that shape
(`LearnedKVTrace`): the same `core.KVStep`s, built from the real records (the model's queries
after RoPE, its attention rows, its attention block's output), the real K and V of that layer
((kv_heads, n, d_head): grouped-query attention keeps 3 K/V heads for 9 query heads), bytes and
FLOPs of the whole model, and the check of the whole step (logits and every layer's attention
rows) against the full causal pass. Its counter lines say so (`counter_lines`). The trained
model's run (core/training/source.run_generation) has the same records: its queries are plain
projections (learned positions are added to the input: no RoPE), one K/V per head, no MLP in its
FLOPs, integer tokens for labels. Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...core.kv_cache import KVStep
from ..i18n import translate
from .learned_generation import GenerationRun, cache_text

if TYPE_CHECKING:  # the registry is imported on use: the KV panel imports this module at start-up
    from ...core.learned import ModelSpec

CHECK_OK, CHECK_BAD = "✓", "✗"


@dataclass(frozen=True)
class LearnedKVConfig:
    """What the KV views read of a trace's config, for one layer of a pretrained decoder."""

    model: str
    layer: int
    tokens: tuple[str, ...]   # every fed token (the sentence's, then the generated ones)
    n_heads: int              # query heads
    kv_heads: int             # key/value heads (grouped-query attention)
    d_head: int
    d_model: int
    layers: int
    padding: frozenset = frozenset()
    dtype: str = "float32"
    mlp: bool = True          # False for the trained attention-only model: its FLOPs have no MLP

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    @property
    def group(self) -> int:
        """Query heads per K/V head: query head h reads K/V head h // group."""
        return self.n_heads // self.kv_heads


@dataclass(frozen=True)
class LearnedKVTrace:
    """One layer of a GenerationRun, shaped like core.KVTrace (config, steps, keys, values)."""

    config: LearnedKVConfig
    steps: tuple[KVStep, ...]
    keys: np.ndarray          # (kv_heads, n, d_head) this layer's real cache at the end
    values: np.ndarray        # (kv_heads, n, d_head)
    run: GenerationRun

    @property
    def spec(self) -> ModelSpec:
        return self.run.model_spec

    def cache_at(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        return self.keys[:, :step + 1], self.values[:, :step + 1]

    def record(self, step: int):
        return self.run.records[step]

    def counter_lines(self, step: int) -> tuple[str, str, str, str, str, str]:
        """The KV panel's six lines (token, bytes, FLOPs cached, FLOPs recomputed, cumulative, check)."""
        s, record = self.steps[step], self.run.records[step]
        top = ", ".join(f"{label} {p:.2f}" for label, p, _id in record.top5)
        kind = (translate("app.learned_kv", "chosen by the model") if record.generated
                else translate("app.learned_kv", "from the sentence"))
        flops = (translate("app.learned_kv", "FLOPs this step with the cache, all {layers} layers "
                           "(projections, MLP, attention over {t} keys): {total}") if self.config.mlp else
                 translate("app.learned_kv", "FLOPs this step with the cache, all {layers} layers "
                           "(projections and attention over {t} keys; this model has no MLP): {total}"))
        return (translate("app.learned_kv", "step {step} / {last}: token “{token}” ({kind}); next token, top 5: "
                          "{top}").format(step=s.step, last=len(self.steps) - 1, token=s.token, kind=kind, top=top),
                cache_text(self.spec, record),
                flops.format(layers=self.config.layers, t=s.cached, total=f"{s.flops_cached:,}"),
                translate("app.learned_kv", "FLOPs this step without it (the full {t}-token prefix again): {total}  "
                          "({ratio}× the cached step)").format(
                    t=s.cached, total=f"{s.flops_recompute:,}", ratio=f"{s.flops_recompute / s.flops_cached:.1f}"),
                translate("app.learned_kv", "cumulative FLOPs — with cache: {cached};  without: {full}").format(
                    cached=f"{s.cum_flops_cached:,}", full=f"{s.cum_flops_recompute:,}"),
                check_line(s, record))


def check_passed(step: KVStep) -> bool:
    return bool(np.isfinite(step.max_diff) and step.max_diff <= step.tolerance)


def check_line(step: KVStep, record=None) -> str:
    """The check's line; a compact step's (record.precision "bfloat16") names its precision and
    its tolerance, which is bfloat16's, not float32's (core.learned.generation.check_tolerance)."""
    mark = CHECK_OK if check_passed(step) else CHECK_BAD
    if record is not None and record.precision != "float32":
        return translate("app.learned_kv", "compact step ({weights} weights, {precision} matmuls, {read} MB read "
                         "a step) vs the float32 full causal pass (logits and every layer's attention row {row}): "
                         "max |difference| = {diff}, tolerance {tolerance} {mark}").format(
            weights=record.weights, precision=record.precision, read=f"{record.weights_read / 1e6:,.0f}",
            row=step.step, diff=f"{step.max_diff:.1e}", tolerance=f"{step.tolerance:.1e}", mark=mark)
    return translate("app.learned_kv", "cached step = full causal pass (logits and every layer's attention row "
                     "{row}): max |difference| = {diff} {mark}").format(
        row=step.step, diff=f"{step.max_diff:.1e}", mark=mark)


def layer_trace(run: GenerationRun, layer: int) -> LearnedKVTrace:
    """Layer `layer` (clamped) of a run made with keep_steps (learned_generation.generate): SmolLM2's
    or the trained model's (its spec comes with the run; attention-only, one K/V per head)."""
    spec = run.model_spec
    layer = max(0, min(int(layer), spec.layers - 1))
    tokens = tuple(r.token for r in run.records)
    config = LearnedKVConfig(run.model, layer, tokens, spec.heads, spec.kv_heads, spec.d_head,
                             spec.d_model, spec.layers, mlp=run.mlp)
    steps, cum_c, cum_r = [], 0, 0
    for t, r in enumerate(run.records):
        cum_c, cum_r = cum_c + r.flops_cached, cum_r + r.flops_recompute
        steps.append(KVStep(
            step=t, token=r.token, cached=r.cached, cache_bytes=r.cache_bytes,
            flops_cached=r.flops_cached, flops_recompute=r.flops_recompute, cum_flops_cached=cum_c,
            cum_flops_recompute=cum_r, q=r.q[layer], weights=r.rows[layer], output=r.out[layer],
            max_diff=float(r.max_diff), tolerance=float(r.tolerance)))  # q (h, dh), weights (h, t+1), out (d,)
    return LearnedKVTrace(config, tuple(steps), run.keys[layer], run.values[layer], run)


def not_a_decoder_text(name: str) -> str:
    """Why the KV tab shows nothing for an encoder."""
    return translate("app.learned_kv", "The KV cache belongs to decoders. {model} is an encoder: it reads the whole "
                     "sentence at once, every token attending to every other, and never generates token by "
                     "token, so there is nothing to cache. Choose a decoder (smollm2-135m, or a model "
                     "trained in the Train tab) or random (course) under Model source.").format(model=name)
