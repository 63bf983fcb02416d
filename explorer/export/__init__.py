"""Figures for slides: PNG / SVG / CSV export of the views, from the window or the command line.

Qt-free modules: `files` (safe writing), `naming` (what to export, file names, title line),
`csv_export`. Qt modules: `render` (widget -> QImage / SVG), `theme`, `frame`, `figures`
(offscreen views built from a config). Import the Qt ones explicitly; this package
imports nothing from Qt by itself, so the CLI can write CSV without a display.
"""

from ..core.output_files import ExportError, ExportExistsError, check_folder, check_name, write_file, write_files
from .naming import FigureSpec, default_name, parse_what, settings_tag, settings_title

__all__ = [
    "ExportError", "ExportExistsError", "FigureSpec", "check_folder", "check_name", "default_name",
    "parse_what", "settings_tag", "settings_title", "write_file", "write_files",
]
