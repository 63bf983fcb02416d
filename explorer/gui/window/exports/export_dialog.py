"""File → Export… and File → Copy figure: the window's figures as PNG / SVG / CSV for slides.

`export_actions.install_export_actions(window)` adds both actions to the window's File menu and
imports this module when one is first used (it pulls in the export package and the offscreen
figure builders, which the first picture does not need). The dialog
only gathers choices; naming lives in `explorer.export`, rendering in `explorer.gui.export` and
writing in `explorer.core.files.output_files` (the same code as `attention-explorer export`), and an existing file is never overwritten silently: a
suffix (_2, _3, ...) is added unless "Overwrite" is ticked.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import (QApplication, QButtonGroup, QCheckBox, QComboBox, QDialog,
                               QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QMessageBox, QPushButton, QRadioButton, QSpinBox,
                               QVBoxLayout, QWidget)

from .figures import ExportOptions
from ....app.i18n import error_text
from ....core.files.output_files import ExportError, check_name, write_files
from .from_window import (available_specs, current_spec, default_file_name, export_from_window,
                          still_offered, unavailable_note)
from ....export.naming import BACKGROUNDS, FORMATS, FigureSpec
from ...plotting.fonts import set_text_colour
from ...plotting.i18n import translate

LARGE_CSV_ROWS = 1_000_000  # above this, a CSV takes seconds to build: ask first
CSV_BYTES_PER_ROW = 42      # measured: 16.8M rows of head,query_index,query,key_index,key,weight = 711 MB

SCALES = (1, 2, 4)
COPY_SCALE = 2


def open_export_dialog(window) -> "ExportDialog":
    dialog = window.export_dialog
    if dialog is None:
        dialog = window.export_dialog = ExportDialog(window)
    dialog.refresh()
    dialog.show()
    dialog.raise_()
    return dialog


def copy_figure(window) -> QImage | None:
    """Put the current tab's figure on the clipboard as an image; returns it (None on error)."""
    spec = current_spec(window)
    options = ExportOptions(fmt="png", scale=COPY_SCALE, background="white")
    try:
        _, data = export_from_window(window, spec, options)
    except ExportError as exc:
        window.status_message(translate("window.export_dialog", "Copy figure: {error}").format(error=error_text(exc)))
        return None
    image = QImage.fromData(data, "PNG")
    QGuiApplication.clipboard().setImage(image)
    window.status_message(translate("window.export_dialog",
                                    "Copied {figure} ({w}×{h} px) to the clipboard").format(
        figure=spec, w=image.width(), h=image.height()))
    return image


