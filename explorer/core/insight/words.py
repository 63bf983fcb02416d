"""Words, not pieces: subword pieces grouped into words, and attention between the words.

A word is a whitespace-separated run of text (a Korean eojeol is one: 학교에 is one word), found
from how each tokenizer marks its pieces:

- "wordpiece" (BERT, MiniLM): a piece starting with ## continues the word before it; any other
  piece starts a word. Its pre-tokenizer already cut punctuation off, so "mat." is two words here.
- "metaspace" (SentencePiece: e5, XLM-R, Llama's ▁): a piece starting with ▁ starts a word, any
  other continues the one before.
- "bytelevel" (GPT-2, SmolLM2, RoBERTa: Ġ is a space, Ċ a newline): a piece starting with Ġ or Ċ,
  or following a newline, starts a word; any other continues (the text's first piece has no Ġ).
- "pieces": every piece is its own word (integer tokens, the course's words).

Special tokens ([CLS], </s>, <|endoftext|>, padding) are always their own word.

Attention between words sums over a word's key pieces (the weight the word receives) and
averages over its query pieces (each piece is one query row):

    W[a, b] = mean_{i ∈ a} Σ_{j ∈ b} A[i, j]

so every row still sums to 1, and a word of one piece keeps the pieces' numbers exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..learned.labels import byte_decoder, readable_byte_piece, readable_hangul
from .sinks import SPECIAL_PIECE

SCHEMES = ("wordpiece", "metaspace", "bytelevel", "pieces")
META = "▁"


@dataclass(frozen=True)
class Words:
    groups: tuple[tuple[int, ...], ...]   # per word, its piece positions (consecutive, in order)
    labels: tuple[str, ...]               # per word, its text (markers removed)
    scheme: str

    @property
    def n_words(self) -> int:
        return len(self.groups)

    def word_of(self) -> tuple[int, ...]:
        """Per piece, the index of its word."""
        return tuple(w for w, group in enumerate(self.groups) for _ in group)

    def to_dict(self) -> dict:
        return {"scheme": self.scheme, "words": list(self.labels), "groups": [list(g) for g in self.groups]}


def scheme_of(tokenizer=None, pieces=()) -> str:
    """The marking scheme of a tokenizer (its byte_level flag or its kind), else guessed from the
    pieces: ## anywhere -> wordpiece, Ġ/Ċ -> bytelevel, ▁ -> metaspace, none -> wordpiece (a
    text without subwords: every piece a word)."""
    if tokenizer is not None:
        if getattr(tokenizer, "byte_level", False) or type(tokenizer).__name__ == "ByteBPETokenizer":
            return "bytelevel"
        if type(tokenizer).__name__ == "UnigramTokenizer":
            return "metaspace"
        if type(tokenizer).__name__ == "WordPieceTokenizer":
            return "wordpiece"
    plain = [p for p in pieces if not SPECIAL_PIECE.match(p)]
    if any(p.startswith("##") for p in plain):
        return "wordpiece"
    if any(p[:1] in ("Ġ", "Ċ") for p in plain):
        return "bytelevel"
    if any(p.startswith(META) for p in plain):
        return "metaspace"
    return "wordpiece"


def _starts_word(piece: str, previous: str | None, scheme: str) -> bool:
    if previous is None or scheme == "pieces" or SPECIAL_PIECE.match(previous):
        return True
    if scheme == "wordpiece":
        return not piece.startswith("##")
    if scheme == "metaspace":
        return piece.startswith(META)
    return piece[:1] in ("Ġ", "Ċ") or previous.endswith("Ċ")


def word_groups(pieces, scheme: str | None = None, special=()) -> Words:
    """The words of the model's own `pieces` (module docstring); `special`: positions that are
    special tokens besides those spelt like one (a tokenizer's own added tokens)."""
    scheme = scheme or scheme_of(pieces=pieces)
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, not {scheme!r}")
    specials = set(special)
    groups: list[list[int]] = []
    previous = None
    for i, piece in enumerate(pieces):
        alone = i in specials or bool(SPECIAL_PIECE.match(piece))
        if alone or (i - 1) in specials or _starts_word(piece, previous, scheme):
            groups.append([i])
        else:
            groups[-1].append(i)
        previous = piece
    labels = tuple(_label([pieces[i] for i in g], scheme) for g in groups)
    return Words(tuple(tuple(g) for g in groups), labels, scheme)


def _label(pieces: list[str], scheme: str) -> str:
    """A word's text from its pieces, the markers removed (Hangul recomposed, bytes decoded)."""
    if len(pieces) == 1 and SPECIAL_PIECE.match(pieces[0]):
        return pieces[0]
    if scheme == "wordpiece":
        return readable_hangul(pieces[0] + "".join(p[2:] if p.startswith("##") else p for p in pieces[1:]))
    if scheme == "bytelevel" and all(ch in byte_decoder() for p in pieces for ch in p):
        text = readable_byte_piece("".join(pieces))
        return text.lstrip(META) or text
    text = "".join(pieces)
    return text.lstrip(META) or text


def group_attention(attentions: np.ndarray, words: Words) -> np.ndarray:
    """(..., n, n) piece attention -> (..., m, m) word attention (module docstring), same dtype."""
    a = np.asarray(attentions)
    n = a.shape[-1]
    if sum(len(g) for g in words.groups) != n:
        raise ValueError(f"{words.n_words} words over {sum(len(g) for g in words.groups)} pieces, "
                         f"attention over {n}")
    member = np.zeros((n, words.n_words), dtype=a.dtype)  # (n, m): piece i belongs to word a
    for w, group in enumerate(words.groups):
        member[list(group), w] = 1
    mean = (member / member.sum(axis=0)).T  # (m, n): the mean over a word's query pieces
    return mean @ a @ member  # (..., m, m)
