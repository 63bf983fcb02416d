"""`attention-explorer train`: bad options in one line (exit 2), file problems (exit 1), --json keys."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["train", "--steps", "12", "--log-every", "4", "--batch", "8", "--d-model", "16", "--heads", "2"]


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (["--steps", "ten"], "argument --steps: invalid int value: 'ten'"),
    (["--task", "copy"], "argument --task: invalid choice: 'copy'"),
    (["--layers", "3"], "layers must be between 1 and 2, got 3"),
    (["--heads", "5"], "d_model (64) must be divisible by heads (5)"),
    (["--lr", "0"], "learning rate must be a number in (0, 1], got 0.0"),
    (["--device", "tpu"], "device must be cpu, cuda or cuda:N, got 'tpu'"),
    (["--threads", "0"], "threads must be between 1 and 256, got 0"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_options_give_one_line_and_exit_2(args, message):
    proc = cli("train", *args)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and message in proc.stderr
    assert proc.stdout == ""


def test_cuda_without_a_gpu_is_one_line_exit_2():
    pytest.importorskip("torch").cuda.is_available() and pytest.skip("this machine has CUDA")
    proc = cli("train", "--device", "cuda", "--steps", "1")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "CUDA" in proc.stderr


def test_json_run_prints_one_object_with_the_curves(tmp_path, capsys):
    pytest.importorskip("safetensors")  # --out; the [models] extra
    out = tmp_path / "m.safetensors"
    proc = cli(*SMALL, "--seed", "3", "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert {"loss", "scores", "switch_step", "seconds", "steps", "accuracy", "train_loss",
            "phase_change_step", "config", "out"} <= set(result)
    assert result["steps"] == [0, 4, 8, 12]
    assert len(result["loss"]) == len(result["scores"]) == 4 and result["train_loss"][0] is None
    assert len(result["scores"][-1]) == 2 and len(result["scores"][-1][0]) == 2  # layers × heads
    assert set(result["scores"][-1][1][0]) == {"previous_token", "induction"}
    assert set(result["switch_step"][0][1]) == {"previous_token", "induction"}
    assert result["config"]["seed"] == 3 and result["seconds"] > 0
    from explorer.core.training import load_model
    assert load_model(out)[1].seed == 3
    assert main([*SMALL, "--seed", "3", "--json"]) == 0  # in this process: the same numbers
    again = json.loads(capsys.readouterr().out)
    assert again["loss"] == result["loss"] and again["scores"] == result["scores"]


def test_without_json_a_short_summary(capsys):
    assert main([*SMALL, "--task", "sort"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("trained sort for 12 steps") and "held-out loss" in out


def test_an_unwritable_out_is_one_line_exit_1_and_leaves_nothing(tmp_path):
    proc = cli(*SMALL, "--out", str(tmp_path / "no" / "m.safetensors"))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "does not exist" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_existing_out_is_kept_without_force(tmp_path, capsys):
    pytest.importorskip("safetensors")
    out = tmp_path / "m.safetensors"
    out.write_bytes(b"keep me")
    assert main([*SMALL, "--out", str(out)]) == 1
    assert "exists; add --force" in capsys.readouterr().err
    assert out.read_bytes() == b"keep me"
    assert main([*SMALL, "--out", str(out), "--force"]) == 0
    from explorer.core.training import load_model
    assert load_model(out)[2] == 12
