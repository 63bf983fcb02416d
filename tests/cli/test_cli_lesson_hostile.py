"""Hostile lesson files on the command line (issue 21): `lesson --check`, `--lesson` and
`export --lesson` refuse a FIFO or a device at once, report values of the wrong kind one line
each with exit 2, name a step that cannot be shown instead of waiting for it, and never write
an SVG that is not well-formed XML."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from explorer import cli

ROOT = Path(__file__).resolve().parents[2]
HEAD = '[lesson]\ntitle.en = "T"\ntitle.ko = "T"\n\n'
STEP = '[[step]]\ntext.en = "x"\ntext.ko = "y"\n'  # after HEAD: lines 5-7
QUICK_S = 30  # "at once": far below the 120 s a step used to wait, far above a slow start-up


def run(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_child(tmp_path, *args, memory: int | None = None):
    """The CLI in a child process (a blocked read must not hang the tests): (code, stderr)."""
    prelude = ""
    if memory is not None:  # the old reader read /dev/zero until memory was gone
        prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}));"
    code = prelude + "import sys; from explorer import cli; sys.exit(cli.main(sys.argv[1:]))"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=QUICK_S)
    return proc.returncode, proc.stderr


def write(tmp_path, text: str, name: str = "hostile.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attention-explorer: error: "), err[-2000:]
    return lines[0]


# ----- rows 2 and 2b: FIFOs and devices ---------------------------------------------------------
COMMANDS = {
    "lesson --check": lambda path, out: ["lesson", "--check", path],
    "--lesson": lambda path, out: ["--lesson", path],
    "export --lesson": lambda path, out: ["export", "--lesson", path, "--out", out],
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_as_lesson_file_is_refused_at_once(tmp_path, command):
    fifo = tmp_path / "lesson.toml"
    os.mkfifo(fifo)
    out = tmp_path / "new" / "sub"
    code, err = run_child(tmp_path, *COMMANDS[command](str(fifo), str(out)))
    assert code == 2
    assert one_error_line(err) == (f"attention-explorer: error: {fifo}:1: cannot read the file: "
                                   f"{fifo} is not a regular file (a FIFO)")
    assert not (tmp_path / "new").exists()  # export --lesson leaves nothing behind


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("command", COMMANDS)
def test_dev_zero_as_lesson_file_is_refused_at_once(tmp_path, command):
    code, err = run_child(tmp_path, *COMMANDS[command]("/dev/zero", str(tmp_path / "out")),
                          memory=4 * 2**30)
    assert code == 2 and "/dev/zero is not a regular file (a device)" in one_error_line(err)


# ----- row 5: values of the wrong kind ------------------------------------------------------------
@pytest.mark.parametrize("extra, message", [
    ("preset = []", "step 1: unknown preset []"),
    ("model = { name = 'smollm2-135m' }", "step 1: unknown model {'name': 'smollm2-135m'}"),
    ("prune_heads = " + "[" * 1000 + "]" * 1000, "values nested more than 8 deep"),
    ("focus_head = " + "9" * 5000, "a number or bare key longer than 100 characters"),
    ("config.tokens = { a = 1 }", "config.tokens must be a sentence or a list of words"),
])
def test_a_wrong_kind_is_one_line_with_its_line_number_and_exit_2(capsys, tmp_path, extra, message):
    path = write(tmp_path, HEAD + STEP + extra + "\n")
    code, out, err = run(capsys, "lesson", "--check", str(path))
    assert code == 2 and out == ""
    line = one_error_line(err)  # (a traceback was several lines, and exit 1)
    assert line.startswith(f"attention-explorer: error: {path}:8: ") and message in line


def test_every_problem_of_a_file_is_one_line(capsys, tmp_path):
    path = write(tmp_path, HEAD + STEP + "preset = []\nmodel = {a = 1}\n" + STEP + "tab = [1]\n")
    code, out, err = run(capsys, "lesson", "--check", str(path))
    lines = err.strip().splitlines()
    assert code == 2 and [line.split(": ")[2].split(":")[-1] for line in lines] == ["8", "9", "13"]


def test_30000_steps_are_checked_quickly(capsys, tmp_path):
    path = write(tmp_path, HEAD + "".join('[[step]]\ntext={en="a",ko="b"}\n' for _ in range(30_000)))
    start = time.perf_counter()
    code, out, err = run(capsys, "lesson", "--check", str(path))
    assert code == 0 and out.strip() == f"{path}: ok (30000 steps)"
    assert time.perf_counter() - start < QUICK_S  # was 145 s: the line finder was quadratic


# ----- row 10: a step the window cannot show is named, not waited for ---------------------------
KV_ON_A_DECODER = HEAD + STEP + 'model = "smollm2-135m"\ntab = "kv"\nkv_step = 2\n'


def test_check_names_the_kv_step_a_pretrained_model_cannot_take(capsys, tmp_path):
    path = write(tmp_path, KV_ON_A_DECODER)
    code, out, err = run(capsys, "lesson", "--check", str(path))
    assert code == 2 and one_error_line(err).endswith(
        f"{path}:10: step 1: kv_step is for the random model's KV cache, but this step shows "
        "'smollm2-135m', which steps its own sentence: leave kv_step out")


def test_export_refuses_that_step_at_once_and_leaves_nothing(capsys, tmp_path):
    path = write(tmp_path, KV_ON_A_DECODER)
    out_dir = tmp_path / "new" / "sub"
    start = time.perf_counter()
    code, out, err = run(capsys, "export", "--lesson", str(path), "--out", str(out_dir))
    assert code == 2 and "step 1: kv_step is for the random model" in one_error_line(err)
    assert time.perf_counter() - start < QUICK_S and not (tmp_path / "new").exists()


def test_export_names_a_step_whose_model_is_not_installed(capsys, tmp_path, monkeypatch):
    from explorer.core import learned
    from explorer.core.learned import ModelNotInstalledError
    monkeypatch.setattr(learned, "install_problem", lambda spec: ModelNotInstalledError(
        f"model {spec.name} is not installed: pip install it"))
    path = write(tmp_path, HEAD + STEP + STEP + 'id = "decoder"\nmodel = "smollm2-135m"\n')
    start = time.perf_counter()
    code, out, err = run(capsys, "export", "--lesson", str(path), "--out", str(tmp_path / "out"))
    assert code == 2 and one_error_line(err) == (
        "attention-explorer: error: step 2 (decoder) shows smollm2-135m, which cannot be loaded "
        "here: model smollm2-135m is not installed: pip install it")
    assert time.perf_counter() - start < QUICK_S and not (tmp_path / "out").exists()


# ----- row 11: SVG is always well-formed XML ------------------------------------------------------
@pytest.mark.parametrize("escape", ["\\u0000", "\\u001b"])
@pytest.mark.parametrize("where", ["title.en", "text.en"])
def test_export_svg_refuses_a_control_character_in_a_title_or_text(capsys, tmp_path, escape, where):
    old = 'title.en = "T"' if where == "title.en" else 'text.en = "x"'
    path = write(tmp_path, (HEAD + STEP).replace(old, old[:-1] + f'{escape}x"'))
    out_dir = tmp_path / "slides"
    code, out, err = run(capsys, "export", "--lesson", str(path), "--format", "svg",
                         "--out", str(out_dir))
    assert code == 2 and "which cannot be shown" in one_error_line(err)
    assert not out_dir.exists()


def test_export_svg_of_markup_in_texts_is_well_formed(capsys, tmp_path, qapp):
    markup = "<a href='https://example.com'>Click</a> & <img src=\\\"/tmp/x.png\\\"> ]]>"
    path = write(tmp_path, HEAD.replace('title.en = "T"', f'title.en = "{markup}"')
                 + STEP.replace('text.en = "x"', f'text.en = "{markup}"')
                 + 'config.tokens = ["<b>", "&amp;", "]]>"]\n')
    out_dir = tmp_path / "slides"
    code, out, err = run(capsys, "export", "--lesson", str(path), "--format", "svg",
                         "--out", str(out_dir))
    assert code == 0, err
    (svg,) = out_dir.iterdir()
    root = ET.parse(svg).getroot()  # raises on a document that is not well-formed
    title = root.find("{http://www.w3.org/2000/svg}title").text
    assert title.startswith("<a href='https://example.com'>Click</a> & <img")


def test_render_svg_replaces_characters_xml_forbids(qapp):
    """Whatever text a widget or a title holds (a lesson's, a token's, a model's sentence), the
    SVG parses: QSvgGenerator writes NUL and ESC as they are."""
    from PySide6.QtWidgets import QLabel

    from explorer.gui.export.render import render_svg
    label = QLabel("tok\x1bx\x00y <b>&amp;")
    label.resize(200, 50)
    data = render_svg(label, "T\x00i<t>&le\x1b", "d\x1b\x00esc")
    root = ET.fromstring(data)
    assert root.find("{http://www.w3.org/2000/svg}title").text == "T\ufffdi<t>&le\ufffd"
    label.deleteLater()
