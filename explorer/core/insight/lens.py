"""The logit lens (nostalgebraist 2020): what a decoder would say if it stopped after layer l.

Each layer's residual stream goes through the model's own final norm and unembedding (its
`unembed`, core/checkpoints/native.py), as the last layer's does; the top token of each position
and its probability show the answer forming. Row 0 is the embeddings, row l + 1 the stream after
layer l; the last row is the model's own prediction (the final answer).

    lens = logit_lens(model, captured.hidden_states)
    lens.top_ids[l, i], lens.top_p[l, i]     # (layers + 1, n)
    lens.first_row[i]     # the first row whose top token is the final answer
    lens.settled_row[i]   # the first row from which it stays the top token to the end
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import ConfigError
from ..messages import QT_TRANSLATE_NOOP

NOT_A_DECODER = QT_TRANSLATE_NOOP("core", "{model} is an encoder: the logit lens needs a decoder")


@dataclass(frozen=True)
class LogitLens:
    top_ids: np.ndarray       # (layers + 1, n) int64: each row's likeliest next token per position
    top_p: np.ndarray         # (layers + 1, n): its probability (computed in float32)
    final_p: np.ndarray       # (layers + 1, n): the final answer's probability at each row
    first_row: np.ndarray     # (n,) int
    settled_row: np.ndarray   # (n,) int

    @property
    def final(self) -> np.ndarray:
        return self.top_ids[-1]  # (n,)


CHUNK_LOGITS = 1 << 24  # logits per unembedding (64 MB of float32): rows × positions in chunks


def logit_lens(model, hidden_states: np.ndarray, n_real: int | None = None, positions=None,
               should_stop=None) -> LogitLens:
    """The lens of a decoder (a core.learned LoadedModel) over its captured hidden states
    (layers + 1, n, d_model); n_real: the positions before any padding (default all);
    `positions`: only these (a list of indices: the columns of the result, in that order).

    Every (row, position) is one unembedding; they go through in chunks of CHUNK_LOGITS logits,
    so the unembedding matrix is read once per chunk, not once per row (it is memory-bound for a
    few positions). SmolLM2 (vocabulary 49,152, 31 rows, one torch thread, load average 3.5)
    measured 0.06 s for the last position and 3.7 s for 64: a window shows the positions it draws. `should_stop` is polled
    between chunks (core.cancel.Cancelled)."""
    import torch
    from ..cancel import check
    if not model.is_decoder:
        raise ConfigError.of(NOT_A_DECODER, model=model.spec.name)
    states = np.asarray(hidden_states)[:, :n_real]  # (rows, n, d)
    if positions is not None:
        states = states[:, list(positions)]
    rows, n, d = states.shape
    flat = torch.from_numpy(np.ascontiguousarray(states.reshape(rows * n, d))).to(model.device)  # (rows·n, d)
    step = max(1, CHUNK_LOGITS // max(1, model.weights.vocab))  # vectors per chunk
    top, top_p, final_p = [], [], []
    with torch.inference_mode():
        final = model.weights.unembed(flat[-n:]).float().argmax(dim=-1)  # (n,): the model's own answer
        for start in range(0, rows * n, step):
            check(should_stop, "logit lens")
            logits = model.weights.unembed(flat[start:start + step]).float()  # (chunk, vocab)
            log_total = torch.logsumexp(logits, dim=-1)  # (chunk,): log of softmax's denominator
            best = logits.argmax(dim=-1)  # argmax, as `final` (the same token where two tie)
            answer = final[torch.arange(start, start + len(logits), device=final.device) % n]
            top.append(best.cpu().numpy())
            top_p.append(torch.exp(logits.gather(1, best[:, None])[:, 0] - log_total).cpu().numpy())
            final_p.append(torch.exp(logits.gather(1, answer[:, None])[:, 0] - log_total).cpu().numpy())
    top_ids = np.concatenate(top).astype(np.int64).reshape(rows, n)

    def table(parts):
        return np.concatenate(parts).astype(np.float64).reshape(rows, n)
    return LogitLens(top_ids, table(top_p), table(final_p), *answer_rows(top_ids))


def answer_rows(top_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row showing the final answer, first row from which it stays) per position."""
    hit = top_ids == top_ids[-1]  # (rows, n)
    first = hit.argmax(axis=0)
    # the last row that misses, + 1 (0 when none misses)
    misses = ~hit
    last_miss = np.where(misses.any(axis=0), len(hit) - 1 - misses[::-1].argmax(axis=0), -1)
    return first, last_miss + 1
