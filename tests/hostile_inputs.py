"""Classes of hostile input shared by the test_hostile_*.py files (holds no tests)."""

import sys
import unicodedata

# Every character str.isdigit() or category Nd accepts that is not 0-9: "²", "٣", "𝟗", "①" ...
# (int() takes some of them, isdigit() all: either way none may pass as a typed number).
NON_ASCII_DIGITS = [chr(c) for c in range(0x80, sys.maxunicode + 1)
                    if chr(c).isdigit() or unicodedata.category(chr(c)) == "Nd"]
# Control characters and lone surrogates (undecodable argv bytes) that are not whitespace.
CONTROL = [chr(c) for c in range(sys.maxunicode + 1)
           if unicodedata.category(chr(c)) in ("Cc", "Cs") and not chr(c).isspace()]
SOME_DIGITS = NON_ASCII_DIGITS[::40]  # ~20 scripts' digits, superscripts, circled, fullwidth ...
SOME_CONTROLS = ["\x01", "\x07", "\x1b", "\x7f", "\x9f", "\udc80", "\udcff", "\ud800"]
