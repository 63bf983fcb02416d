"""A decoder step by step with a real KV cache: top-5 next tokens, cache bytes, and the check.

Every token (the prompt's, then the generated ones: greedy, or sampled by a `choose`) is fed through the model's `step`
(the NativeModel contract, core/checkpoints/native.py: SmolLM2's llama.step or an own checkpoint's
decoder), which appends one K and one V per layer to the cache. With `check=True` each step is compared with the
full causal pass over the same prefix (no cache): the largest difference of the logits and of the
attention rows is recorded; it should be float32 round-off.

precision="compact" (or "auto" where the measurement says it is faster: the window's choice) steps
through packed 4/8-bit weights with bfloat16 matmul inputs (compact/packing.py, compact/stepping.py): ~5× fewer
bytes read a step. The check still compares with the float32 full pass, and its tolerance is then
bfloat16's (check_tolerance); each record says which precision ran and the bytes a step read.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import QT_TRANSLATE_NOOP, ConfigError
from .analysis import check_length, top_k
from .tokenization import Tokens

MAX_GENERATE = 256
TOLERANCE_ULPS = 64  # float32 round-off, scaled by the logits' size (measured diffs stay under 1e-4)
# bfloat16 (the compact step's matmul inputs and outputs, its weights' bfloat16 scales), in units of
# eps(bfloat16) · √layers · max(1, |logits|, the scores' spread): right steps measured up to 0.64
# (SmolLM2) and 4.9 (tiny own checkpoints with very peaked heads); SmolLM2 with a stale cache 25
COMPACT_ULPS = 8
PRECISIONS = ("float32", "compact", "auto")
PRECISION_ENV = "ATTENTION_EXPLORER_GENERATION"  # "float32" or "compact": what "auto" means (else measured)


def check_tolerance(logits, layers: int = 1, dtype: str = "float32", rows=None) -> float:
    """How far a right cached step may be from the full pass: eps(dtype) · ULPS · max(1, |logits|)
    · √layers. The cached and the full pass sum in another order in every layer; their rounding
    differences add up like a random walk over the layers (an own 24-layer checkpoint's correct
    steps reached twice the single-layer bound).

    dtype "bfloat16" (the compact step: its matmuls' inputs are rounded to bfloat16) uses
    eps(bfloat16) and COMPACT_ULPS, and the magnitude includes the scores' spread (max − min log
    weight of the step's attention `rows` (layers, heads, t)): an attention weight's error scales
    with its scores, and at bfloat16 that error, not float32's, is what a peaked head shows."""
    import math
    import torch
    size = max(1.0, float(logits.abs().max()))
    if dtype != "bfloat16":
        return TOLERANCE_ULPS * float(torch.finfo(torch.float32).eps) * size * math.sqrt(max(1, layers))
    if rows is not None:
        log = torch.log(rows.double())  # (layers, heads, t); -inf where a key is masked
        seen = rows > 0
        spread = log.masked_fill(~seen, -math.inf).amax(-1) - log.masked_fill(~seen, math.inf).amin(-1)
        size = max(size, float(spread.max()))
    return COMPACT_ULPS * float(torch.finfo(torch.bfloat16).eps) * size * math.sqrt(max(1, layers))


@dataclass(frozen=True)
class KVStepRecord:
    position: int
    token: str                  # the token fed at this step (readable)
    generated: bool             # True for tokens the model chose
    top5: tuple                 # ((label, probability, id), ...) for the next token
    cached: int                 # positions in the cache after the step
    cache_bytes: int            # the real cache (all layers, K and V)
    cache_bytes_mha: int        # the same cache if every query head had its own K/V
    flops_cached: int
    flops_recompute: int
    max_diff: float | None      # cached vs full causal pass (logits and attention rows)
    tolerance: float | None = None  # the most max_diff may be for a right cache (check_tolerance)
    precision: str = "float32"  # the step's matmul inputs: "float32", or "bfloat16" (the compact step)
    weights: str = "float32"    # the weights it read: "float32", or the packed kinds ("int4", "int8")
    weights_read: int = 0       # bytes of weights one step reads (all layers, the output matrix)
    # With keep_steps=True, what the KV tab draws of this step, every layer (numpy float32):
    rows: object = None         # (layers, heads, cached) attention of this token over the cache
    q: object = None            # (layers, heads, d_head) this token's queries (after RoPE)
    out: object = None          # (layers, d) each attention block's output (after W_O)

    def to_dict(self) -> dict:
        return {"position": self.position, "token": self.token, "generated": self.generated,
                "top5": [{"token": t, "p": round(p, 6), "id": i} for t, p, i in self.top5],
                "cached": self.cached, "cache_bytes": self.cache_bytes,
                "cache_bytes_mha": self.cache_bytes_mha, "flops_cached": self.flops_cached,
                "flops_recompute": self.flops_recompute, "max_diff": self.max_diff,
                "tolerance": self.tolerance, "precision": self.precision, "weights": self.weights,
                "weights_read": self.weights_read}


def step_flops(spec, ffn: int, t: int) -> tuple[int, int]:
    """Multiply-adds × 2 for the token at position t (t+1 keys): with the cache, and recomputing all.
    The queries are heads × d_head wide (d_model, except where head_dim differs: Qwen3, Gemma 2)."""
    d, dq, dkv = spec.d_model, spec.d_head * spec.heads, spec.d_head * spec.kv_heads
    per_token = 2 * (2 * d * dq + 2 * d * dkv + 3 * d * ffn)  # q, o, k, v, gate/up/down
    attention = 4 * dq * (t + 1)  # scores and weighted values, all heads
    cached = spec.layers * (per_token + attention)
    recompute = spec.layers * ((t + 1) * per_token + 4 * dq * (t + 1) * (t + 2) // 2)
    return cached, recompute


def run_generation(model, tokens: Tokens, generate: int = 0, check: bool = True, head_mask=None,
                   keep_steps: bool = False, should_stop=None, one_pass: bool = False, choose=None,
                   precision: str = "float32"):
    """(records, cache, generated Tokens): one record per fed token; the cache is the real one at the end.

    choose: None for greedy (the likeliest token), or a callable logits (vocab,) tensor -> the next
    token id (core.insight.sampling.Sampler: temperature, top-k, top-p with a seed).

    keep_steps: each record also keeps its attention rows, queries and attention outputs (every
    layer) for the KV tab. should_stop is polled between steps (core.cancel.Cancelled).
    one_pass: check every step against ONE full causal pass over the whole sequence, made after the
    last step (row t of a causal pass sees only tokens 0..t, so it is the prefix's own pass), instead
    of one pass per prefix: n passes of up to n tokens become one (the window's KV tab at 64+ tokens).
    precision: "float32" (the reference), "compact" (packed weights, where the model supports it:
    compact.stepping.supports) or "auto" (compact where it is faster on this CPU:
    compact.packing.packed_is_faster; ATTENTION_EXPLORER_GENERATION pins it).
    """
    from ..cancel import check as check_stop
    import torch
    from .analysis import check_head_mask
    if not model.is_decoder:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "{model} is an encoder: generation and the KV cache need a decoder"),
                             model=model.spec.name)
    if not 0 <= generate <= MAX_GENERATE:
        raise ConfigError(f"--generate takes 0..{MAX_GENERATE} tokens, not {generate}")
    check_length(model, len(tokens.ids) + generate)
    mask = check_head_mask(model, head_mask)
    w, spec = model.weights, model.spec
    ffn = w.ffn
    cache, ids, records, outs = w.new_cache(), list(tokens.ids), [], []
    with torch.inference_mode():
        step, ran = stepper(w, precision)
        for pos in range(len(tokens.ids) + generate):
            check_stop(should_stop, "generation")
            out = step(cache, ids[pos], mask)
            diff = _check(w, ids[:pos + 1], out, mask) if check and not one_pass else None
            if check and one_pass:
                outs.append((out["logits"], out["rows"]))
            top = top_k(model, out["logits"])
            per_head = cache.nbytes // spec.kv_heads
            arrays = ({name: out[key].float().cpu().numpy() for name, key in
                       (("rows", "rows"), ("q", "q"), ("out", "attn_out"))} if keep_steps else {})
            records.append(KVStepRecord(
                pos, model.tokenizer.encode_ids([ids[pos]]).labels[0], pos >= len(tokens.ids), top,
                cache.length, cache.nbytes, per_head * spec.heads, *step_flops(spec, ffn, pos), diff,
                check_tolerance(out["logits"], spec.layers, ran["precision"], out["rows"]) if check else None,
                **ran, **arrays))
            if pos + 1 == len(ids) and len(ids) < len(tokens.ids) + generate:
                ids.append(top[0][2] if choose is None else int(choose(out["logits"])))  # greedy: the likeliest
        if outs:
            check_stop(should_stop, "generation")
            records = _check_once(w, ids, outs, mask, records)
    return records, cache, model.tokenizer.encode_ids(ids[len(tokens.ids):])


