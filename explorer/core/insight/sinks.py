"""Attention sinks: how much attention lands on the first token and on the separators.

Many heads of a trained model send most of every row to the first token ([CLS], <s>, a BOS, or
a decoder's first word when there is none) or to a separator ([SEP], </s>, an end-of-text): a
softmax row must sum to 1, and a head with nothing to look for parks its weight where it changes
little (Xiao et al. 2023, "attention sinks"; Clark et al. 2019 on [SEP] in BERT). Such a head's
picture is a bright column, whatever the sentence.

    shares = sink_shares(attentions, pieces, causal=True)
    shares.first            # (layers, heads): mean over the queries of the weight on position 0
    shares.separators       # (layers, heads): mean over the queries of the weight on all separators
    shares.first_by_layer   # (layers,): the heads' mean

Queries counted: the real ones (not padding), from `first_query` on (a prefix-tuning adapter's
virtual tokens are keys only: their rows are empty). A decoder's first query sees only itself
(its weight on position 0 is 1 by construction), so it is left out when there are others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .rollout import check_attentions

# pieces that close a sentence or a text, as the tokenizers of the families here spell them
SEPARATOR_PIECES = frozenset({"[SEP]", "</s>", "<|endoftext|>", "<eos>", "<|im_end|>", "<|eot_id|>",
                              "<sep>", "<|end_of_text|>", "<end_of_turn>"})
# a special token: [CLS], [PAD], <s>, </s>, <pad>, <|endoftext|>, <|im_start|> …
SPECIAL_PIECE = re.compile(r"^(\[[A-Z_]+\]|<\|[^|\s]*\|>|</?[a-z_]+>)$")


@dataclass(frozen=True)
class SinkShares:
    """Sink shares per layer and head (module docstring); float64."""

    first: np.ndarray               # (layers, heads)
    separators: np.ndarray          # (layers, heads); zeros when there is no separator
    first_piece: str                # what sits at position 0
    separator_positions: tuple[int, ...]
    queries: int                    # query rows averaged over

    @property
    def first_by_layer(self) -> np.ndarray:
        return self.first.mean(axis=1)  # (layers,)

    @property
    def separators_by_layer(self) -> np.ndarray:
        return self.separators.mean(axis=1)  # (layers,)

    def to_dict(self) -> dict:
        def r(a):
            return np.round(a, 6).tolist()
        return {"first_piece": self.first_piece, "separator_positions": list(self.separator_positions),
                "queries": self.queries, "first": r(self.first), "separators": r(self.separators),
                "first_by_layer": r(self.first_by_layer), "separators_by_layer": r(self.separators_by_layer)}


def separator_positions(pieces, ids=(), separator_ids=()) -> tuple[int, ...]:
    """Positions holding a separator: a piece of SEPARATOR_PIECES, or an id of `separator_ids`
    (a tokenizer's own end-of-sentence ids, when its pieces are spelt otherwise)."""
    extra = set(separator_ids)
    return tuple(i for i, piece in enumerate(pieces)
                 if piece in SEPARATOR_PIECES or (i < len(ids) and ids[i] in extra))


def sink_shares(attentions: np.ndarray, pieces, causal: bool = False, n_real: int | None = None,
                ids=(), separator_ids=(), first_query: int = 0) -> SinkShares:
    """The sink shares of `attentions` (layers, heads, n, n) over the tokens `pieces` (the model's
    own pieces, or readable labels); n_real: the tokens before any padding (default all)."""
    a = check_attentions(attentions)
    n = a.shape[-1]
    real = n if n_real is None else n_real
    if not 0 <= first_query < real <= n or len(pieces) != n:
        raise ValueError(f"{len(pieces)} pieces, queries {first_query}..{real - 1}, attentions over {n}")
    start = first_query + 1 if causal and real > first_query + 1 else first_query
    rows = a[:, :, start:real, :].astype(np.float64)  # (layers, heads, queries, n)
    seps = tuple(p for p in separator_positions(pieces, ids, separator_ids) if p < real)
    first = rows[..., 0].mean(axis=-1)  # (layers, heads)
    on_seps = rows[..., list(seps)].sum(axis=-1).mean(axis=-1) if seps else np.zeros(first.shape)
    return SinkShares(first, on_seps, str(pieces[0]), seps, real - start)
