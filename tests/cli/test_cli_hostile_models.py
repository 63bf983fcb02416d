"""`train --out` and `dump --model` with hostile arguments (issue 21, rows 3 and 9, smaller rows).

--out never replaces anything but a regular file (a FIFO, a symlink, a device: even with --force),
the model's mode follows the umask, an unwritable folder is refused before training; undecodable
--text and an empty --model or --out are one line and exit 2; full-width digits are refused.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["train", "--steps", "4", "--log-every", "2", "--batch", "4", "--d-model", "8", "--heads", "2"]


def cli(*args, umask: int | None = None):
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=ROOT, capture_output=True,
                          timeout=180, preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def one_line(proc) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert err.count("\n") == 1, err
    return err


@pytest.fixture
def no_training(monkeypatch):
    """Training that fails the test if it starts (a refusal must come before it)."""
    from explorer.core import training

    class NeverTrains:
        def __init__(self, *args, **kwargs):
            raise AssertionError("training started before the --out check")

    monkeypatch.setattr(training, "Trainer", NeverTrains)


def _lstat(path):
    info = os.lstat(path)
    return stat.S_IFMT(info.st_mode), (os.readlink(path) if stat.S_ISLNK(info.st_mode) else None)


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "out")
    return tmp_path / "out"


def _symlink(tmp_path):
    (tmp_path / "real").write_bytes(b"keep me")
    (tmp_path / "out").symlink_to(tmp_path / "real")
    return tmp_path / "out"


def _device(tmp_path):
    """A character device node like /dev/null (1, 3) inside tmp_path; the real one is never touched."""
    try:
        os.mknod(tmp_path / "out", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return tmp_path / "out"


@pytest.mark.parametrize("make, kind", [(_fifo, "a FIFO"), (_symlink, "a symbolic link"), (_device, "a device")])
def test_out_force_never_replaces_a_fifo_a_symlink_or_a_device(tmp_path, no_training, capsys, make, kind):
    pytest.importorskip("safetensors")
    out = make(tmp_path)
    before, names = _lstat(out), sorted(os.listdir(tmp_path))
    assert main([*SMALL, "--out", str(out), "--force"]) == 1
    err = capsys.readouterr().err
    assert err == f"attention-explorer: error: {out} is not a regular file ({kind}); it is never replaced\n"
    assert _lstat(out) == before and sorted(os.listdir(tmp_path)) == names
    if make is _symlink:
        assert (tmp_path / "real").read_bytes() == b"keep me"


def test_the_saved_model_follows_the_umask(tmp_path):
    pytest.importorskip("safetensors")
    out = tmp_path / "m.safetensors"
    proc = cli(*SMALL, "--out", str(out), umask=0o022)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644  # was always 0600
    from explorer.core.training import load_model
    assert load_model(out)[2] == 4


def test_an_unwritable_folder_is_refused_before_training(no_training, capsys):
    """/proc/self refuses new files even for root: a folder that exists but cannot be written."""
    pytest.importorskip("safetensors")
    assert main([*SMALL, "--out", "/proc/self/m.safetensors"]) == 1
    assert "cannot write to /proc/self" in capsys.readouterr().err


def test_an_existing_file_without_force_is_still_refused_before_training(tmp_path, no_training, capsys):
    pytest.importorskip("safetensors")
    out = tmp_path / "m.safetensors"
    out.write_bytes(b"keep me")
    assert main([*SMALL, "--out", str(out)]) == 1
    assert "exists; add --force" in capsys.readouterr().err and out.read_bytes() == b"keep me"


@pytest.mark.parametrize("args, message", [
    (["--out", ""], "--out needs a file name"),
    (["--out", "  "], "--out needs a file name"),
    (["--steps", "５"], "argument --steps: invalid int value: '５'"),
    (["--seed", "٣"], "argument --seed: invalid int value: '٣'"),
    (["--threads", "²"], "argument --threads: invalid int value: '²'"),
    (["--lr", "１e-3"], "argument --lr: invalid float value: '１e-3'"),
    (["--steps", "9" * 5000], "argument --steps: invalid int value"),
])
def test_train_options_refused_in_one_line_exit_2(args, message):
    proc = cli("train", *args)
    assert proc.returncode == 2 and message in one_line(proc) and proc.stdout == b""


def test_dump_model_with_undecodable_text_is_one_line_exit_2():
    """`--text "$(printf 'caf\\xe9')"` in a UTF-8 locale: the byte reaches Python as a lone
    surrogate, which the tokenizer refused with a TypeError traceback. (Refused before the model
    loads: the model need not be installed.)"""
    proc = cli("dump", "--model", "smollm2-135m", "--text", os.fsdecode(b"caf\xe9"))
    assert proc.returncode == 2
    assert "--text is not valid UTF-8 (byte 0xe9 at character 3)" in one_line(proc)
    assert proc.stdout == b""


def test_dump_with_an_empty_model_name_is_one_line_exit_2():
    proc = cli("dump", "--model", "", "--text", "hello")
    assert proc.returncode == 2 and "unknown model ''" in one_line(proc) and proc.stdout == b""


@pytest.mark.parametrize("option", ["--layer", "--random-tokens", "--generate"])
def test_dump_model_number_options_refuse_other_digits(option):
    proc = cli("dump", "--model", "smollm2-135m", option, "３")
    assert proc.returncode == 2 and f"argument {option}: the value must be a whole number" in one_line(proc)
