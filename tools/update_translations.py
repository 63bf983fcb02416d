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


def sources() -> list[str]:
    files = sorted((ROOT / "explorer" / "gui").rglob("*.py")) + [ROOT / "explorer" / "app" / "report.py",
                                                                ROOT / "explorer" / "export" / "naming.py"]
    files += [ROOT / "explorer" / "app" / f"{name}.py" for name in ("learned", "learned_generation", "learned_kv", "learned_state",
                                                                    "settings", "settings_file", "topic_settings")]
    # core's error templates (ConfigError.of, context "core"; shown by app.i18n.error_text)
    files += sorted(p for p in (ROOT / "explorer" / "core").rglob("*.py") if "QT_TRANSLATE_NOOP" in p.read_text("utf-8"))
    return [str(p.relative_to(ROOT)) for p in files]


def lupdate(language: str) -> None:
    ts = I18N / f"attention_explorer_{language}.ts"
    subprocess.run([tool("pyside6-lupdate"), "-no-obsolete", "-locations", "none", *sources(),
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
