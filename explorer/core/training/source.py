"""A trained tiny transformer read like a pretrained model: its token sequences and one forward pass.

The trained tasks use integer tokens (0 .. vocab − 1), so the "text" a trained model reads is
space-separated integers; anything else stands for the task's fixed probe (a segment repeated,
the sequence the Train tab's heads are drawn on). "random tokens repeated" is a seeded random
segment twice. `run` gives what the overview, the heads grid and pruning need, as numpy.
Qt-free; torch is imported inside `run` only.
"""

from __future__ import annotations

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
