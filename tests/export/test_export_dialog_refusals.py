"""QA pass: File → Export… with a folder a user would not mean."""

import os

import pytest
from PySide6.QtGui import QPalette

from explorer.core import get_preset
from explorer.gui.window.exports.export_dialog import open_export_dialog


@pytest.fixture
def window(make_window):
    return make_window(get_preset("course-lab3").config)


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
