"""Refresh the translation catalogue and its compiled form (run after changing UI texts).

    python tools/update_translations.py            # lupdate: new texts into the .ts, then lrelease
    python tools/update_translations.py --release  # only lrelease (.ts -> shipped .qm)

Uses pyside6-lupdate / pyside6-lrelease next to the running Python (the venv's). Translate
the new <message>s of resources/i18n/attention_explorer_ko.ts (Qt Linguist, or by hand:
fill <translation>, drop type="unfinished"), then run with --release and commit both files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
I18N = ROOT / "resources" / "i18n"
LANGUAGES = ("ko",)


def tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else name


MARKS = ("translate(", "QT_TRANSLATE_NOOP(", "tr_label(")
# our helpers lupdate must read like translate(context, source): TopicView.tr_label
LUPDATE_OPTIONS = ["-no-obsolete", "-locations", "none", "-tr-function-alias", "translate+=tr_label"]


def sources() -> list[str]:
    """Every module of explorer/ that writes or marks a text for the catalogue (the window's
    and the texts defined below it: core's presets, model descriptions, error templates ...).
    The command line's own messages stay English."""
    files = sorted(p for p in (ROOT / "explorer").rglob("*.py")
                   if "cli" not in p.relative_to(ROOT / "explorer").parts[:1]
                   and any(mark in p.read_text("utf-8") for mark in MARKS))
    return [str(p.relative_to(ROOT)) for p in files]


def lupdate(language: str) -> None:
    ts = I18N / f"attention_explorer_{language}.ts"
    subprocess.run([tool("pyside6-lupdate"), *LUPDATE_OPTIONS, *sources(),
                    "-target-language", language, "-ts", str(ts.relative_to(ROOT))],
                   cwd=ROOT, check=True)


def lrelease(language: str, out: Path | None = None) -> Path:
    ts = I18N / f"attention_explorer_{language}.ts"
    qm = out or ts.with_suffix(".qm")
    subprocess.run([tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True)
    return qm


if __name__ == "__main__":
    for lang in LANGUAGES:
        if "--release" not in sys.argv:
            lupdate(lang)
        lrelease(lang)