class ExportDialog(QDialog):
    """What, format, size, background, title, where; Export writes and says where it wrote."""

    def __init__(self, window):
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle(translate("window.export_dialog", "Export figure"))
        self._specs = []
        self._name_edited = False
        self.what = QComboBox()
        self.format = QComboBox()
        self.format.addItems([f.upper() for f in FORMATS])
        self.scale_radio = QRadioButton(translate("window.export_dialog", "Scale"))
        self.width_radio = QRadioButton(translate("window.export_dialog", "Width"))
        self.scale_radio.setChecked(True)
        self._size_group = QButtonGroup(self)
        for button in (self.scale_radio, self.width_radio):
            self._size_group.addButton(button)
        self.scale = QComboBox()
        self.scale.addItems([f"{s}×" for s in SCALES])
        self.scale.setCurrentIndex(1)
        self.width = QSpinBox()
        self.width.setRange(16, 16384)
        self.width.setValue(1920)
        self.width.setSuffix(" px")
        self.background = QComboBox()
        shown = {b: translate("window.export_dialog", b) for b in BACKGROUNDS}
        shown["white"] = translate("window.export_dialog", "{background} (slides)").format(
            background=shown["white"])
        self.background.addItems([shown[b] for b in BACKGROUNDS])
        self.title = QCheckBox(translate("window.export_dialog",
                                         "Title line with the settings (d_model, heads, seed, scaling, masks)"))
        self.folder = QLineEdit(str(_default_folder()))
        self.browse = QPushButton(translate("window.export_dialog", "Browse…"))
        self.name = QLineEdit()
        self.overwrite = QCheckBox(translate("window.export_dialog",
                                             "Overwrite an existing file (otherwise add _2, _3, …)"))
        self.message = QLabel("")
        self._error: ExportError | None = None  # shown in self.message: again in a new UI language
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = self.buttons.addButton(translate("window.export_dialog", "Export"),
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self._build_layout()
        self._connect()

    def _build_layout(self) -> None:
        form = QFormLayout()
        form.addRow(translate("window.export_dialog", "Figure"), self.what)
        form.addRow(translate("window.export_dialog", "Format"), self.format)
        form.addRow(translate("window.export_dialog", "Size"), _row(self.scale_radio, self.scale,
                                                                    self.width_radio, self.width))
        form.addRow(translate("window.export_dialog", "Background"), self.background)
        form.addRow("", self.title)
        form.addRow(translate("window.export_dialog", "Folder"), _row(self.folder, self.browse))
        form.addRow(translate("window.export_dialog", "File name"), self.name)
        form.addRow("", self.overwrite)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)

    def _connect(self) -> None:
        for combo in (self.what, self.format):
            combo.currentIndexChanged.connect(self._choice_changed)
        self.name.textEdited.connect(lambda _: setattr(self, "_name_edited", True))
        self.browse.clicked.connect(self._browse)
        self.buttons.rejected.connect(self.reject)
        self.export_button.clicked.connect(self.export)
        # the dialog stays open while the window changes: its figure list follows the picture
        state, shown = self.window_.state, self.window_.shown  # (app.shown: whichever source)
        for event in (shown.source_changed, shown.picture_changed, shown.kv_changed,
                      state.kv_trace_changed, state.view.kv_step_changed):
            event.connect(self._on_picture)

    # ----- state ---------------------------------------------------------------------------
    def refresh(self, keep_choice: bool = False) -> None:
        """Re-read what the window can export; preselect the current tab's figure (or, with
        `keep_choice`, the figure chosen now, or its nearest while it is gone: see _nearest)."""
        chosen = self.spec() if keep_choice and self._specs else None
        self._specs = available_specs(self.window_)
        specs = [spec for _, spec in self._specs]
        self.what.blockSignals(True)
        self.what.clear()
        self.what.addItems([label for label, _ in self._specs])
        self.what.setCurrentIndex(specs.index(_nearest(chosen, specs, current_spec(self.window_))))
        self.what.blockSignals(False)
        if chosen is None or chosen != self.spec():
            self._name_edited = False
        self._choice_changed()

    def _on_picture(self, *_) -> None:
        """A new picture, KV step or model: the list offers what the window has (8 heads became
        2), the choice is kept; the same figures only rename the default file (a new seed) and
        relabel (a new language)."""
        if not self.isVisible():
            return
        specs = available_specs(self.window_)
        if [spec for _, spec in specs] != [spec for _, spec in self._specs]:
            self.refresh(keep_choice=True)
            return
        self._specs = specs
        for index, (label, _spec) in enumerate(specs):
            self.what.setItemText(index, label)
        if not self._name_edited:
            self.name.setText(self._default_name(FORMATS[self.format.currentIndex()]))

    def spec(self):
        return self._specs[self.what.currentIndex()][1]

    def options(self) -> ExportOptions:
        by_width = self.width_radio.isChecked()
        return ExportOptions(fmt=FORMATS[self.format.currentIndex()],
                             scale=SCALES[self.scale.currentIndex()],
                             width=self.width.value() if by_width else None,
                             background=BACKGROUNDS[self.background.currentIndex()],
                             title=self.title.isChecked())

    def _choice_changed(self, *_) -> None:
        is_window = self.spec().kind == "window"
        fmt = FORMATS[self.format.currentIndex()]
        vector_or_csv = fmt != "png"
        for widget in (self.scale_radio, self.scale, self.width_radio, self.width):
            widget.setEnabled(not vector_or_csv)
        for widget in (self.background, self.title):
            widget.setEnabled(not is_window and fmt != "csv")
        self.export_button.setEnabled(not (is_window and fmt == "csv"))
        self._say(translate("window.export_dialog", "The whole window is exported as it looks (PNG or SVG).")
                  if is_window else unavailable_note(self.window_))
        if not self._name_edited:
            self.name.setText(self._default_name(fmt))

    def _default_name(self, fmt: str) -> str:
        return default_file_name(self.window_, self.spec(), fmt)

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to folder", self.folder.text())
        if folder:
            self.folder.setText(folder)

    # ----- export --------------------------------------------------------------------------
    def export(self) -> list[Path]:
        """Render and write; reports in the dialog and the status bar. Returns the paths."""
        options = self.options()
        folder = self.folder.text().strip()
        if not folder:  # not the working directory, which the user cannot see from here
            self._say(translate("window.export_dialog", "choose a folder to export to (Browse…)"), error=True)
            return []
        if options.fmt == "csv" and not self._confirm_large_csv():
            self._say(translate("window.export_dialog", "export cancelled"))
            return []
        try:
            name = _with_extension(check_name(self.name.text().strip()), options.fmt)
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            try:
                _, data = export_from_window(self.window_, self.spec(), options)
            finally:
                QApplication.restoreOverrideCursor()
            folder = Path(folder).expanduser().absolute()  # "~/slides"; say where it went
            paths = write_files(folder, [(name, data)],
                                "overwrite" if self.overwrite.isChecked() else "suffix")
        except ExportError as exc:
            if not still_offered(self.window_, self.spec()):  # a change no event reported
                self.refresh(keep_choice=True)  # (see _on_picture), before the message is shown
            self._say(error_text(exc), error=True)  # in the UI language
            self._error = exc
            return []
        self._say(translate("window.export_dialog", "Wrote {path}").format(path=paths[0]))
        self.window_.status_message(translate("window.export_dialog",
                                              "Exported {path}").format(path=paths[0]))
        return paths

    def csv_rows(self) -> int:
        """Rows the CSV of the chosen figure will have (head · query · key for weights)."""
        result = self.window_.state.result
        if result is None:
            return 0
        n, h = result.config.n_tokens, result.config.n_heads
        return {"heads": h * n * n, "head": n * n, "pe": n * result.config.d_model}.get(
            self.spec().kind, n)

    def _confirm_large_csv(self) -> bool:
        """Ask before a CSV so large that building it freezes the window for seconds."""
        rows = self.csv_rows()
        if rows <= LARGE_CSV_ROWS:
            return True
        size_mb = rows * CSV_BYTES_PER_ROW / 1e6
        answer = QMessageBox.question(
            self, translate("window.export_dialog", "Large CSV"),
            translate("window.export_dialog", "This CSV will have {rows} rows (about {mb} MB). Writing it "
                      "takes a while, and the window will not respond meanwhile. Export it anyway?").format(
                rows=f"{rows:,}", mb=f"{size_mb:,.0f}"))
        return answer == QMessageBox.StandardButton.Yes

    def _say(self, text: str, error: bool = False) -> None:
        self._error = None
        set_text_colour(self.message, "#c62828" if error else None)
        self.message.setText(text)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """An export error shown is said again in the new language: its "export" templates are
        also figure title lines, which the live switch leaves alone (plotting.i18n.NOT_ON_SCREEN)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self._error is not None:
            self.message.setText(error_text(self._error))


def _nearest(chosen: FigureSpec | None, specs: list[FigureSpec], current: FigureSpec) -> FigureSpec:
    """`chosen` while offered; else for a KV step the KV figure offered now, for a head the heads
    grid; else the current tab's figure; else the first."""
    if chosen is not None:
        if chosen in specs:
            return chosen
        fallback = next((s for s in specs if s.kind == "kv"), None) if chosen.kind == "kv" else (
            FigureSpec("heads") if chosen.kind == "head" else None)
        if fallback in specs:
            return fallback
    return current if current in specs else specs[0]


def _row(*widgets: QWidget) -> QWidget:
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget, 1 if isinstance(widget, QLineEdit) else 0)
    return box


def _with_extension(name: str, fmt: str) -> str:
    """`name` ending in .fmt (added when the user typed none or another one)."""
    stem, dot, ext = name.rpartition(".")
    if dot and ext.lower() == fmt:
        return name
    return f"{name}.{fmt}"


def _default_folder() -> Path:
    home = Path.home()
    for candidate in (home / "Pictures", home / "Desktop", home):
        if candidate.is_dir():
            return candidate
    return Path.cwd()
