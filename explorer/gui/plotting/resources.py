"""Files the app ships in resources/ (fonts, icon), found in a checkout or an installed wheel."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

ICON_FILE = ("icons", "attention-explorer.png")


def resource_path(*parts: str) -> Path | None:
    """resources/<parts> from a source checkout, else from the installed explorer.resources
    package; None when it is in neither (the caller falls back, never crashes)."""
    import explorer
    candidate = Path(explorer.__file__).resolve().parent.parent / "resources" / Path(*parts)
    if candidate.exists():
        return candidate
    try:
        from importlib.resources import files
        installed = Path(str(files("explorer.resources").joinpath(*parts)))
    except (ImportError, ModuleNotFoundError, TypeError):
        return None
    return installed if installed.exists() else None


def app_icon() -> QIcon:
    """The window icon (a 4 × 4 heatmap of the course's head 0); an empty icon if missing."""
    path = resource_path(*ICON_FILE)
    return QIcon(str(path)) if path is not None else QIcon()
