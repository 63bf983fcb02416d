"""White (slides) or dark backgrounds for exported figures, and the bundled font.

The style is applied to the offscreen copy that export builds, never to the live
window: Qt palettes for plain widgets, and pyqtgraph's public per-item setters
(GraphicsView.setBackground, AxisItem.setPen/setTextPen, LabelItem colours) for plots.
Values drawn inside heatmap cells keep the colour their view chose for contrast.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QWidget

from ...export.naming import BACKGROUNDS  # noqa: F401  (re-exported; defined Qt-free)
from ..plotting.fonts import bundled_families, load_bundled_fonts


@dataclass(frozen=True)
class Theme:
    background: QColor
    foreground: QColor   # text, axes
    muted: QColor        # secondary text


def theme(name: str) -> Theme:
    if name == "white":
        return Theme(QColor("#ffffff"), QColor("#1a1a1a"), QColor("#555555"))
    if name == "dark":
        return Theme(QColor("#161616"), QColor("#e8e8e8"), QColor("#a8a8a8"))
    raise ValueError(f"background must be one of {BACKGROUNDS}, got {name!r}")


def bundled_family() -> str:
    """The bundled Hangul font's family (registered once by gui.plotting.fonts). Needs a
    QGuiApplication."""
    return load_bundled_fonts()


def figure_font(point_size: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setFamilies(bundled_families())
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


def apply_theme(widget: QWidget, name: str) -> Theme:
    """Give `widget` and everything inside it the named background and text colours."""
    colours = theme(name)
    palette = QPalette(widget.palette())
    for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base, QPalette.ColorRole.Button):
        palette.setColor(role, colours.background)
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        palette.setColor(role, colours.foreground)
    widget.setPalette(palette)
    widget.setAutoFillBackground(True)
    for child in widget.findChildren(QWidget):
        child.setPalette(palette)
    views = widget.findChildren(pg.GraphicsView)
    if isinstance(widget, pg.GraphicsView):
        views.append(widget)
    for view in views:
        style_plot_scene(view, colours)
    return colours


def style_plot_scene(view: pg.GraphicsView, colours: Theme) -> None:
    """Background, axes and titles of one pyqtgraph view in the theme's colours."""
    view.setBackground(colours.background)
    pen = pg.mkPen(colours.foreground)
    for item in view.scene().items():
        if isinstance(item, pg.AxisItem):
            item.setPen(pen)
            item.setTextPen(pen)
        elif isinstance(item, pg.LabelItem):
            item.setText(item.text, color=colours.foreground)
