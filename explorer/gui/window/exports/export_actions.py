"""File → Export… and File → Copy figure as menu actions; the dialog and the export code behind
them (export_dialog, figures, from_window, explorer.gui.export) are imported when one is first
used, after the first picture, not at start-up (issue 9/10: start-up time)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from ..shortcuts import get_shortcut
from ...plotting.i18n import on_language_change, translate

EXPORT_KEYS = get_shortcut("export").keys[0]  # the shortcuts table is the one source
COPY_KEYS = get_shortcut("copy_figure").keys[0]


def _dialog_module():
    from . import export_dialog  # deferred: see the module docstring
    return export_dialog


def install_export_actions(window) -> tuple[QAction, QAction]:
    """Add File → Export… and File → Copy figure to `window` (a MainWindow)."""
    export = QAction(translate("window.export_dialog", "Export…"), window)
    export.setObjectName("action_export")
    export.setShortcut(QKeySequence(EXPORT_KEYS))
    export.setStatusTip(translate("window.export_dialog",
                                  "Save the window or one of its figures as PNG, SVG or CSV"))
    export.triggered.connect(lambda: _dialog_module().open_export_dialog(window))
    copy = QAction(translate("window.export_dialog", "Copy figure"), window)
    copy.setObjectName("action_copy_figure")
    copy.setShortcut(QKeySequence(COPY_KEYS))
    copy.setStatusTip(translate("window.export_dialog",
                                "Copy the current figure to the clipboard (2×, white background)"))
    copy.triggered.connect(lambda: _dialog_module().copy_figure(window))
    for action in (export, copy):
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        window.addAction(action)
        window.file_menu.addAction(action)
    on_language_change(window.file_menu, lambda: _retranslate(export, copy))
    return export, copy


def _retranslate(export: QAction, copy: QAction) -> None:
    t = lambda text: translate("window.export_dialog", text)  # noqa: E731
    export.setText(t("Export…"))
    export.setStatusTip(t("Save the window or one of its figures as PNG, SVG or CSV"))
    copy.setText(t("Copy figure"))
    copy.setStatusTip(t("Copy the current figure to the clipboard (2×, white background)"))
