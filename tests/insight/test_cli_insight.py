"""`dump --sinks --rollout --value-norms --words --logit-lens` and sampled `--generate`: each adds its
documented JSON key; bad values are one line and exit code 2."""

import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.core.insight import captured_run, value_norms
from numeric import assert_close

TEXT = "the cat sat on the mat and the dog sat"
KEYS = {"--sinks": "sinks", "--rollout": "rollout", "--value-norms": "value_norms", "--words": "words",
        "--logit-lens": "logit_lens"}


def run_cli(capsys, *args):
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's own refusal (OneLineParser: one line, exit 2)
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def dump(capsys, *args):
    code, out, err = run_cli(capsys, "dump", *args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("family", ["bert", "llama"])
def test_each_flag_adds_its_key(tiny_pair, capsys, family):
    folder = tiny_pair(family).folder
    plain = dump(capsys, "--model", folder, "--text", TEXT)
    assert not set(KEYS.values()) & set(plain)
    for flag, key in KEYS.items():
        if flag == "--logit-lens" and family == "bert":
            continue
        doc = dump(capsys, "--model", folder, "--text", TEXT, flag)
        assert set(doc) - set(plain) == {key}, flag
        assert doc["weights"] == plain["weights"]


def test_the_keys_hold_what_the_readme_says(tiny_pair, capsys):
    pair = tiny_pair("llama")
    doc = dump(capsys, "--model", pair.folder, "--text", TEXT, *KEYS)
    layers, heads, n, _ = np.array(doc["weights"]).shape
    assert np.array(doc["rollout"]["weights"]).shape == (layers, n, n)
    assert np.array(doc["sinks"]["first"]).shape == (layers, heads)
    assert np.array(doc["value_norms"]["weights"]).shape == (layers, heads, n, n)
    assert np.array(doc["value_norms"]["disagreement"]).shape == (layers, heads)
    m = len(doc["words"]["words"])
    assert doc["words"]["words"] == TEXT.split() and np.array(doc["words"]["weights"]).shape == (layers, heads, m, m)
    lens = doc["logit_lens"]
    assert len(lens["rows"]) == len(lens["top"]) == layers + 1 and len(lens["top"][0]) == n
    assert lens["final"] == [t["token"] for t in lens["top"][-1]]
    assert [t["token"] for t in doc["next_top5"]][0] == lens["final"][-1]
    # the JSON's norms are the core's, rounded
    run = captured_run(pair.model, pair.model.tokenizer.encode_ids(doc["ids"]))
    assert_close(np.array(doc["value_norms"]["weights"]), value_norms(run.attentions, run.key_norms),
                 dtype="float32", reduction=1, scale=1e3)  # 6 decimals printed: 5e-7 < 16·eps32·1e3


def test_layer_picks_one_layer(tiny_pair, capsys):
    doc = dump(capsys, "--model", tiny_pair("bert").folder, "--text", TEXT, "--layer", "1", "--value-norms",
               "--rollout", "--words")
    heads, n, _ = np.array(doc["weights"]).shape
    assert np.array(doc["value_norms"]["weights"]).shape == (heads, n, n)
    assert np.array(doc["rollout"]["weights"]).shape == (n, n) and doc["rollout"]["flow"]["layer"] == 1
    assert np.array(doc["words"]["weights"]).shape[0] == heads


def test_sampled_generation_is_seeded(tiny_pair, capsys):
    folder = tiny_pair("llama").folder
    args = ("--model", folder, "--text", TEXT, "--generate", "6", "--temperature", "1.5", "--top-k", "20",
            "--top-p", "0.9", "--seed", "3")
    a, b = dump(capsys, *args), dump(capsys, *args)
    assert a["generated_text"] == b["generated_text"]
    sampling = a["sampling"]
    assert (sampling["mode"], sampling["temperature"], sampling["top_k"], sampling["top_p"], sampling["seed"]) == \
        ("sample", 1.5, 20, 0.9, 3)
    assert [s["id"] for s in sampling["steps"]] == [g["id"] for g in a["generated"]]
    assert all(1 <= s["kept"] <= 20 for s in sampling["steps"])
    greedy = dump(capsys, "--model", folder, "--text", TEXT, "--generate", "6")
    assert "sampling" not in greedy
    others = {dump(capsys, *args[:-1], str(seed))["generated_text"] for seed in range(4, 10)}
    assert len(others | {a["generated_text"]}) > 1  # another seed, another text (6 tries)


def test_course_model_keys(capsys):
    doc = dump(capsys, "--preset", "course-lab3", "--sinks", "--rollout", "--value-norms", "--words")
    heads, n = np.array(doc["weights"]).shape[:2]
    assert np.array(doc["value_norms"]["weights"]).shape == (1, heads, n, n)
    assert doc["words"]["words"] == doc["tokens"] and doc["words"]["scheme"] == "pieces"
    np.testing.assert_array_equal(np.array(doc["words"]["weights"])[0], np.round(np.array(doc["weights"]), 6))


@pytest.mark.parametrize("extra, message", [
    (("--generate", "2", "--top-p", "1.5"), "top-p must be above 0 and at most 1, not 1.5"),
    (("--generate", "2", "--top-p", "0"), "top-p must be above 0"),
    (("--generate", "2", "--temperature", "0"), "temperature must be a number above 0, not 0.0"),
    (("--generate", "2", "--temperature", "-1"), "temperature must be a number above 0, not -1.0"),
    (("--generate", "2", "--temperature", "nan"), "temperature must be a number above 0"),
    (("--generate", "2", "--top-k", "0"), "top-k must be a whole number of at least 1, not 0"),
    (("--generate", "2", "--top-k", "x"), "--top-k"),
    (("--temperature", "0.7",), "--temperature applies to --generate K"),
])
def test_bad_values_are_one_line_and_exit_2(tiny_pair, capsys, extra, message):
    code, out, err = run_cli(capsys, "dump", "--model", tiny_pair("llama").folder, "--text", TEXT, *extra)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err


def test_a_model_through_transformers_has_no_value_norms(tmp_path, capsys):
    pytest.importorskip("transformers", reason="the model goes through transformers")
    from checkpoints.conftest import build_checkpoint
    folder = build_checkpoint(tmp_path / "neox", "gpt_neox")
    capsys.readouterr()
    code, out, err = run_cli(capsys, "dump", "--model", folder, "--text", TEXT, "--value-norms")
    ours = [line for line in err.splitlines() if "error:" in line]  # transformers' loading bar aside
    assert code == 2 and len(ours) == 1 and "need the app's own forward" in ours[0], err
    assert "rollout" in dump(capsys, "--model", folder, "--text", TEXT, "--rollout")  # attention alone works


@pytest.mark.parametrize("args, message", [
    (("--model", "ENCODER", "--text", TEXT, "--logit-lens"), "--logit-lens needs a decoder"),
    (("--preset", "course-lab3", "--logit-lens"), "--logit-lens needs a decoder"),
    (("--preset", "course-lab3", "--top-k", "3"), "--top-k needs a decoder"),
])
def test_what_a_model_cannot_give_is_one_line(tiny_pair, capsys, args, message):
    args = [tiny_pair("bert").folder if a == "ENCODER" else a for a in args]
    code, out, err = run_cli(capsys, "dump", *args)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_the_course_dump_with_every_insight_stays_numpy():
    """`dump` loads neither Qt nor torch (docs/architecture.md), these options included."""
    import subprocess
    import sys
    from pathlib import Path
    code = ("import contextlib, io, json, sys\n"
            "from explorer.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['dump', '--sinks', '--rollout', '--words', '--value-norms']) == 0\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
