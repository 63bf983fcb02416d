"""The decoder stepped with its real KV cache, for the Generate and KV-cache tabs (a job on the learned runner).

`generate` feeds the sentence token by token through SmolLM2 (or the Train tab's model: its
integer tokens, or the task's probe) with the KV cache, then `k` tokens
it chooses itself (greedy), checking every step against the full causal pass (core's
run_generation); it keeps the step records (top 5, cache bytes with and without grouped-query
attention, FLOPs with and without the cache, the check, what the KV tab draws of every layer)
and the final cache as numpy, on the device of the window's switch.
Qt-free; torch only inside the job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import translate

WINDOW_PRECISION = "auto"  # every generation the window runs: compact where it is the faster
# (core.learned.generation.stepper); one name, so that no path of it steps at another precision
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
    text: str = ""            # the sentence it was fed (a newer sentence makes it stale)
    spec: object = None       # the model's ModelSpec (the trained source's changes as it trains)
    mlp: bool = True          # the model's blocks have an MLP (not the trained attention-only model)

    @property
    def model_spec(self):
        """The spec of the model that made this run (the registry's, unless it came with one)."""
        from ...core.learned import MODELS
        return self.spec if self.spec is not None else MODELS[self.model]


def generate_pretrained(name: str, device: str, text: str, k: int, should_stop=None,
                        fit: bool = False) -> GenerationRun | None:
    """A pretrained decoder (app.sources' PretrainedSource.generate). fit: generate at most `k`, as
    many as the model's length limit leaves after the text (the KV tab steps without being asked: it
    must not fail on a prompt near the limit)."""
    from ...core.learned import load_model  # on use: the KV panel imports this module at start-up
    model = load_model(name, device)
    if should_stop is not None and should_stop():
        return None
    return generate_with(model, name, text, k, should_stop, fit)


def generate_with(model, name: str, text: str, k: int, should_stop=None, fit: bool = False) -> GenerationRun:
    """A loaded decoder (core.learned LoadedModel: bundled or own checkpoint, the source called
    `name`) stepped through the text and `k` tokens of its own with its real KV cache, each step
    checked against one full causal pass. precision "auto": the compact step (packed weights,
    bfloat16 matmuls) where it is the faster on this CPU; the records say which ran."""
    from ...core.learned.analysis import tokenize
    from ...core.learned.generation import run_generation
    tokens = tokenize(model, text)
    if fit:
        k = _fitting(k, len(tokens.ids), model.spec.max_tokens)
    records, cache, new = run_generation(model, tokens, k, check=True, keep_steps=True,
                                         should_stop=should_stop, one_pass=True, precision=WINDOW_PRECISION)
    keys = np.stack([t.float().cpu().numpy() for t in cache.keys])      # (layers, kv, pos, dh)
    values = np.stack([t.float().cpu().numpy() for t in cache.values])  # (layers, kv, pos, dh)
    return GenerationRun(name, len(tokens.ids), tuple(records), tuple(new.labels),
                         model.tokenizer.decode(new.ids), keys, values, text, model.spec)


def _fitting(k: int, n: int, limit: int) -> int:
    return max(0, min(k, limit - n))


def generate_trained(device: str, text: str, k: int, fit: bool = False) -> GenerationRun:
    """The Train tab's model (integer tokens, or the task's probe) stepped with its KV cache, on
    the device of the window's switch."""
    from ...core.training.source import run_generation, trained_ids
    from .learned import TRAINED, trained_model
    spec, model, config = trained_model(device)
    ids = trained_ids(text, "text", 0, config.vocab, config.seq_len)
    if fit:
        k = _fitting(k, len(ids), spec.max_tokens)
    records, keys, values, new = run_generation(model, ids, spec, k, check=True)
    labels = tuple(str(i) for i in new)
    return GenerationRun(TRAINED, len(ids), tuple(records), labels, " ".join(labels), keys, values,
                         text, spec, mlp=False)


def cache_text(spec, record) -> str:
    """Bytes of the cache after a step, and what grouped-query attention saves."""
    if spec.kv_heads == spec.heads:  # every head its own K/V (the trained model)
        return translate("app.learned_generation", "cache after this step: {cached} positions → {bytes} bytes = 2 × {layers} layers × "
                         "{heads} heads × {cached} × {d_head} × 4 B.").format(
            cached=record.cached, bytes=f"{record.cache_bytes:,}", layers=spec.layers, heads=spec.heads,
            d_head=spec.d_head)
    saving = 1 - record.cache_bytes / record.cache_bytes_mha
    return translate("app.learned_generation", "cache after this step: {cached} positions → {bytes} bytes = 2 × {layers} layers × "
                     "{kv} KV heads × {cached} × {d_head} × 4 B.  With one K/V per query head ({heads}) it "
                     "would be {mha} bytes: grouped-query attention ({heads} query heads share {kv} K/V "
                     "heads) saves {saving}.").format(
        cached=record.cached, bytes=f"{record.cache_bytes:,}", layers=spec.layers, kv=spec.kv_heads,
        d_head=spec.d_head, heads=spec.heads, mha=f"{record.cache_bytes_mha:,}", saving=f"{saving:.0%}")


def flops_text(record) -> str:
    ratio = record.flops_recompute / max(1, record.flops_cached)
    if record.max_diff is None:
        check = ""
    elif record.precision != "float32":  # the compact step: its tolerance is bfloat16's
        check = translate("app.learned_generation", "  Compact step ({weights} weights, {precision} matmuls, {read} MB "
                          "read a step) vs the float32 full causal pass: max |difference| {diff}, tolerance "
                          "{tolerance}.").format(
            weights=record.weights, precision=record.precision, read=f"{record.weights_read / 1e6:,.0f}",
            diff=f"{record.max_diff:.1e}", tolerance=f"{record.tolerance:.1e}")
    else:
        check = translate("app.learned_generation", "  Cached step = full causal pass: max |difference| {diff}.").format(
            diff=f"{record.max_diff:.1e}")
    return translate("app.learned_generation", "this step: {cached} MFLOP with the cache, {full} MFLOP recomputing every "
                     "position (×{ratio}).").format(cached=f"{record.flops_cached / 1e6:,.1f}",
                                                     full=f"{record.flops_recompute / 1e6:,.1f}",
                                                     ratio=f"{ratio:.1f}") + check
