"""Token tick labels for a heatmap axis: abbreviated, and in levels so pyqtgraph thins them.

pyqtgraph always draws the first tick level's text and adds finer levels only while they fit
(its `textFillLimits`), so giving every 2^k-th token first, then the ones between, shows as many
tokens as the axis has room for at any widget size, from 4 tokens to 1024.
"""

from __future__ import annotations

FIRST_LEVEL_MAX = 4  # tokens always labelled, however small the plot
MAX_TICKS = 256      # no axis has room for more labels; each tick mark costs paint time


def display_token(token: str, max_chars: int, literal: bool = False) -> str:
    """Visible, short form of a token: blanks shown as ␣ (unless `literal`, for labels that are
    not tokens), long ones cut with an ellipsis."""
    text = str(token)
    if not literal:
        text = text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")
    text = text or "∅"
    if len(text) > max_chars:
        text = text[: max(1, max_chars - 1)] + "…"
    return text


def tick_levels(tokens, max_chars: int = 8, literal: bool = False) -> list[list[tuple[float, str]]]:
    """[[(position, label), ...] per level]: coarse to fine, each position in one level only.

    Finer levels are dropped once the total would pass MAX_TICKS (hundreds of tokens).
    """
    n = len(tokens)
    labels = [display_token(t, max_chars, literal) for t in tokens]
    step = 1
    while n > FIRST_LEVEL_MAX * step:
        step *= 2
    levels, seen = [], set()
    while step >= 1:
        level = [(float(i), labels[i]) for i in range(0, n, step) if i not in seen]
        if levels and len(seen) + len(level) > MAX_TICKS:
            break
        seen.update(int(p) for p, _ in level)
        levels.append(level)
        step //= 2
    return levels
