"""Where the learner is in a lesson (Qt-free): the lesson, the step, whether it is running.

The window applies a step when ``step_changed`` fires and the panel redraws its text; neither
keeps its own copy of the position. Leaving (`leave`) only stops the lesson from driving the
window: the lesson and the step are kept, so `resume` goes back to the step where the
instructor left off and the window keeps whatever was explored in between until then.

Events: lesson_changed(Lesson | None), step_changed(int: 0-based index), active_changed(bool).
"""

from __future__ import annotations

from . import Lesson, Step
from ..observable import Event, Observable


class LessonSession(Observable):
    def __init__(self):
        super().__init__()
        self.lesson_changed, self.step_changed, self.active_changed = Event(), Event(), Event()
        self._lesson: Lesson | None = None
        self._index = 0
        self._active = False

    @property
    def lesson(self) -> Lesson | None:
        return self._lesson

    @property
    def index(self) -> int:
        return self._index

    @property
    def active(self) -> bool:
        return self._active

    @property
    def step(self) -> Step | None:
        return self._lesson.steps[self._index] if self._lesson is not None else None

    def progress(self) -> tuple[int, int]:
        """(step number from 1, number of steps); (0, 0) without a lesson."""
        return (self._index + 1, len(self._lesson)) if self._lesson is not None else (0, 0)

    def open(self, lesson: Lesson, index: int = 0) -> None:
        """Start `lesson` at step `index` (the step is applied, even the same one again)."""
        self._lesson = lesson
        self._index = max(0, min(len(lesson) - 1, index))
        self.lesson_changed.emit(lesson)
        self._set_active(True)
        self.go(index, force=True)

    def go(self, index: int, force: bool = False) -> bool:
        """Show step `index` (clamped to the lesson); False when there is nothing to do."""
        if self._lesson is None:
            return False
        index = max(0, min(len(self._lesson) - 1, index))
        if index == self._index and not force:
            return False
        self._index = index
        self._set_active(True)
        self.step_changed.emit(index)
        return True

    def next(self) -> bool:
        return self.go(self._index + 1)

    def previous(self) -> bool:
        return self.go(self._index - 1)

    def leave(self) -> None:
        """Stop driving the window; the window stays as it is, the position is kept."""
        self._set_active(False)

    def resume(self) -> None:
        """Back to the step where the lesson was left (applied again)."""
        if self._lesson is not None:
            self.go(self._index, force=True)

    def _set_active(self, on: bool) -> None:
        if on != self._active:
            self._active = on
            self.active_changed.emit(on)
