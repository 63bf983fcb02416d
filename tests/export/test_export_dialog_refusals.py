"""QA pass: File → Export… with a folder a user would not mean."""

import os

import pytest
from PySide6.QtGui import QPalette

from explorer.core import get_preset
from explorer.gui.window.exports.export_dialog import open_export_dialog


@pytest.fixture
def window_config():
    return get_preset("course-lab3").config


def test_empty_folder_is_refused_not_the_working_directory(qtbot, window, tmp_path, monkeypatch):
    """A cleared Folder box wrote into the process's working directory (wherever the app was
    started from) and said 'Wrote heads_d8_h2_seed1.png', with no folder in sight."""
    monkeypatch.chdir(tmp_path)
    dialog = open_export_dialog(window)
    qtbot.addWidget(dialog)
    dialog.folder.setText("   ")
    assert dialog.export() == []
    assert os.listdir(tmp_path) == []
    assert "folder" in dialog.message.text() and dialog.message.palette().color(QPalette.ColorRole.WindowText).name() == "#c62828"
    dialog.folder.setText(str(tmp_path))
    paths = dialog.export()
    assert len(paths) == 1 and paths[0].parent == tmp_path
    assert dialog.message.text() == f"Wrote {paths[0]}"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    dialog.folder.setText("~")  # typed by hand: the home folder, not a folder named '~'
    paths = dialog.export()
    assert paths and paths[0].parent == tmp_path / "home"


def test_a_huge_csv_asks_first_and_writes_nothing_when_declined(qtbot, window, tmp_path,
                                                                 monkeypatch):
    """16 heads at 1024 tokens is a 16.8M-row CSV: seconds of frozen window, so ask first."""
    from PySide6.QtWidgets import QMessageBox

    from explorer.gui.window.exports import export_dialog as module
    dialog = open_export_dialog(window)
    qtbot.addWidget(dialog)
    dialog.folder.setText(str(tmp_path))
    dialog.format.setCurrentIndex(module.FORMATS.index("csv"))
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *args, **kw: asked.append(args) or QMessageBox.StandardButton.No)
    assert dialog.csv_rows() == 2 * 4 * 4  # the course preset: small, no question
    assert len(dialog.export()) == 1 and asked == []
    monkeypatch.setattr(module, "LARGE_CSV_ROWS", 10)  # make the course CSV count as large
    assert dialog.export() == [] and len(asked) == 1
    assert "32 rows" in asked[0][2] and dialog.message.text() == "export cancelled"
    assert len(os.listdir(tmp_path)) == 1  # only the first, small export


def refused_for_a_file_as_folder(qtbot, make_window, tmp_path):
    """(window, its export dialog, the file): an export into a file given as the folder, refused."""
    window = make_window(get_preset("course-lab3").config)
    dialog = open_export_dialog(window)
    qtbot.addWidget(dialog)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    dialog.folder.setText(str(a_file))
    assert dialog.export() == []
    return window, dialog, a_file


def test_the_korean_window_says_why_an_export_failed_in_korean(qtbot, korean_ui, make_window,
                                                               tmp_path):
    """Export errors are English for the CLI (ExportError.of keeps the template); the Korean
    dialog shows them in Korean: a folder that is a file, a hidden name."""
    from explorer.app.i18n import error_text
    from explorer.core.files.output_files import ExportError, check_folder, check_name
    _, dialog, a_file = refused_for_a_file_as_folder(qtbot, make_window, tmp_path)
    assert dialog.message.text() == f"{a_file}에 쓸 수 없습니다: 폴더가 아닙니다"
    with pytest.raises(ExportError) as caught:
        check_folder(a_file)
    assert str(caught.value) == f"cannot write to {a_file}: not a folder"  # the CLI's English
    dialog.folder.setText(str(tmp_path))
    dialog.name.setText(".hidden")
    assert dialog.export() == []
    assert dialog.message.text() == "잘못된 파일 이름 '.hidden': 점으로 시작하는 이름은 숨김 파일이 됩니다"
    with pytest.raises(ExportError) as caught:
        check_name("a\u202eb")
    assert error_text(caught.value) == "잘못된 파일 이름 'a\\u202eb': U+202E 문자를 넣을 수 없습니다"
    assert os.listdir(tmp_path) == ["notes.txt"]


def test_an_export_error_shown_follows_a_live_language_switch(qtbot, make_window, tmp_path):
    """The dialog's error line is said again in the new language (its "export" templates are
    not in the live switch's tables: they are figure title lines too), and back."""
    from explorer.gui.window.language import set_window_language
    window, dialog, a_file = refused_for_a_file_as_folder(qtbot, make_window, tmp_path)
    assert dialog.message.text() == f"cannot write to {a_file}: not a folder"
    set_window_language(window, "ko")
    assert dialog.message.text() == f"{a_file}에 쓸 수 없습니다: 폴더가 아닙니다"
    set_window_language(window, "en")
    assert dialog.message.text() == f"cannot write to {a_file}: not a folder"
