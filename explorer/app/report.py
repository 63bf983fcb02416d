"""Plain-data and text renderings of a result, for `dump` (Qt-free).

The text follows the current language (``app.i18n``: `dump --lang ko`); the JSON never changes."""

from __future__ import annotations

import unicodedata

import numpy as np

from ..core import AttentionResult, KVTrace
from .i18n import translate


def display_width(text: str) -> int:
    """Terminal columns: Hangul and other wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, width: int, right: bool = False) -> str:
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def result_to_dict(result: AttentionResult, trace: KVTrace | None = None) -> dict:
    """The JSON document of `dump`: plain lists of floats."""
    doc = {
        "config": result.config.to_dict(),
        "tokens": list(result.tokens),
        "weights": result.weights.tolist(),
        "output": result.output.tolist(),
        "param_count": result.param_count,
        "flop_count": result.flop_count,
        "stats": result.stats.to_dict(),
        "fully_masked_rows": [int(i) for i in np.flatnonzero(result.empty_rows)],
        "device": result.device,
        "elapsed_ms": result.elapsed_s * 1e3,
    }
    if trace is not None:
        doc["kv"] = [step.to_dict() for step in trace.steps]
    return doc


def weight_table(tokens, matrix: np.ndarray, decimals: int = 2) -> list[str]:
    """Rows = queries, columns = keys, aligned for Hangul."""
    label_w = max(display_width(t) for t in tokens) + 2
    cell_w = max(decimals + 4, max(display_width(t) for t in tokens) + 1)
    lines = [pad("", label_w) + "".join(pad(t, cell_w, right=True) for t in tokens)]
    for tok, row in zip(tokens, matrix):
        cells = "".join(pad(f"{w:.{decimals}f}", cell_w, right=True) for w in row)
        lines.append(pad(tok, label_w) + cells)
    return lines


def result_to_text(result: AttentionResult, trace: KVTrace | None = None) -> str:
    c, tokens = result.config, result.tokens
    lines = [
        translate("report", "tokens: {tokens}  (n = {n})").format(tokens=" ".join(tokens), n=c.n_tokens),
        translate("report",
                  "d_model {d_model}, heads {heads}, d_head {d_head}, seed {seed}, scaled {scaled}, "
                  "causal {causal}, padding {padding}, positional {positional}").format(
            d_model=c.d_model, heads=c.n_heads, d_head=c.d_head, seed=c.seed,
            scaled="÷√" + str(c.d_head) if c.scaled else translate("report", "off"), causal=c.causal,
            padding=sorted(c.padding) or translate("report", "none"), positional=c.positional),
        translate("report", "shapes: X {x} → Q,K,V {q} → split {split} → heads {heads} → concat {concat} "
                  "→ output {output}").format(
            x=result.x.shape, q=result.q.shape, split=result.qh.shape,
            heads=result.head_outputs.shape, concat=result.concat.shape, output=result.output.shape),
        translate("report",
                  "parameters: {formula} = {count}").format(formula=f"4 · {c.d_model} · {c.d_model}",
                                                            count=result.param_count),
        translate("report", "device: {device} ({ms} ms)").format(device=result.device,
                                                       ms=f"{result.elapsed_s * 1e3:.3f}"),
    ]
    for h in range(c.n_heads):
        lines += ["", translate("report",
                                "head {head} weights (rows = query, columns = key):").format(head=h)]
        lines += weight_table(tokens, result.weights[h])
        picks = [f"{tokens[q]}→{tokens[k]}" if k >= 0 else f"{tokens[q]}→" + translate("report",
                                                                                       "(all masked)")
                 for q, k in enumerate(result.stats.argmax[h])]
        lines.append(translate("report", "most attended: ") + ", ".join(picks))
        lines.append(translate("report", "entropy (nats): ") + np.array2string(result.stats.entropy[h],
                                                                               precision=3))
    if result.empty_rows.any():
        rows = ", ".join(tokens[i] for i in np.flatnonzero(result.empty_rows))
        lines += ["", translate("report", "fully masked rows (weights set to 0): ") + rows]
    if trace is not None:
        lines += ["", translate("report",
                                "KV cache: step token cached bytes flops(cache) flops(recompute) max|diff|")]
        for s in trace.steps:
            lines.append(f"  {s.step:4d} {pad(s.token, 8)} {s.cached:5d} {s.cache_bytes:9d} "
                         f"{s.flops_cached:12d} {s.flops_recompute:14d} {s.max_diff:.2e}")
    return "\n".join(lines)
