"""`attention-explorer dump / export` with hostile values, names and output streams.

Every bad value is one line on stderr with exit 2; a stream or file problem is one line with
exit 1 and nothing left behind; files that were written are never reported as a failure.
"""

import os
import signal
import subprocess
import sys
import unicodedata
import xml.dom.minidom
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer import cli
from explorer.core import AttentionConfig
from explorer.core.files import output_files as export_files
from explorer.core.files.output_files import ExportError, check_name
from explorer.export.naming import FigureSpec, default_name
from hostile_inputs import SOME_CONTROLS, SOME_DIGITS

ROOT = Path(__file__).resolve().parents[2]


def run(*args, stdout=subprocess.PIPE, shell_suffix=""):
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    if shell_suffix:
        command = " ".join([f'"{sys.executable}"', "-m", "explorer", *args]) + shell_suffix
        return subprocess.run(command, shell=True, cwd=ROOT, env=env, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    return subprocess.run([sys.executable, "-m", "explorer", *args], cwd=ROOT, env=env,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)


def in_process(capsys, *argv):
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_usage_error(code, err):
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("attention-explorer") and len(err) < 400
    assert "Traceback" not in err


@pytest.mark.parametrize("digit", SOME_DIGITS)
@pytest.mark.parametrize("where", ["--what=head:{}", "--what=kv:{}", "--d-model={}", "--heads={}",
                                   "--seed={}", "--pad={}", "--width={}"])
def test_any_non_ascii_digit_in_any_number_option_is_one_line_exit_2(capsys, tmp_path, digit, where):
    code, _, err = in_process(capsys, "export", "--out", str(tmp_path), where.format("1" + digit))
    assert_one_line_usage_error(code, err)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("digits", [20, 4301, 5000, 50_000])
@pytest.mark.parametrize("where", ["--what=kv:{}", "--what=head:{}", "--seed={}", "--d-model={}",
                                   "--width={}"])
def test_any_over_long_number_is_one_short_line_exit_2(capsys, tmp_path, digits, where):
    code, _, err = in_process(capsys, "export", "--out", str(tmp_path), where.format("9" * digits))
    assert_one_line_usage_error(code, err)


@pytest.mark.parametrize("device", ["cpu\n", "cpu ", "cuda:٣", "cuda:" + "9" * 5000, "cpu\x00x"])
def test_a_device_with_anything_around_it_is_refused_as_unknown(capsys, tmp_path, device):
    code, _, err = in_process(capsys, "dump", "--backend", "torch", "--device", device)
    assert_one_line_usage_error(code, err)
    assert "unknown device" in err and "CUDA" not in err


@pytest.mark.parametrize("ch", SOME_CONTROLS)
def test_any_control_character_in_a_token_is_refused_before_any_file(capsys, tmp_path, ch):
    code, _, err = in_process(capsys, "export", "--out", str(tmp_path), "--format", "svg",
                              "--tokens", f"a{ch}b cd")
    assert_one_line_usage_error(code, err)
    assert "U+" in err and not any(tmp_path.iterdir())


def test_the_svg_of_a_sentence_full_of_xml_specials_is_valid_xml(tmp_path):
    done = run("export", "--out", str(tmp_path), "--format", "svg", "--what", "all", "--title",
               "--tokens", "<a> &amp; \"q\" 'p' ]]> <!-- 😀 \u200d é\u0301 ﷽")
    assert done.returncode == 0, done.stderr
    written = sorted(tmp_path.glob("*.svg"))
    assert written == sorted(Path(line) for line in done.stdout.splitlines()) and written
    for path in written:
        xml.dom.minidom.parse(str(path))  # raises on invalid XML


@pytest.mark.parametrize("value", ["1e-300", "0", "-1", "nan", "inf", "0.1", "1e309", "１.５",
                                   "1_0", "9" * 5000])
def test_a_scale_outside_the_stated_range_is_refused(capsys, tmp_path, value):
    code, _, err = in_process(capsys, "export", "--out", str(tmp_path), f"--scale={value}")
    assert_one_line_usage_error(code, err)


@pytest.mark.parametrize("extra", [["--background", "dark"], ["--title"],
                                   ["--background", "white", "--title"]])
def test_window_only_options_are_refused_not_ignored(capsys, tmp_path, extra):
    code, _, err = in_process(capsys, "export", "--out", str(tmp_path), "--what", "window", *extra)
    assert_one_line_usage_error(code, err)
    assert "do not apply to --what window" in err


@pytest.mark.parametrize("name", [".png", "..png", ".hidden.png", " x.png", "x.png ", "a\x01.png",
                                  "a\u202egnp.png", "a\u200b.png", "a\xad.png", "a\udc80.png", "a/b.png", "\x7f.png",
                                  "x" * 300 + ".png", ""])
def test_a_bad_name_is_refused(capsys, tmp_path, name):
    code, _, err = in_process(capsys, "export", "--out", str(tmp_path), "--name", name)
    assert_one_line_usage_error(code, err)
    assert not any(tmp_path.iterdir())


@given(st.text(min_size=1, max_size=30))
def test_check_name_accepts_only_visible_plain_names(name):
    try:
        check_name(name)
    except ExportError:
        return
    assert not name.startswith(".") and name == name.strip() and "/" not in name
    assert not any(unicodedata.category(c) in ("Cc", "Cs", "Cf") for c in name)


@given(st.integers(1, 1024).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.integers(0, n - 1), max_size=n))),
    st.sampled_from(["png", "svg", "csv"]), st.sampled_from(["heads", "pe", "kv", "head"]))
