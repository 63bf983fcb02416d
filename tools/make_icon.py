"""Draw resources/icons/attention-explorer.png: a 4 × 4 attention heatmap (the course's head 0).

Run once from the repository root when the icon should change:
    QT_QPA_PLATFORM=offscreen python tools/make_icon.py
"""

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPainterPath, QPen

SIZE = 256
# The course's Lab 3, head 0 (rows = query, columns = key), as printed in the course.
WEIGHTS = [[0.13, 0.04, 0.57, 0.26],
           [0.12, 0.69, 0.01, 0.18],
           [0.16, 0.71, 0.02, 0.11],
           [0.08, 0.80, 0.01, 0.11]]


def draw() -> QImage:
    cmap = pg.colormap.get("viridis")
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    outline = QPainterPath()
    outline.addRoundedRect(QRectF(8, 8, SIZE - 16, SIZE - 16), 36, 36)
    painter.setClipPath(outline)
    cell = (SIZE - 16) / 4
    for row, weights in enumerate(WEIGHTS):
        for col, weight in enumerate(weights):
            colour = cmap.map(weight / 0.8, mode="qcolor")
            painter.fillRect(QRectF(8 + col * cell, 8 + row * cell, cell + 1, cell + 1), colour)
    painter.setClipping(False)
    painter.setPen(QPen(QColor("#1b1b1b"), 6))
    painter.drawPath(outline)
    painter.end()
    return image


if __name__ == "__main__":
    app = QGuiApplication([])
    out = Path(__file__).resolve().parents[1] / "resources" / "icons" / "attention-explorer.png"
    assert draw().save(str(out))
    print(out)
