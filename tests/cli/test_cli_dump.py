"""`python -m explorer dump` as a user runs it: a subprocess, its stdout, stderr and exit code."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.core import AttentionConfig, run_kv_cache
from numeric import assert_close

ROOT = Path(__file__).resolve().parents[2]

# The course's printed tables (see test_course_lab3.py), as a user would read them.
COURSE_ROWS = [
    ["나는", "0.13", "0.04", "0.57", "0.26"],
    ["학교에", "0.12", "0.69", "0.01", "0.18"],
    ["버스로", "0.16", "0.71", "0.02", "0.11"],
    ["갔다", "0.08", "0.80", "0.01", "0.11"],
    ["나는", "0.05", "0.89", "0.03", "0.03"],
    ["학교에", "0.06", "0.49", "0.10", "0.34"],
    ["버스로", "0.56", "0.01", "0.34", "0.10"],
    ["갔다", "0.22", "0.09", "0.46", "0.22"],
]


def run_cli(*args, timeout=120):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout)


def all_floats(value):
    if isinstance(value, list):
        return all(all_floats(v) for v in value)
    return type(value) is float


def test_json_dump_of_the_course_preset():
    proc = run_cli("dump", "--preset", "course-lab3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    doc = json.loads(proc.stdout)
    assert {"config", "tokens", "weights", "output", "param_count", "stats", "device"} <= set(doc)
    assert doc["tokens"] == ["나는", "학교에", "버스로", "갔다"]
    assert doc["config"]["d_model"] == 8 and doc["config"]["n_heads"] == 2
    weights, output = doc["weights"], doc["output"]
    assert len(weights) == 2 and all(len(h) == 4 and all(len(r) == 4 for r in h) for h in weights)
    assert len(output) == 4 and all(len(r) == 8 for r in output)
    assert all_floats(weights) and all_floats(output)
    printed = [[f"{w:.2f}" for w in row] for head in weights for row in head]
    assert printed == [row[1:] for row in COURSE_ROWS]
    assert doc["param_count"] == 256
    assert doc["device"] == "numpy/cpu"
    assert doc["stats"]["argmax"] == [[2, 1, 1, 1], [1, 1, 0, 2]]
    assert "kv" not in doc


def test_text_dump_contains_the_course_tables():
    proc = run_cli("dump", "--format", "text")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    table_rows = [r for r in rows if len(r) == 5 and r[0] in {"나는", "학교에", "버스로", "갔다"}]
    assert table_rows == COURSE_ROWS
    assert "256" in proc.stdout
    assert "나는→버스로, 학교에→학교에, 버스로→학교에, 갔다→학교에" in proc.stdout
    assert "나는→학교에, 학교에→학교에, 버스로→나는, 갔다→버스로" in proc.stdout


def test_kv_dump_adds_the_step_list():
    proc = run_cli("dump", "--kv", "--tokens", "a b c d e", "--d-model", "12", "--heads", "3")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    steps = doc["kv"]
    assert [s["step"] for s in steps] == [0, 1, 2, 3, 4]
    assert [s["cached"] for s in steps] == [1, 2, 3, 4, 5]
    d = 12
    full = run_kv_cache(AttentionConfig.from_dict(doc["config"])).full  # the pass each row is checked against
    for t, s in enumerate(steps):
        assert {"step", "cached", "cache_bytes", "flops_cached", "flops_recompute",
                "max_diff"} <= set(s)
        assert s["cache_bytes"] == 2 * (t + 1) * d * 8
        assert s["flops_cached"] == 8 * d * d + 4 * (t + 1) * d
        assert s["flops_recompute"] == 8 * (t + 1) * d * d + 4 * (t + 1) ** 2 * d
        assert type(s["max_diff"]) is float  # max |cached row - full row|: rounding only
        assert_close(s["max_diff"], 0.0, dtype="float64", reduction=d,
                     scale=np.abs(full.output[t]).max())


def test_text_kv_dump():
    proc = run_cli("dump", "--format", "text", "--kv")
    assert proc.returncode == 0, proc.stderr
    assert "KV cache" in proc.stdout


def test_options_reach_the_config():
    proc = run_cli("dump", "--tokens", "a b c", "--d-model", "6", "--heads", "3", "--seed", "4",
                   "--no-scale", "--causal", "--pad", "2", "--positional", "--backend", "torch",
                   "--dtype", "float32")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    config = doc["config"]
    assert config["tokens"] == ["a", "b", "c"] and config["padding"] == [2]
    assert (config["d_model"], config["n_heads"], config["seed"]) == (6, 3, 4)
    assert not config["scaled"] and config["causal"] and config["positional"]
    assert doc["device"] == "torch/cpu" and config["dtype"] == "float32"
    assert all(row[2] == 0.0 for head in doc["weights"] for row in head)  # padded key
    assert all(row[1] == 0.0 for head in doc["weights"] for row in head[:1])  # causal


def test_init_option():
    plain = run_cli("dump")
    assert plain.returncode == 0, plain.stderr
    course = json.loads(plain.stdout)
    unit = run_cli("dump", "--init", "unit")
    assert unit.returncode == 0, unit.stderr
    doc = json.loads(unit.stdout)
    assert doc["config"]["init"] == "unit" and doc["weights"] != course["weights"]


BAD_ARGS = [
    ["dump", "--init", "xavier"],
    ["dump", "--bogus"],
    ["dump", "--heads", "3", "--d-model", "8"],
    ["dump", "--pad", "99"],
    ["dump", "--seed", "-1"],
    ["dump", "--d-model", "abc"],
    ["dump", "--tokens", ""],
    ["dump", "--backend", "jax"],
    ["dump", "--preset", "nope"],
    ["nonsense-command"],
]


@pytest.mark.parametrize("args", BAD_ARGS, ids=" ".join)
def test_bad_arguments_give_one_line_and_exit_code_2(args):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "error" in proc.stderr and "Traceback" not in proc.stderr


def test_cuda_where_there_is_none_gives_one_line_and_exit_code_2():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    proc = run_cli("dump", "--device", "cuda")
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "CUDA" in proc.stderr


def test_closed_pipe_is_not_a_traceback():
    """`dump | head -c 10`: the reader leaves early; output far beyond a pipe buffer."""
    args = [sys.executable, "-m", "explorer", "dump", "--tokens", " ".join(["w"] * 200),
            "--d-model", "64", "--heads", "4", "--kv"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = proc.stdout.read(10)
    proc.stdout.close()
    stderr = proc.stderr.read().decode("utf-8", "replace")
    proc.wait(timeout=120)
    assert head == b'{"config":'
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert stderr == ""


def test_closed_pipe_in_a_shell():
    if sys.platform == "win32":
        pytest.skip("POSIX shell pipeline")
    proc = subprocess.run(f'"{sys.executable}" -m explorer dump | head -c 10', shell=True,
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.stdout == '{"config":'
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_text_dump_in_korean_and_english():
    ko = run_cli("dump", "--preset", "course-lab3", "--format", "text", "--lang", "ko")
    assert ko.returncode == 0, ko.stderr
    assert "헤드 0 가중치 (행 = 쿼리, 열 = 키):" in ko.stdout and "가장 많이 참고: " in ko.stdout
    assert "weights (rows" not in ko.stdout
    en = run_cli("dump", "--preset", "course-lab3", "--format", "text", "--lang", "en")
    assert en.returncode == 0, en.stderr
    assert "head 0 weights (rows = query, columns = key):" in en.stdout and "헤드" not in en.stdout
    default = run_cli("dump", "--preset", "course-lab3", "--format", "text")
    assert default.returncode == 0, default.stderr
    assert default.stdout.splitlines()[5:] == en.stdout.splitlines()[5:]  # English by default
    # the numbers are the course's in either language
    for row in COURSE_ROWS[:4]:
        assert any(line.split() == row for line in ko.stdout.splitlines())


@pytest.mark.parametrize("value", ["fr", "KO", ""])
def test_bad_lang_is_one_line_exit_2(value):
    proc = run_cli("dump", "--format", "text", "--lang", value)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--lang" in proc.stderr and proc.stdout == ""