def stepper(w, precision: str = "float32"):
    """(the step to take, {"precision", "weights", "weights_read"} for the records)."""
    import os
    from .compact import packing, stepping
    if precision not in PRECISIONS:
        raise ConfigError(f"precision takes {', '.join(PRECISIONS)}, not {precision}")
    if precision == "auto":  # pinned by the environment (the tests pin float32), else measured here
        pinned = os.environ.get(PRECISION_ENV, "auto")
        precision = pinned if pinned in ("float32", "compact") else "auto"
    wanted = precision == "compact" or (precision == "auto" and packing.packed_is_faster())
    if wanted and stepping.supports(w):
        m = stepping.compact_model(w)  # packed at the first generation, then kept
        kinds = m.kinds
        weights = kinds[0] if kinds[0] == kinds[1] else f"{kinds[0]} + {kinds[1]}"  # layers + output
        return m.step, {"precision": "bfloat16", "weights": weights, "weights_read": m.nbytes}
    return w.step, {"precision": "float32", "weights": "float32", "weights_read": stepping.float32_bytes(w)}


def _check_once(w, ids: list[int], outs: list, mask, records: list) -> list:
    """Each step's logits and attention rows against row t of one full causal pass over `ids`."""
    from dataclasses import replace
    full = w.forward(ids, mask)
    checked = []
    for t, ((logits, rows), record) in enumerate(zip(outs, records)):
        diff = max((full["logits"][t] - logits).abs().max(),
                   (full["attentions"][:, :, t, :t + 1] - rows).abs().max())
        checked.append(replace(record, max_diff=float(diff)))
    return checked


def _check(w, prefix: list[int], out: dict, mask) -> float:
    full = w.forward(prefix, mask)
    logits = (full["logits"][-1] - out["logits"]).abs().max()
    rows = (full["attentions"][:, :, -1] - out["rows"]).abs().max()
    return float(max(logits, rows))
