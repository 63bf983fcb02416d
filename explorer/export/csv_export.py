"""Attention weights as tidy CSV: one row per (head, query, key) (Qt-free).

Numbers are written with `repr(float)`, which round-trips exactly: reading the CSV back
gives the very weights `forward` returned. Masked cells are written as 0, as `forward`
has them. Text is UTF-8 without a byte-order mark.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from ..core import AttentionResult, KVTrace, sinusoidal_table

WEIGHT_COLUMNS = ("head", "query_index", "query", "key_index", "key", "weight")
KV_COLUMNS = ("step",) + WEIGHT_COLUMNS
PE_COLUMNS = ("position", "token", "dim", "value")


def weights_rows(result: AttentionResult, heads: list[int] | None = None):
    """Yield (head, query_index, query, key_index, key, weight) for the chosen heads."""
    tokens = result.config.tokens
    weights = np.asarray(result.weights, dtype=np.float64)  # (h, n, n)
    for h in range(weights.shape[0]) if heads is None else heads:
        for i, query in enumerate(tokens):
            for j, key in enumerate(tokens):
                yield h, i, query, j, key, float(weights[h, i, j])


def weights_csv(result: AttentionResult, heads: list[int] | None = None) -> str:
    """All heads (or the chosen ones) in one tidy table: heads·n·n rows.

    Same text as `csv.writer` over `weights_rows`, built by joining strings: 1024 tokens ×
    4 heads is 4 million rows, and the writer's per-row overhead would triple the time.
    """
    tokens = [_field(t) for t in result.config.tokens]
    weights = np.asarray(result.weights, dtype=np.float64)  # (h, n, n)
    key_parts = [f",{j},{token}," for j, token in enumerate(tokens)]
    parts = [",".join(WEIGHT_COLUMNS) + "\n"]
    for h in range(weights.shape[0]) if heads is None else heads:
        for i, query in enumerate(tokens):
            prefix = f"{h},{i},{query}"
            parts.append("".join(f"{prefix}{key}{w!r}\n"
                                 for key, w in zip(key_parts, weights[h, i].tolist())))
    return "".join(parts)


def _field(text: str) -> str:
    """One CSV field as csv.writer would write it (quoted when it holds , " or a line break)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([text])
    return out.getvalue()


def kv_csv(trace: KVTrace, step: int | None = None) -> str:
    """Each KV step's weights over the cached keys (one step, or all of them)."""
    tokens = trace.config.tokens
    steps = trace.steps if step is None else [trace.steps[step]]

    def rows():
        for s in steps:
            weights = np.asarray(s.weights, dtype=np.float64)  # (h, step + 1)
            for h in range(weights.shape[0]):
                for j in range(s.cached):
                    yield s.step, h, s.step, s.token, j, tokens[j], float(weights[h, j])
    return _table(KV_COLUMNS, rows())


def pe_csv(result: AttentionResult) -> str:
    """The sinusoidal table for this sentence and width: n·d_model rows."""
    config = result.config
    table = result.pe if result.pe is not None else sinusoidal_table(config.n_tokens, config.d_model)
    table = np.asarray(table, dtype=np.float64)  # (n, d)

    def rows():
        for i, token in enumerate(config.tokens):
            for k in range(config.d_model):
                yield i, token, k, float(table[i, k])
    return _table(PE_COLUMNS, rows())


def _table(columns, rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(_fmt(row) for row in rows)
    return out.getvalue()


def _fmt(row) -> list:
    return [repr(v) if isinstance(v, float) else v for v in row]
