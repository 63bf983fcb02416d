"""Token pieces made readable for axis labels.

- WordPiece (MiniLM) lower-cases with NFD, so Hangul arrives as conjoining jamo: pieces are
  recomposed (NFC) and a lone jamo is shown as the compatibility letter (ᄂ -> ㄴ).
- SentencePiece (e5) marks a word start with ▁; kept, as the model sees it.
- Byte-level BPE (SmolLM2) stores bytes as printable stand-ins (Ġ for a space, Ċ for a newline):
  they are decoded; a leading space is shown as ▁ (one convention across models), a newline as ↵,
  and bytes that are not whole UTF-8 characters as hex, e.g. <EB 82>.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_LEADS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"                                  # U+1100..U+1112
_VOWELS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"                              # U+1161..U+1175
_TAILS = "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"                       # U+11A8..U+11C2
_JAMO = {**{0x1100 + i: c for i, c in enumerate(_LEADS)},
         **{0x1161 + i: c for i, c in enumerate(_VOWELS)},
         **{0x11A8 + i: c for i, c in enumerate(_TAILS)}}


def readable_hangul(piece: str) -> str:
    """NFC, then any conjoining jamo left alone as its compatibility letter."""
    return unicodedata.normalize("NFC", piece).translate(_JAMO)


@lru_cache(maxsize=1)
def byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in character -> byte (the inverse of bytes_to_unicode)."""
    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
            + list(range(ord("®"), ord("ÿ") + 1)))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


def readable_byte_piece(piece: str) -> str:
    """A byte-level BPE piece as text: ▁ for a leading space, ↵ for newlines, hex for broken UTF-8."""
    table = byte_decoder()
    if not piece or any(ch not in table for ch in piece):
        return piece  # a special token such as <|im_start|>
    raw = bytes(table[ch] for ch in piece)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "<" + " ".join(f"{b:02X}" for b in raw) + ">"
    if text.startswith(" "):
        text = "▁" + text[1:]
    return text.replace("\n", "↵").replace("\t", "⇥").replace(" ", "▁")
