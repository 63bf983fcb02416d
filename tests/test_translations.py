"""The shipped catalogue is complete and compiled from its source.

- every message of resources/i18n/attention_explorer_ko.ts is translated (none unfinished);
- pyside6-lupdate over the code finds no text the .ts lacks (a new tr'd string without a
  translation fails here) and no vanished one;
- the shipped .qm is exactly what pyside6-lrelease builds from the .ts now;
- placeholders ({name}, %1) survive translation, so .format()/.replace() never breaks;
- the Qt-free reader (dump --lang) and Qt's translator answer the same.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TS = REPO / "resources" / "i18n" / "attention_explorer_ko.ts"
QM = TS.with_suffix(".qm")
sys.path.insert(0, str(REPO / "tools"))
import update_translations  # noqa: E402


def messages(path: Path) -> list[tuple[str, str, ET.Element]]:
    root = ET.parse(path).getroot()
    return [(c.findtext("name"), m.findtext("source"), m.find("translation"))
            for c in root.iter("context") for m in c.iter("message")]


def tool(name):
    found = update_translations.tool(name)
    if not Path(found).exists() and shutil.which(found) is None:
        pytest.skip(f"{name} not installed")
    return found


def test_every_message_is_translated():
    unfinished = [(c, s) for c, s, t in messages(TS) if t.get("type") or not (t.text or "").strip()]
    assert unfinished == [], "translate these in the .ts, then run tools/update_translations.py"


# translations that leave a field out on purpose (never one that adds a field: format() would fail)
LEAVES_OUT = {("topics.masking", "query {row} ({token}) may only see keys {seen} (causal), and all of them are "
                                 "padding: its weights are all 0 and its output is the zero vector."): ["{seen}"]}


def test_placeholders_survive_translation():
    marks = re.compile(r"%\d|\{[a-z_]*\}")
    wrong = [(c, s, t.text) for c, s, t in messages(TS)
             if sorted(marks.findall(s)) != sorted(marks.findall(t.text or "") + LEAVES_OUT.get((c, s), []))]
    assert wrong == []


def test_the_ts_holds_every_text_of_the_code(tmp_path):
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    subprocess.run([tool("pyside6-lupdate"), *update_translations.LUPDATE_OPTIONS,
                    *update_translations.sources(), "-ts", str(copy)],
                   cwd=REPO, check=True, capture_output=True)
    now = {(c, s) for c, s, _ in messages(copy)}
    shipped = {(c, s) for c, s, _ in messages(TS)}
    assert now - shipped == set(), "new texts: run tools/update_translations.py and translate them"
    assert shipped - now == set(), "texts gone from the code: run tools/update_translations.py"


def test_the_shipped_qm_is_built_from_the_ts(tmp_path):
    built = tmp_path / "built.qm"
    subprocess.run([tool("pyside6-lrelease"), "-silent", str(TS), "-qm", str(built)], check=True)
    assert built.read_bytes() == QM.read_bytes(), "run tools/update_translations.py --release"


def test_qt_and_the_qt_free_reader_agree(qapp):
    from explorer.app.i18n import translate as read_ts
    from explorer.gui.plotting.i18n import install_language, translate
    install_language("ko")
    for context, source, _ in messages(TS)[::7]:
        assert translate(context, source) == read_ts(context, source, "ko")
    install_language("en")
    assert translate("window.main_window", "&File") == "&File"
