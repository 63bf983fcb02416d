"""A thick orange frame with a soft glow around the control a lesson step asks the learner to try.

It is a mouse-transparent child of the window drawn above everything, so the control stays
usable. It follows its target (moves, resizes, scrolling, a dock shown or hidden) by checking the
target's place a few times a second while shown; a hidden target hides the frame.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

COLOUR = QColor("#ff6d00")  # reads on white and on a washed-out projector
FOLLOW_MS = 150


class HighlightFrame(QWidget):
    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setObjectName("lesson_highlight")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._target: QWidget | None = None
        self.line = 4
        self._timer = QTimer(self, interval=FOLLOW_MS)
        self._timer.timeout.connect(self.follow)
        self.hide()

    @property
    def target(self) -> QWidget | None:
        return self._target

    def set_target(self, widget: QWidget | None) -> None:
        self._target = widget
        if widget is None:
            self._timer.stop()
            self.hide()
        else:
            self._timer.start()
            self.follow()

    def set_line_width(self, width: int) -> None:
        self.line = max(2, int(width))
        self.follow()

    def follow(self) -> None:
        """Sit around the target, or hide while the target is not on screen."""
        target, window = self._target, self.parentWidget()
        try:
            visible = target is not None and target.isVisible() and window is not None
        except RuntimeError:  # the target was deleted (e.g. a rebuilt list)
            self._target, visible = None, False
        if not visible or target.window() is not window:
            self.hide()
            return
        top_left = target.mapTo(window, QPoint(0, 0))
        pad = self.line * 2
        rect = QRect(top_left, target.size()).adjusted(-pad, -pad, pad, pad)
        rect = rect.intersected(window.rect())
        moved = rect != self.geometry()
        if moved:
            self.setGeometry(rect)
        if moved or not self.isVisible():
            self.show()
            self.raise_()  # above widgets shown since (a dock, a page)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for k, alpha in ((3, 50), (2, 90), (1, 255)):  # glow, then the line itself
            colour = QColor(COLOUR)
            colour.setAlpha(alpha)
            width = self.line * k if k > 1 else self.line
            painter.setPen(QPen(colour, width))
            inset = self.line * 2 - width / 2 if k > 1 else self.line * 1.5
            painter.drawRoundedRect(self.rect().adjusted(inset, inset, -inset, -inset),
                                    self.line * 2, self.line * 2)
        painter.end()
