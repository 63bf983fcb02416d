"""A "Save PNG…" button for the insight views (the lines view, the Inside attention charts).

The picture is the widget rendered at twice its size (gui/export/render: crisp on slides) and
written through core/files/output_files (a temporary file moved into place; never over a
non-regular file). The file dialog has asked before replacing, so an existing file is overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox, QToolButton, QWidget

from ...app.i18n import error_text
from ...core.files.output_files import ExportError, write_file
from ..export.render import render_png
from ..plotting.i18n import translate

SCALE = 2.0


def png_of(widget: QWidget) -> bytes:
    """The widget as PNG bytes at SCALE × its size."""
    return render_png(widget, SCALE)


def save_png(widget: QWidget, path: str) -> Path:
    """Write the widget's PNG to `path` (".png" added when missing); ExportError when it cannot."""
    if not path.lower().endswith(".png"):
        path += ".png"
    return write_file(path, png_of(widget), on_exists="overwrite")


class SaveButton(QToolButton):
    """Asks for a file name and saves `widget()` as PNG; `name()` gives the suggested file name."""

    def __init__(self, widget: Callable[[], QWidget], name: Callable[[], str], parent: QWidget | None = None):
        super().__init__(parent)
        self._widget, self._name = widget, name
        self.last_saved: Path | None = None
        self.clicked.connect(self.ask)
        self.retranslate()

    def ask(self) -> None:
        title = translate("insight.saving", "Save PNG")
        path, _filter = QFileDialog.getSaveFileName(self, title, self._name(), "PNG (*.png)")
        if path:
            try:
                self.last_saved = save_png(self._widget(), path)
            except ExportError as exc:
                QMessageBox.warning(self, title, error_text(exc))

    def retranslate(self) -> None:
        self.setText(translate("insight.saving", "Save PNG…"))
        self.setToolTip(translate("insight.saving", "Save this picture as a PNG file (twice the screen's size)"))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
