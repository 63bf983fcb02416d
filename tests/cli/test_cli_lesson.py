"""`attention-explorer lesson --list / --check` and `export --lesson`: one figure per step."""

from __future__ import annotations

import pytest

from explorer import cli

DECK = """\
[lesson]
title.en = "Deck"
title.ko = "덱"

[[step]]
id = "lab3"
preset = "course-lab3"
text.en = "heads"
text.ko = "헤드"

[[step]]
id = "qkv"
topic = "qkv"
text.en = "Q, K, V"
text.ko = "Q, K, V"

[[step]]
id = "cache"
tab = "kv"
kv_step = 3
text.en = "KV cache"
text.ko = "KV 캐시"
"""


def run(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_the_builtin_lessons(capsys):
    code, out, err = run(capsys, "lesson", "--list")
    assert code == 0 and err == ""
    assert [line.split("\t")[0] for line in out.splitlines()] == [
        "attention", "transformer-block", "decoding", "peft", "inside-attention"]


def test_check_good_and_bad_files(capsys, lesson_file):
    good = lesson_file(DECK, name="good.toml")
    bad = lesson_file(DECK.replace('preset = "course-lab3"', 'preset = "x"')
                      .replace('text.ko = "Q, K, V"', ""), name="bad.toml")
    code, out, err = run(capsys, "lesson", "--check", str(good))
    assert code == 0 and out.strip() == f"{good}: ok (3 steps)"
    code, out, err = run(capsys, "lesson", "--check", str(good), str(bad))
    assert code == 2
    problems = err.strip().splitlines()
    assert len(problems) == 2  # one line per problem
    assert f"{bad}:7: step 1: unknown preset 'x'" in problems[0]
    assert f"{bad}:14: step 2: missing text: text.ko" in problems[1]


def test_window_refuses_a_bad_lesson_before_opening(capsys, lesson_file):
    bad = lesson_file(DECK.replace('tab = "kv"', 'tab = "kv2"'), name="bad.toml")
    code, out, err = run(capsys, "--lesson", str(bad))
    assert code == 2 and f"{bad}:19: step 3: unknown tab 'kv2'" in err


def test_export_lesson_writes_one_decodable_figure_per_step(capsys, tmp_path, lesson_file, qapp):
    from PySide6.QtGui import QImage
    deck = lesson_file(DECK, name="deck.toml")
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "export", "--lesson", str(deck), "--out", str(out_dir))
    assert code == 0, err
    names = ["deck_01_lab3.png", "deck_02_qkv.png", "deck_03_cache.png"]
    assert sorted(p.name for p in out_dir.iterdir()) == names
    assert out.split() == [str(out_dir / n) for n in names]
    for name in names:
        image = QImage(str(out_dir / name))
        assert not image.isNull() and image.width() > 300 and image.height() > 200
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
                   for y in range(0, image.height(), 7)}
        assert len(colours) > 20, name  # drawn, not blank


@pytest.mark.parametrize("args, message", [
    (("--lesson", "nope"), "unknown lesson 'nope'"),
    (("--lesson", "attention", "--what", "pe"), "--what cannot be used with --lesson"),
    (("--lesson", "attention", "--d-model", "16"), "--d-model cannot be used with --lesson"),
    (("--lesson", "attention", "--format", "csv"), "use --format png or svg"),
])
def test_export_lesson_refusals_leave_nothing(capsys, tmp_path, args, message):
    out_dir = tmp_path / "new"
    code, out, err = run(capsys, "export", *args, "--out", str(out_dir))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out_dir.exists()


def test_a_deck_is_drawn_at_the_window_size_on_the_bare_offscreen_screen(tmp_path, lesson_file):
    """The offscreen platform's own screen is 800 x 800 (the tests' conftest gives 1920 x 1080):
    the lesson window kept itself that small and every slide came out ~460 px wide."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from PySide6.QtGui import QImage
    deck = lesson_file(DECK, name="deck.toml")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_")}
    env.update(QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path),
               PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    out_dir = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "explorer", "export", "--lesson", str(deck),
                           "--out", str(out_dir)], env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    widths = [QImage(str(p)).width() for p in sorted(out_dir.iterdir())]
    assert len(widths) == 3 and min(widths) > 1000, widths
