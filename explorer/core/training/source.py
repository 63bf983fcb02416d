"""A trained tiny transformer read like a pretrained model: its token sequences and one forward pass.

The trained tasks use integer tokens (0 .. vocab − 1), so the "text" a trained model reads is
space-separated integers; anything else stands for the task's fixed probe (a segment repeated,
the sequence the Train tab's heads are drawn on). "random tokens repeated" is a seeded random
segment twice. `run` gives what the overview, the heads grid and pruning need, as numpy;
`run_generation` steps it with a real KV cache for the Generate and KV-cache tabs (an
attention-only causal model caches exactly like a decoder: one K and V per layer and head and
position).
Qt-free; torch is imported inside `run` only.
"""

from __future__ import annotations

import math

import numpy as np

from ..config import QT_TRANSLATE_NOOP, SEED_MAX, ConfigError
from .tasks import probe_tokens


def parse_ids(text: str, vocab: int, seq_len: int) -> list[int] | None:
    """The integers in `text` (each 0..vocab−1, at most seq_len of them); None if it is not integers."""
    words = text.split()
    if not words or not all(w.lstrip("-").isdigit() for w in words):
        return None
    ids = [int(w) for w in words]
    bad = [i for i in ids if not 0 <= i < vocab]
    if bad:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "the trained model's tokens are 0..{last}, not {value}"),
                             last=vocab - 1, value=bad[0])
    check_trained_length(len(ids), seq_len)
    return ids


def check_trained_length(n: int, seq_len: int) -> None:
    if n > seq_len:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "the trained model reads at most {limit} tokens, not {n}"),
                             limit=seq_len, n=n)


