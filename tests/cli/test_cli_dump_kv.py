"""`dump --kv`: the step list the issue asks for, the same numbers the KV panel shows."""

import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.core import AttentionConfig, run_kv_cache
from numeric import assert_close

KEYS = {"step", "cached", "cache_bytes", "flops_cached", "flops_recompute", "max_diff"}


def dump(capsys, *args):
    assert main(["dump", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("dtype, itemsize", [("float64", 8), ("float32", 4)])
def test_kv_list_matches_the_formulas(capsys, dtype, itemsize):
    doc = json.loads(dump(capsys, "--kv", "--tokens", "a b c d e f", "--d-model", "16", "--heads",
                          "4", "--dtype", dtype, "--pad", "1", "--positional"))
    steps = doc["kv"]
    assert len(steps) == 6 and all(KEYS <= set(s) for s in steps)
    d, h, d_head = 16, 4, 4
    full = run_kv_cache(AttentionConfig.from_dict(doc["config"])).full  # what each row is checked against
    cum_c = cum_r = 0
    for t, s in enumerate(steps):
        cached = t + 1
        assert (s["step"], s["cached"]) == (t, cached)
        assert s["cache_bytes"] == 2 * 1 * 1 * h * cached * d_head * itemsize
        assert s["flops_cached"] == 8 * d * d + 4 * cached * d
        assert s["flops_recompute"] == 8 * cached * d * d + 4 * cached * cached * d
        cum_c, cum_r = cum_c + s["flops_cached"], cum_r + s["flops_recompute"]
        assert (s["cum_flops_cached"], s["cum_flops_recompute"]) == (cum_c, cum_r)
        assert s["max_diff"] >= 0  # max |cached row - full row|: rounding only
        assert_close(s["max_diff"], 0.0, dtype=dtype, reduction=d, scale=np.abs(full.output[t]).max())


def test_kv_list_is_the_trace_the_panel_steps_through(capsys):
    doc = json.loads(dump(capsys, "--preset", "course-lab3", "--kv", "--positional"))
    trace = run_kv_cache(AttentionConfig(positional=True))
    assert doc["kv"] == [s.to_dict() for s in trace.steps]
    assert [s["token"] for s in doc["kv"]] == ["나는", "학교에", "버스로", "갔다"]


def test_no_kv_without_the_flag(capsys):
    assert "kv" not in json.loads(dump(capsys, "--preset", "course-lab3"))


def test_text_kv_table(capsys):
    lines = dump(capsys, "--preset", "course-lab3", "--kv", "--format", "text").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("KV cache:"))
    rows = [line.split() for line in lines[start + 1:start + 5]]
    assert [r[1] for r in rows] == ["나는", "학교에", "버스로", "갔다"]
    assert [int(r[3]) for r in rows] == [2 * 2 * t * 4 * 8 for t in (1, 2, 3, 4)]
