"""Tidy CSV: one row per (head, query, key), numbers exactly those of forward()."""

import csv
import io

import numpy as np

from explorer.core import forward, get_preset, run_kv_cache
from explorer.export.csv_export import WEIGHT_COLUMNS, kv_csv, pe_csv, weights_csv, weights_rows

LAB3 = get_preset("course-lab3").config


def read(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_rows_are_heads_n_n_and_weights_match_forward():
    config = LAB3.replace(causal=True, padding=frozenset({1}))
    result = forward(config)
    rows = read(weights_csv(result))
    assert tuple(rows[0]) == WEIGHT_COLUMNS
    h, n = config.n_heads, config.n_tokens
    assert len(rows) == h * n * n
    back = np.zeros((h, n, n))
    for row in rows:
        hh, i, j = int(row["head"]), int(row["query_index"]), int(row["key_index"])
        assert row["query"] == config.tokens[i] and row["key"] == config.tokens[j]
        back[hh, i, j] = float(row["weight"])
    np.testing.assert_array_equal(back, result.weights)  # exact: repr round-trips


def test_course_number_and_hangul_survive():
    rows = read(weights_csv(forward(LAB3), [0]))
    cell = next(r for r in rows if r["query"] == "나는" and r["key"] == "버스로")
    assert round(float(cell["weight"]), 2) == 0.57
    assert {r["head"] for r in rows} == {"0"}


def test_kv_csv_matches_the_trace():
    trace = run_kv_cache(LAB3)
    rows = read(kv_csv(trace, 2))
    assert len(rows) == LAB3.n_heads * 3
    for row in rows:
        assert float(row["weight"]) == trace.steps[2].weights[int(row["head"]), int(row["key_index"])]
    assert len(read(kv_csv(trace))) == LAB3.n_heads * sum(range(1, LAB3.n_tokens + 1))


def test_pe_csv_is_the_table():
    rows = read(pe_csv(forward(LAB3)))
    assert len(rows) == LAB3.n_tokens * LAB3.d_model
    assert float(rows[1]["value"]) == 1.0  # PE(0, 1) = cos 0


def test_fast_writer_matches_csv_module_with_awkward_tokens():
    config = LAB3.replace(tokens=("a,b", 'say "hi"', "나는", "plain"))
    result = forward(config)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(WEIGHT_COLUMNS)
    writer.writerows([h, i, q, j, k, repr(w)] for h, i, q, j, k, w in weights_rows(result))
    assert weights_csv(result) == out.getvalue()
    rows = read(weights_csv(result))
    assert rows[0]["query"] == "a,b" and rows[4]["query"] == 'say "hi"'


def _csv_module_text(columns, rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([repr(v) if isinstance(v, float) else v for v in row] for row in rows)
    return out.getvalue()


def test_pieces_join_to_the_csv_module_text(monkeypatch):
    """Small pieces (7 rows) so every table comes in many of them, cut mid-head and mid-step."""
    from explorer.export import csv_export
    monkeypatch.setattr(csv_export, "ROWS_PER_CHUNK", 7)
    config = LAB3.replace(tokens=("a,b", 'say "hi"', "나는", "quote'd", "x"), d_model=8,
                          n_heads=2, causal=True, positional=True, dtype="float32")
    result, trace = forward(config), run_kv_cache(config)
    weights = list(csv_export.weights_chunks(result))
    assert len(weights) > 5
    assert "".join(weights) == _csv_module_text(
        WEIGHT_COLUMNS, ((h, i, q, j, k, w) for h, i, q, j, k, w in weights_rows(result)))
    assert "".join(csv_export.weights_chunks(result, [1])) == _csv_module_text(
        WEIGHT_COLUMNS, (r for r in weights_rows(result) if r[0] == 1))
    kv_rows = [(s.step, h, s.step, s.token, j, config.tokens[j], float(s.weights[h, j]))
               for s in trace.steps for h in range(config.n_heads) for j in range(s.cached)]
    kv = list(csv_export.kv_chunks(trace))
    assert len(kv) > 3 and "".join(kv) == _csv_module_text(csv_export.KV_COLUMNS, kv_rows)
    pe_rows = [(i, t, k, float(result.pe[i, k])) for i, t in enumerate(config.tokens)
               for k in range(config.d_model)]
    assert "".join(csv_export.pe_chunks(result)) == _csv_module_text(csv_export.PE_COLUMNS, pe_rows)


def test_a_streamed_csv_file_equals_the_text(tmp_path, monkeypatch):
    from explorer.export import csv_export
    from explorer.core.files.output_files import Streamed, write_file
    monkeypatch.setattr(csv_export, "ROWS_PER_CHUNK", 5)
    result = forward(LAB3)
    made = []

    def pieces():
        for piece in csv_export.csv_bytes(csv_export.weights_chunks(result)):
            made.append(len(piece))
            yield piece
    path = write_file(tmp_path / "w.csv", Streamed(pieces))
    assert len(made) > 3  # really written piece by piece
    assert path.read_text(encoding="utf-8") == weights_csv(result)
