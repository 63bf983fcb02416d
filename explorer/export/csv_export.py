"""Attention weights as tidy CSV: one row per (head, query, key) (Qt-free).

Numbers are written with `repr(float)`, which round-trips exactly: reading the CSV back
gives the very weights `forward` returned. Masked cells are written as 0, as `forward`
has them. Text is UTF-8 without a byte-order mark.

Every table is also available in pieces (`*_chunks`, str pieces of a few hundred KB, or
`csv_bytes` for UTF-8 pieces): 16 heads at 1024 tokens is 16.8 million rows (~420 MB of
text), which a file export writes piece by piece instead of building it whole.
"""

from __future__ import annotations

import csv
import io
from typing import Iterable, Iterator

import numpy as np

from ..core import AttentionResult, KVTrace, sinusoidal_table

WEIGHT_COLUMNS = ("head", "query_index", "query", "key_index", "key", "weight")
KV_COLUMNS = ("step",) + WEIGHT_COLUMNS
PE_COLUMNS = ("position", "token", "dim", "value")
ROWS_PER_CHUNK = 16384  # ~400 KB of text a piece


def weights_rows(result: AttentionResult, heads: list[int] | None = None):
    """Yield (head, query_index, query, key_index, key, weight) for the chosen heads."""
    tokens = result.config.tokens
    weights = np.asarray(result.weights, dtype=np.float64)  # (h, n, n)
    for h in range(weights.shape[0]) if heads is None else heads:
        for i, query in enumerate(tokens):
            for j, key in enumerate(tokens):
                yield h, i, query, j, key, float(weights[h, i, j])


def weights_csv(result: AttentionResult, heads: list[int] | None = None) -> str:
    """All heads (or the chosen ones) in one tidy table: heads·n·n rows (see weights_chunks)."""
    return "".join(weights_chunks(result, heads))


def weights_chunks(result: AttentionResult, heads: list[int] | None = None) -> Iterator[str]:
    """`weights_csv` in pieces: the header, then up to ROWS_PER_CHUNK rows at a time.

    Same text as `csv.writer` over `weights_rows`, built by joining strings: 1024 tokens ×
    4 heads is 4 million rows, and the writer's per-row overhead would triple the time.
    """
    tokens = [_field(t) for t in result.config.tokens]
    weights = np.asarray(result.weights)  # (h, n, n), each row cast to float64 when read
    key_parts = [f",{j},{token}," for j, token in enumerate(tokens)]
    yield ",".join(WEIGHT_COLUMNS) + "\n"
    parts, rows = [], 0
    for h in range(weights.shape[0]) if heads is None else heads:
        for i, query in enumerate(tokens):
            prefix = f"{h},{i},{query}"
            row = np.asarray(weights[h, i], dtype=np.float64).tolist()
            parts.append("".join(f"{prefix}{key}{w!r}\n" for key, w in zip(key_parts, row)))
            rows += len(row)
            if rows >= ROWS_PER_CHUNK:
                yield "".join(parts)
                parts, rows = [], 0
    if parts:
        yield "".join(parts)


def csv_bytes(chunks: Iterable[str]) -> Iterator[bytes]:
    """UTF-8 pieces of a table given in str pieces."""
    for chunk in chunks:
        yield chunk.encode("utf-8")


def _field(text: str) -> str:
    """One CSV field as csv.writer would write it (quoted when it holds , " or a line break)."""
    out = io.StringIO()  # the writer's terminator "\n": with "" it would not quote a "\n"
    csv.writer(out, lineterminator="\n").writerow([text])
    return out.getvalue()[:-1]


def kv_csv(trace: KVTrace, step: int | None = None) -> str:
    """Each KV step's weights over the cached keys (one step, or all of them)."""
    return "".join(kv_chunks(trace, step))


def kv_chunks(trace: KVTrace, step: int | None = None) -> Iterator[str]:
    """`kv_csv` in pieces (all steps at 1024 tokens × 16 heads: 8.4 million rows)."""
    tokens = trace.config.tokens
    steps = trace.steps if step is None else [trace.steps[step]]

    def rows():
        for s in steps:
            weights = np.asarray(s.weights, dtype=np.float64)  # (h, step + 1)
            for h in range(weights.shape[0]):
                for j in range(s.cached):
                    yield s.step, h, s.step, s.token, j, tokens[j], float(weights[h, j])
    return _table_chunks(KV_COLUMNS, rows())


def pe_csv(result: AttentionResult) -> str:
    """The sinusoidal table for this sentence and width: n·d_model rows."""
    return "".join(pe_chunks(result))


def pe_chunks(result: AttentionResult) -> Iterator[str]:
    """`pe_csv` in pieces."""
    config = result.config
    table = result.pe if result.pe is not None else sinusoidal_table(config.n_tokens, config.d_model)
    table = np.asarray(table, dtype=np.float64)  # (n, d)

    def rows():
        for i, token in enumerate(config.tokens):
            for k in range(config.d_model):
                yield i, token, k, float(table[i, k])
    return _table_chunks(PE_COLUMNS, rows())


def _table_chunks(columns, rows) -> Iterator[str]:
    """csv.writer's text for the header and rows, ROWS_PER_CHUNK rows a piece."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    count = 0
    for row in rows:
        writer.writerow(_fmt(row))
        count += 1
        if count == ROWS_PER_CHUNK:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            count = 0
    if out.tell():
        yield out.getvalue()


def _fmt(row) -> list:
    return [repr(v) if isinstance(v, float) else v for v in row]
