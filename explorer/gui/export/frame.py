"""The page an exported view is drawn on: background, optional title line, the view."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from .theme import apply_theme, figure_font

MARGIN = 12
TITLE_POINTS = 12.0


class FigureFrame(QWidget):
    """A view on a plain background with, optionally, one line of settings above it.

    The frame takes ownership of `view`. `background` is "white" or "dark".
    """

    def __init__(self, view: QWidget, background: str = "white", title: str = "",
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view
        self.description = title  # metadata of the exported file (the settings, shown or not)
        self.title_label = QLabel(title, self)
        self.title_label.setFont(figure_font(TITLE_POINTS))
        self.title_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.title_label.setWordWrap(True)
        self.title_label.setVisible(bool(title))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(MARGIN // 2)
        layout.addWidget(self.title_label)
        layout.addWidget(view, 1)
        self.background = background
        self.colours = apply_theme(self, background)

    def set_title(self, title: str) -> None:
        """Another settings line (a frame reused for the next export of its kind)."""
        self.title_label.setText(title)
        self.title_label.setVisible(bool(title))

    def restyle(self) -> None:
        """Apply the background again: views may redraw their titles when first shown."""
        self.colours = apply_theme(self, self.background)

    @property
    def title(self) -> str:
        return "" if self.title_label.isHidden() else self.title_label.text()

    def size_for_view(self, view_size: QSize) -> QSize:
        """The frame size that gives the view `view_size` (title and margins added)."""
        extra = 2 * MARGIN
        if self.title:
            width = view_size.width() + 2 * MARGIN
            extra += self.title_label.heightForWidth(width - 2 * MARGIN) + MARGIN // 2
        return QSize(view_size.width() + 2 * MARGIN, view_size.height() + extra)
