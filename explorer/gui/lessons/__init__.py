"""The Lesson view: the panel (panel.py), the frame around a highlighted control (highlight.py)
and the presenter's clicker keys (keys.py). The window applies the steps (window/lesson_wiring.py)."""

from .highlight import HighlightFrame
from .keys import ClickerKeys
from .panel import LessonPanel

__all__ = ["ClickerKeys", "HighlightFrame", "LessonPanel"]
