"""The Qt application the command line draws its figures with (`export`, `export --lesson`).

Qt is imported inside the functions only: importing this module loads no Qt (`dump` must not).
"""

from __future__ import annotations

import os


def ensure_qt_app():
    """The running QApplication, or a new one on the offscreen platform when there is no display."""
    if not os.environ.get("QT_QPA_PLATFORM") and not (os.environ.get("DISPLAY")
                                                       or os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance()
    if app is None:
        app = QApplication(["attention-explorer"])
        _use_window_font(app)
    from ..gui.export.theme import bundled_family
    bundled_family()
    return app


def _use_window_font(app) -> None:
    """The application font `run_app` sets, so figures look as they do in the window."""
    try:
        from ..gui.plotting.fonts import ui_font
        from ..gui.window.main_window import NORMAL_PT
    except ImportError:
        return
    app.setFont(ui_font(NORMAL_PT))
