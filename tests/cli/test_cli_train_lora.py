"""`attention-explorer train --base FILE --lora-rank R`: a LoRA fine-tune of a saved model.

The issue's check: `train --base … --lora-rank 2` trains with a trainable share below 50 % and
the base file unchanged (its bytes before and after); the JSON's keys; the adapter folder;
bad options are one line with exit 2 (a missing or hostile base file too), an unwritable
--adapter-out exit 1 as --out is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

from explorer.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["train", "--steps", "20", "--log-every", "5", "--batch", "8", "--d-model", "16", "--heads", "2"]
LORA = ["--steps", "30", "--log-every", "10"]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=180)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    path = tmp_path_factory.mktemp("base") / "tiny.safetensors"
    assert main([*SMALL, "--out", str(path)]) == 0
    return path


def test_lora_rank_2_trains_under_half_the_parameters_and_leaves_the_base_file_alone(base, capsys):
    before = base.read_bytes()
    capsys.readouterr()
    assert main(["train", "--base", str(base), "--lora-rank", "2", *LORA, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert base.read_bytes() == before  # the base file, byte for byte
    assert result["trainable_parameters"] / result["total_parameters"] < 0.5
    assert result["trainable_parameters"] == 2 * 2 * 2 * 2 * 16  # layers · (q, v) · r · 2d
    assert result["total_parameters"] == result["full_fine_tune_parameters"] + result["trainable_parameters"]
    assert result["lora"] == {"rank": 2, "alpha": 2.0, "scale": 1.0, "targets": ["q", "v"],
                              "lr": 0.01, "seed": 0}
    assert result["base_loss"]["before"] == result["base_loss"]["after"]  # the frozen base, unchanged
    assert result["final_loss"] == result["loss"][-1] < result["loss"][0] == result["base_loss"]["before"]
    assert result["steps"] == [0, 10, 20, 30] and result["config"]["task"] == "previous-token"
    assert result["base"]["task"] == "induction" and result["base"]["steps_trained"] == 20
    assert result["full"] is None and result["out"] is None


def test_adapter_out_and_compare_full(base, tmp_path, capsys):
    out = tmp_path / "made" / "adapter"
    assert main(["train", "--base", str(base), "--lora-rank", "3", "--lora-alpha", "6", "--lora-targets",
                 "k,o", "--task", "reverse", "--compare-full", "--adapter-out", str(out), *LORA]) == 0
    text = capsys.readouterr().out
    assert "full fine-tune on the same batches" in text and "saved the adapter" in text
    config = json.loads((out / "adapter_config.json").read_text())
    assert config["r"] == 3 and config["lora_alpha"] == 6 and config["target_modules"] == ["qkv", "out"]
    assert config["base_model_name_or_path"] == "tiny.safetensors"
    assert (out / "adapter_model.safetensors").is_file()
    capsys.readouterr()
    assert main(["train", "--base", str(base), "--lora-rank", "2", "--adapter-out", str(out), *LORA]) == 1
    assert "holds an adapter already; add --force" in capsys.readouterr().err
    assert main(["train", "--base", str(base), "--lora-rank", "2", "--adapter-out", str(out), "--force",
                 *LORA, "--json"]) == 0
    assert json.loads((out / "adapter_config.json").read_text())["r"] == 2


@pytest.mark.parametrize("args, message", [
    (["--lora-rank", "0"], "LoRA rank must be a whole number from 1 to d_model (16), got 0"),
    (["--lora-rank", "17"], "from 1 to d_model (16), got 17"),
    (["--lora-rank", "2", "--lora-targets", "q,x"], "unknown LoRA target 'x'"),
    (["--lora-rank", "2", "--lora-alpha", "-2"], "LoRA alpha must be a number above 0"),
    (["--lora-rank", "2", "--d-model", "32"], "--d-model does not go with --base"),
    (["--lora-rank", "2", "--out", "x.safetensors"], "--out does not go with --base"),
    (["--lora-rank", "2", "--task", "sort", "--lr", "3"], "learning rate must be a number in (0, 1]"),
])
def test_bad_lora_options_are_one_line_and_exit_2(base, args, message, capsys):
    assert main(["train", "--base", str(base), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize("args, message", [
    (["--lora-rank", "2"], "--lora-rank needs --base"),
    (["--lora-targets", "q"], "need --base FILE.safetensors and --lora-rank R"),
    (["--compare-full"], "need --base"),
])
def test_lora_options_without_a_base_are_one_line(args, message, capsys):
    assert main(["train", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_missing_or_hostile_base_is_one_line_exit_2(tmp_path):
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x00" * 7)
    for path, message in ((tmp_path / "nope.safetensors", "does not exist"),
                          (fifo, "not a regular file (a FIFO)"),
                          (junk, "not a safetensors file")):
        proc = cli("train", "--base", str(path), "--lora-rank", "2")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and message in proc.stderr and proc.stdout == ""


def test_adapter_out_over_a_fifo_is_refused_before_training(base, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main(["train", "--base", str(base), "--lora-rank", "2", "--adapter-out", str(fifo), "--force"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a folder" in err
    assert fifo.is_fifo()
