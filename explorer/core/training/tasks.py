"""The tasks a tiny transformer can learn in the window, as numpy batches (no torch).

Every task gives three (batch, seq_len) arrays: `inputs` (token ids), `targets` (the id the model
should output at each position) and `mask` (True where the loss and accuracy count). Most tasks
are next-token prediction (targets = inputs shifted left) with the loss only on the part that can
be worked out from earlier tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..config import ConfigError

MIN_SEGMENT, MAX_SEGMENT = 5, 15   # repeated-segment lengths of the measured recipe
MAX_LIST = 10                      # reverse / sort: list length (shorter if seq_len is small)
PROBE_SEED = 20240513              # the probe sequence is the same for every run of a (vocab, seq_len)


def _next_token(tokens: np.ndarray, predict_from: np.ndarray) -> tuple:
    """Targets = tokens shifted left; mask = positions whose next token is predictable."""
    targets = np.zeros_like(tokens)
    targets[:, :-1] = tokens[:, 1:]  # (B, T)
    return tokens, targets, predict_from


def _repeated_segment(rng: np.random.Generator, batch: int, vocab: int, seq_len: int,
                      fixed_offset: bool) -> tuple:
    """Random tokens with a 5–15-token segment copied once later; loss on the copy (after its first token).

    Random offset: the segment starts anywhere and its copy anywhere after it, so the only way
    to predict the copy is "find the earlier occurrence of my token, output what followed it"
    (an induction head, fed by a previous-token head). Fixed offset: segment at 0 and copy at
    seq_len // 2 always, so "look seq_len // 2 − 1 positions back" solves it with one
    positional head and no induction head forms (the pitfall in learned-models.md).
    """
    tokens = rng.integers(0, vocab, size=(batch, seq_len))  # (B, T)
    mask = np.zeros((batch, seq_len), dtype=bool)
    high = min(MAX_SEGMENT, seq_len // 2)
    lengths = rng.integers(min(MIN_SEGMENT, high), high + 1, size=batch)  # (B,)
    for row, length in enumerate(lengths):
        if fixed_offset:
            first, second = 0, seq_len // 2
        else:
            first = rng.integers(0, seq_len - 2 * length + 1)
            second = rng.integers(first + length, seq_len - length + 1)
        tokens[row, second:second + length] = tokens[row, first:first + length]
        mask[row, second:second + length - 1] = True  # predicting copy tokens 1 .. length-1
    return _next_token(tokens, mask)


def _previous_token(rng, batch, vocab, seq_len) -> tuple:
    """Output the token one position back (the job of a previous-token head)."""
    inputs = rng.integers(0, vocab, size=(batch, seq_len))  # (B, T)
    targets = np.zeros_like(inputs)
    targets[:, 1:] = inputs[:, :-1]
    mask = np.ones((batch, seq_len), dtype=bool)
    mask[:, 0] = False
    return inputs, targets, mask


def _list_task(rng, batch, vocab, seq_len, transform) -> tuple:
    """[x_1 … x_k, SEP, transform(x), SEP …]; loss on predicting transform(x). SEP = vocab − 1."""
    k = min(MAX_LIST, (seq_len - 1) // 2)
    sep = vocab - 1
    tokens = np.full((batch, seq_len), sep)  # (B, T)
    items = rng.integers(0, vocab - 1, size=(batch, k))  # (B, k)
    tokens[:, :k] = items
    tokens[:, k + 1:2 * k + 1] = transform(items)
    mask = np.zeros((batch, seq_len), dtype=bool)
    mask[:, k:2 * k] = True  # from the SEP on, each position predicts the next output item
    return _next_token(tokens, mask)


@dataclass(frozen=True)
class Task:
    key: str
    title: str
    make: Callable  # (rng, batch, vocab, seq_len) -> (inputs, targets, mask), each (B, T)
    min_vocab: int = 2

    def batch(self, rng: np.random.Generator, batch: int, vocab: int, seq_len: int) -> tuple:
        return self.make(rng, batch, vocab, seq_len)

    def check(self, vocab: int, seq_len: int) -> None:
        """ConfigError if this task (or the probe) cannot be built at this size."""
        need = max(self.min_vocab, probe_half(seq_len))  # the probe's first half has distinct tokens
        if vocab < need:
            raise ConfigError(f"vocabulary size must be at least {need} for task {self.key!r} "
                              f"at sequence length {seq_len}, got {vocab}")


TASKS: dict[str, Task] = {t.key: t for t in (
    Task("induction", "copy a repeated segment (random offset: induction)",
         lambda rng, b, v, t: _repeated_segment(rng, b, v, t, fixed_offset=False)),
    Task("induction-fixed", "copy a repeated segment at a fixed offset (pitfall: positional head)",
         lambda rng, b, v, t: _repeated_segment(rng, b, v, t, fixed_offset=True)),
    Task("previous-token", "output the previous token", _previous_token),
    Task("reverse", "reverse a list", lambda rng, b, v, t: _list_task(rng, b, v, t, lambda x: x[:, ::-1]),
         min_vocab=3),
    Task("sort", "sort a list", lambda rng, b, v, t: _list_task(rng, b, v, t, lambda x: np.sort(x, axis=1)),
         min_vocab=3),
)}


def probe_half(seq_len: int) -> int:
    """L, the length of the probe's repeated segment: 3/8 of seq_len (12 for 32), at least 2.

    Not seq_len / 2: the fixed-offset task puts its copy exactly seq_len / 2 after the segment,
    so on a probe repeating at that distance the pitfall's positional head ("look seq_len/2 − 1
    back") would score as a perfect induction head (measured: 0.87). At distance 3/8·seq_len only
    a head that matches tokens scores.
    """
    return max(2, 3 * seq_len // 8)


def probe_tokens(vocab: int, seq_len: int) -> np.ndarray:
    """The fixed probe: L = probe_half(seq_len) distinct random tokens, then the same L again. (2L,)

    Role scores are read from the attention on this one sequence at every logged step, so
    curves from different steps, seeds and tasks are comparable.
    """
    half = probe_half(seq_len)
    first = np.random.default_rng(PROBE_SEED).permutation(vocab)[:half]  # (L,)
    return np.concatenate([first, first])
