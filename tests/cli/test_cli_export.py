"""`attention-explorer export`: files named on stdout, no silent overwrite, clear failures."""

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import cli

ROOT = Path(__file__).resolve().parents[2]
LAB3 = ["--preset", "course-lab3"]


def run_cli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "explorer", "export", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def main(capsys, *args):
    code = cli.main(["export", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_subprocess_writes_the_files_it_names(tmp_path):
    done = run_cli(*LAB3, "--what", "all", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    paths = [Path(line) for line in done.stdout.splitlines()]
    assert [p.name for p in paths] == ["heads_d8_h2_seed1.png", "head0_d8_h2_seed1.png",
                                       "head1_d8_h2_seed1.png", "pe_d8_h2_seed1.png",
                                       "kv_step3_d8_h2_seed1.png"]
    assert all(p.is_file() and p.parent == tmp_path for p in paths)
    assert sorted(snapshot(tmp_path)) == sorted(p.name for p in paths)  # nothing else left
    assert done.stderr == ""


def test_subprocess_refuses_to_overwrite_then_force(tmp_path):
    target = tmp_path / "heads_d8_h2_seed1.png"
    target.write_bytes(b"keep me")
    done = run_cli(*LAB3, "--what", "all", "--out", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and str(target) in done.stderr and "--force" in done.stderr
    assert snapshot(tmp_path) == {target.name: b"keep me"}  # nothing written at all
    forced = run_cli(*LAB3, "--out", str(tmp_path), "--force")
    assert forced.returncode == 0 and forced.stdout.strip() == str(target)
    assert target.read_bytes() != b"keep me" and png_size(target)[0] > 100


def test_scale_and_width(capsys, tmp_path):
    for scale in ("1", "2"):
        sub = tmp_path / scale
        sub.mkdir()
        assert main(capsys, *LAB3, "--out", str(sub), "--scale", scale)[0] == 0
    one = png_size(tmp_path / "1" / "heads_d8_h2_seed1.png")
    two = png_size(tmp_path / "2" / "heads_d8_h2_seed1.png")
    assert two == (2 * one[0], 2 * one[1])
    code, out, _ = main(capsys, *LAB3, "--out", str(tmp_path), "--width", "1000")
    assert code == 0
    assert png_size(Path(out.strip())) == (1000, round(one[1] * 1000 / one[0]))


def test_configs_give_different_files(capsys, tmp_path):
    assert main(capsys, *LAB3, "--out", str(tmp_path))[0] == 0
    assert main(capsys, *LAB3, "--seed", "2", "--out", str(tmp_path))[0] == 0
    files = snapshot(tmp_path)
    assert len(files) == 2 and len(set(files.values())) == 2


def test_svg_and_csv(capsys, tmp_path):
    code, out, _ = main(capsys, *LAB3, "--out", str(tmp_path), "--format", "svg", "--what", "head:1")
    assert code == 0 and "학교에" in Path(out.strip()).read_text(encoding="utf-8")
    code, out, _ = main(capsys, *LAB3, "--out", str(tmp_path), "--format", "csv")
    assert code == 0
    lines = Path(out.strip()).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "head,query_index,query,key_index,key,weight" and len(lines) == 1 + 2 * 16


def test_custom_name(capsys, tmp_path):
    code, out, _ = main(capsys, *LAB3, "--out", str(tmp_path), "--name", "slide3")
    assert code == 0 and Path(out.strip()) == tmp_path / "slide3.png"


def test_missing_out_folder_is_created_with_its_parents(capsys, tmp_path):
    out_dir = tmp_path / "figures" / "lab3"
    code, out, err = main(capsys, *LAB3, "--out", str(out_dir))
    assert code == 0 and err == ""
    assert Path(out.strip()).parent == out_dir and Path(out.strip()).is_file()


def test_created_folders_are_removed_when_nothing_is_written(capsys, tmp_path):
    code, out, err = main(capsys, *LAB3, "--out", str(tmp_path / "new" / "deeper"),
                          "--what", "kv:9")
    assert code == 2 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["under_a_file", "below_a_file", "proc"])
def test_bad_folder_exit_1_nothing_written(capsys, tmp_path, where):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    out_dir = {"under_a_file": blocker / "sub", "below_a_file": blocker / "sub" / "deeper",
               "proc": Path("/proc/self")}[where]
    code, out, err = main(capsys, *LAB3, "--out", str(out_dir))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("attention-explorer: error: cannot write")
    assert snapshot(tmp_path) == {"file": b""}


@pytest.mark.parametrize("args", [
    ["--scale", "0"], ["--scale", "abc"], ["--scale", "2", "--width", "800"], ["--width", "5"],
    ["--what", "head:2"], ["--what", "kv:9"], ["--what", "nonsense"], ["--background", "pink"],
    ["--format", "gif"], ["--heads", "3"], ["--name", "a.svg"], ["--name", "a/b.png"],
    ["--what", "all", "--name", "x.png"], ["--what", "window", "--format", "csv"],
    ["--lang", "de"], ["--lang", "KO"],
])
def test_bad_options_exit_2_one_line(capsys, tmp_path, args):
    try:
        code, out, err = main(capsys, *LAB3, "--out", str(tmp_path), *args)
    except SystemExit as exc:  # argparse errors
        code, (out, err) = exc.code, capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and "error" in err
    assert list(tmp_path.iterdir()) == []


def test_missing_out_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["export", *LAB3])
    assert exc.value.code == 2


def test_lang_sets_the_figure_labels(capsys, tmp_path):
    code, out, _ = main(capsys, *LAB3, "--out", str(tmp_path / "ko"), "--format", "svg",
                        "--what", "head:0", "--title", "--lang", "ko")
    assert code == 0
    svg = next((tmp_path / "ko").iterdir()).read_text("utf-8")
    assert "쿼리" in svg and "시드 1" in svg and "나는" in svg and "query" not in svg
    code, out, _ = main(capsys, *LAB3, "--out", str(tmp_path / "en"), "--format", "svg",
                        "--what", "head:0", "--title")
    assert code == 0
    svg = next((tmp_path / "en").iterdir()).read_text("utf-8")
    assert "query" in svg and "seed 1" in svg and "쿼리" not in svg and "나는" in svg