def trained_ids(text: str, sequence: str, seed: int, vocab: int, seq_len: int) -> list[int]:
    """The ids for "text" (integers, or the probe), "repeat" (those twice) or "random" (a segment twice)."""
    if sequence == "random":
        if not 0 <= seed <= SEED_MAX:
            raise ConfigError(f"the seed must be 0..{SEED_MAX}, not {seed}")
        segment = np.random.default_rng(seed).integers(0, vocab, size=seq_len // 2).tolist()
        return segment * 2
    ids = parse_ids(text, vocab, seq_len)
    if ids is None:
        ids = probe_tokens(vocab, seq_len).tolist()
    if sequence == "repeat":
        ids = ids * 2
        check_trained_length(len(ids), seq_len)
    return ids


def run(model, ids: list[int], head_mask=None) -> dict:
    """One forward pass: attentions (layers, heads, n, n) float32, the mean next-token loss (nats,
    None for one token) and the next token's top 5 ((label, p, id), ...). head_mask (layers, heads)."""
    import torch
    import torch.nn.functional as F
    device = next(model.parameters()).device
    tokens = torch.as_tensor([ids], dtype=torch.long, device=device)  # (1, n)
    mask = None if head_mask is None else torch.as_tensor(np.asarray(head_mask, np.float32), device=device)
    with torch.inference_mode():
        logits, attentions = model(tokens, mask)  # (1, n, V), [(1, h, n, n)] * layers
        logits = logits[0].double()  # (n, V)
        loss = (float(F.cross_entropy(logits[:-1], tokens[0, 1:])) if len(ids) > 1 else None)
        probs = torch.softmax(logits[-1], dim=-1)  # (V,)
        values, top = torch.topk(probs, min(5, probs.shape[0]))
    stacked = torch.stack([a[0] for a in attentions]).float().cpu().numpy()  # (layers, h, n, n)
    next_top = tuple((str(int(i)), float(p), int(i)) for p, i in zip(values, top))
    return {"attentions": stacked, "loss": loss, "next_top": next_top}


def _step(model, cache: list, token: int, pos: int) -> dict:
    """Feed one token through the model with the KV cache (one (h, t, d_head) K and V per layer,
    extended here). → logits (V,), and per layer: attention rows (layers, h, t), queries
    (layers, h, d_head), each attention block's output (layers, d) (after W_O)."""
    import torch
    x = model.embed.weight[token] + model.pos.weight[pos]  # (d,)
    rows, queries, outs = [], [], []
    for layer, entry in zip(model.layers, cache):
        d = x.shape[-1]
        h = layer.n_heads
        q, k, v = layer.qkv(x).split(d)  # (d,) each
        q, k, v = (m.view(h, 1, d // h) for m in (q, k, v))  # (h, 1, d_head)
        entry[0] = k if entry[0] is None else torch.cat([entry[0], k], dim=1)  # (h, t, d_head)
        entry[1] = v if entry[1] is None else torch.cat([entry[1], v], dim=1)  # (h, t, d_head)
        attn = torch.softmax(q @ entry[0].transpose(-2, -1) / math.sqrt(d // h), dim=-1)  # (h, 1, t)
        update = layer.out((attn @ entry[1]).reshape(d))  # (d,)
        x = x + update  # (d,) the residual stream
        rows.append(attn[:, 0])  # (h, t)
        queries.append(q[:, 0])  # (h, d_head)
        outs.append(update)  # (d,)
    return {"logits": model.unembed(x), "rows": torch.stack(rows), "q": torch.stack(queries),
            "out": torch.stack(outs)}  # (V,), (layers, h, t), (layers, h, d_head), (layers, d)


def run_generation(model, ids: list[int], spec, generate: int = 0, check: bool = True):
    """The trained model fed token by token with a real KV cache, then `generate` greedy tokens,
    each step checked against the full causal pass (`run`'s forward) within core.learned's
    check_tolerance. → (records, keys, values, generated ids): core.learned's KVStepRecord per fed
    token, with what the KV tab draws (rows, q, out of every layer, as for SmolLM2's keep_steps:
    a few KB for this model); keys, values (layers, heads, positions, d_head) on the CPU."""
    import torch
    from ..learned.generation import MAX_GENERATE, KVStepRecord, check_tolerance, step_flops
    if not 0 <= generate <= MAX_GENERATE:
        raise ConfigError(f"--generate takes 0..{MAX_GENERATE} tokens, not {generate}")
    check_trained_length(len(ids) + generate, spec.max_tokens)
    cache = [[None, None] for _ in model.layers]
    ids, records, prompt = list(ids), [], len(ids)
    with torch.inference_mode():
        for pos in range(prompt + generate):
            out = _step(model, cache, ids[pos], pos)
            logits = out["logits"]
            diff = _check(model, ids[:pos + 1], logits, out["rows"]) if check else None
            probs = torch.softmax(logits.double(), dim=-1)  # (V,)
            values, top = torch.topk(probs, min(5, probs.shape[0]))
            top5 = tuple((str(int(i)), float(p), int(i)) for p, i in zip(values, top))
            nbytes = sum(t.numel() * t.element_size() for entry in cache for t in entry)
            # rows (layers, h, t), q (layers, h, d_head), out (layers, d)
            arrays = {name: out[name].float().cpu().numpy() for name in ("rows", "q", "out")}
            records.append(KVStepRecord(pos, str(ids[pos]), pos >= prompt, top5, pos + 1, nbytes,
                                        nbytes, *step_flops(spec, 0, pos), diff,
                                        check_tolerance(logits) if check else None, **arrays))
            if pos + 1 == len(ids) and len(ids) < prompt + generate:
                ids.append(top5[0][2])  # greedy: the likeliest token
        keys = np.stack([entry[0].float().cpu().numpy() for entry in cache])    # (layers, h, pos, dh)
        values_ = np.stack([entry[1].float().cpu().numpy() for entry in cache])  # (layers, h, pos, dh)
    return records, keys, values_, ids[prompt:]


def _check(model, prefix: list[int], logits, rows) -> float:
    """Largest |difference| between a cached step and the full causal pass over the same prefix."""
    import torch
    tokens = torch.as_tensor([prefix], dtype=torch.long, device=logits.device)  # (1, t)
    full_logits, attentions = model(tokens)  # (1, t, V), [(1, h, t, t)] * layers
    full_rows = torch.stack([a[0, :, -1] for a in attentions])  # (layers, h, t)
    return float(max((full_logits[0, -1] - logits).abs().max(), (full_rows - rows).abs().max()))
