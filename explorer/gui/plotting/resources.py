"""Files the app ships in resources/ (fonts, icon), found in a checkout or an installed wheel."""

from __future__ import annotations

from PySide6.QtGui import QIcon

from ...app.resources import resource_path  # noqa: F401 (fonts.py imports it from here)

ICON_FILE = ("icons", "attention-explorer.png")


def app_icon() -> QIcon:
    """The window icon (a 4 × 4 heatmap of the course's head 0); an empty icon if missing."""
    path = resource_path(*ICON_FILE)
    return QIcon(str(path)) if path is not None else QIcon()
