"""Topic 4: padding, causal and combined masks, and what a fully masked row means.

The mask the softmax sees is the AND of two "may attend" matrices: padding (key
columns that are padding are closed for every query) and causal (query i may see
keys 0..i). A query row where the AND leaves no key open has nothing to normalise
over: softmax would compute 0/0 = NaN. The core defines such a row's weights as
all 0, so the token's attention output is the zero vector (nothing was attended).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attention import AttentionResult
from ..config import AttentionConfig, validate
from ..masks import build_mask, fully_masked_rows
from ..messages import QT_TRANSLATE_NOOP


@dataclass(frozen=True)
class MaskLayers:
    """The masks that combine into the one softmax uses (True = may attend)."""

    tokens: tuple[str, ...]
    padding: np.ndarray     # (n, n) from padding alone
    causal: np.ndarray      # (n, n) from causality alone (all True when causal is off)
    combined: np.ndarray    # (n, n) padding AND causal, what the softmax sees
    empty_rows: np.ndarray  # (n,) rows of `combined` with no open key
    reasons: dict[int, str]  # empty row -> why it is empty, in words

    @property
    def open_counts(self) -> np.ndarray:
        """(n,) how many keys each query may attend to."""
        return self.combined.sum(axis=-1)


def mask_layers(config: AttentionConfig) -> MaskLayers:
    """Split the config's mask into its padding and causal parts (cheap)."""
    validate(config)
    n = config.n_tokens
    padding = build_mask(n, n, causal=False, padding=config.padding)  # (n, n)
    causal = build_mask(n, n, causal=config.causal)  # (n, n)
    combined = padding & causal
    empty = fully_masked_rows(combined)
    reasons = {int(i): explain_empty_row(int(i), config) for i in np.flatnonzero(empty)}
    return MaskLayers(config.tokens, padding, causal, combined, empty, reasons)


EMPTY_ROW_CAUSAL = QT_TRANSLATE_NOOP(
    "topics.masking", "query {row} ({token}) may only see keys {seen} (causal), and all of them are "
                      "padding: its weights are all 0 and its output is the zero vector.")
EMPTY_ROW_PADDED = QT_TRANSLATE_NOOP(
    "topics.masking", "query {row} ({token}): every key is padding, so softmax would be 0/0; its "
                      "weights are all 0 and its output is the zero vector.")


def empty_row_reason(row: int, config: AttentionConfig) -> tuple[str, dict]:
    """Why query `row` has no key left: the English template (marked for the catalogue,
    context "topics.masking") and its fields; the view shows it in the UI language."""
    fields = {"row": row, "token": config.tokens[row]}
    if config.causal:
        return EMPTY_ROW_CAUSAL, {**fields, "seen": ", ".join(str(p) for p in range(row + 1))}
    return EMPTY_ROW_PADDED, fields


def explain_empty_row(row: int, config: AttentionConfig) -> str:
    """Why query `row` has no key left (English)."""
    template, fields = empty_row_reason(row, config)
    return template.format(**fields)


def check_no_nan(result: AttentionResult) -> bool:
    """True when weights and output are finite and empty rows are exactly zero."""
    finite = np.isfinite(result.weights).all() and np.isfinite(result.output).all()
    empty = result.empty_rows
    zero = not empty.any() or (np.all(result.weights[:, empty] == 0)
                               and np.all(result.output[empty] == 0))
    return bool(finite and zero)