def test_every_default_name_is_one_the_file_system_takes(n_and_pad, fmt, kind):
    n, pad = n_and_pad
    config = AttentionConfig(tokens=("t",) * n, padding=frozenset(pad))
    name = default_name(FigureSpec(kind, 0 if kind in ("head", "kv") else None), config, fmt)
    assert check_name(name) == name and len(name.encode()) <= 200 and name.endswith("." + fmt)


def test_two_hundred_tokens_half_padded_export_under_their_default_names(capsys, tmp_path):
    tokens = " ".join(f"w{i}" for i in range(200))
    pads = [f"--pad={i}" for i in range(0, 200, 2)]
    code, out, err = in_process(capsys, "export", "--out", str(tmp_path), "--format", "csv",
                                "--tokens", tokens, *pads)
    assert code == 0, err
    other = [f"--pad={i}" for i in range(1, 200, 2)]
    code, out2, err = in_process(capsys, "export", "--out", str(tmp_path), "--format", "csv",
                                 "--tokens", tokens, *other)
    assert code == 0, err
    assert out != out2 and len(list(tmp_path.iterdir())) == 2  # distinct settings, distinct names


def test_dump_into_a_full_disk_is_one_line_exit_1():
    with open("/dev/full", "w") as full:
        done = run("dump", stdout=full)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_dump_with_stdout_closed_is_one_line_exit_1(fmt):
    done = run("dump", "--format", fmt, shell_suffix=" >&-")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_export_into_a_full_stdout_keeps_the_files_and_exits_0(tmp_path):
    with open("/dev/full", "w") as full:
        done = run("export", "--out", str(tmp_path), "--format", "csv", "--force", stdout=full)
    assert done.returncode == 0, done.stderr
    assert [p.suffix for p in tmp_path.iterdir()] == [".csv"]
    assert "could not list them" in done.stderr and "Traceback" not in done.stderr


def test_export_with_stdout_closed_keeps_the_files_and_exits_0(tmp_path):
    done = run("export", "--out", str(tmp_path), "--format", "csv", shell_suffix=" >&-")
    assert done.returncode == 0, done.stderr
    assert len(list(tmp_path.iterdir())) == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_termination_signal_while_writing_leaves_no_part_file(capsys, tmp_path, monkeypatch,
                                                                signame):
    """`kill` during a large CSV export left a hidden .part file (Ctrl+C was already clean).
    The signal arrives while the file is being flushed to disk, the worst moment."""
    real_fsync, seen = os.fsync, []

    def fsync_then_signal(fd):
        real_fsync(fd)
        seen.extend(p.name for p in tmp_path.iterdir())
        os.kill(os.getpid(), getattr(signal, signame))

    monkeypatch.setattr(export_files.os, "fsync", fsync_then_signal)
    before = signal.getsignal(getattr(signal, signame))
    with pytest.raises(SystemExit):
        cli.main(["export", "--out", str(tmp_path), "--format", "csv", "--what", "all"])
    assert any(name.endswith(".part") for name in seen)  # it really was mid-write
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(getattr(signal, signame)) is before  # handler restored
