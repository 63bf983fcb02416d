"""Figures for slides, the Qt-free half: what to export, file names, CSV, PNG and SVG markup.

`naming` (what to export, file names, the title line, formats and backgrounds), `csv_export`
(the numbers behind a figure), `png` (a fast PNG encoder of (h, w, 3) arrays) and `svg_markup`
(SVG rewrites that need no Qt). The safe writer is `explorer.core.files.output_files` (re-exported
here). Nothing here imports Qt (a contract in pyproject.toml), so the CLI writes CSV and
`dump` runs without a display. The Qt half, drawing a widget as PNG or SVG, its page and theme,
is `explorer.gui.export`; the offscreen views it draws are built in `gui/window/exports`.
"""

from ..core.files.output_files import ExportError, ExportExistsError, check_folder, check_name, write_file, write_files
from .naming import FigureSpec, default_name, parse_what, settings_tag, settings_title

__all__ = [
    "ExportError", "ExportExistsError", "FigureSpec", "check_folder", "check_name", "default_name",
    "parse_what", "settings_tag", "settings_title", "write_file", "write_files",
]
