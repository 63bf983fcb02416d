"""Files the app ships in resources/ (fonts, icon, translations), found in a checkout or an
installed wheel (Qt-free: the Qt-free translation reader uses it too)."""

from __future__ import annotations

from pathlib import Path


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
