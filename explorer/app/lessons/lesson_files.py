"""Reading a lesson file the user chose, off the GUI thread (Qt-free).

`load_lesson` takes up to about a second for the largest file allowed (and a file on a slow or
network disk may take longer), so the window never calls it on its own thread: `read(path)`
runs it as a job on a `Runner` of its own ("lesson-files"), and the result comes back on the
main thread as ``loaded(Lesson)`` or ``refused(path, problems)``. The latest request wins: a
file chosen while another is still being read makes the first one's result be dropped.

Events (main thread): loaded(Lesson), refused(Path, list[str]: one line per problem).
"""

from __future__ import annotations

from pathlib import Path

from . import LessonError, load_lesson
from .lesson_reader import printable
from ..observable import Event, Observable
from ..runner import Runner


def _read_job(path: Path):
    """The lesson, or the LessonError (a value, so its problems reach the main thread whole)."""
    try:
        return load_lesson(path)
    except LessonError as exc:
        return exc


class LessonFileReader(Observable):
    def __init__(self):
        super().__init__()
        self.loaded, self.refused = Event(), Event()
        self._runner: Runner | None = None
        self._channel = None
        self.reading: Path | None = None  # the file being read now (None: idle)

    def read(self, path) -> None:
        """Read and check `path` in the background; loaded or refused follows."""
        if self._runner is None or self._runner.closed:
            self._runner = Runner("lesson-files")
            self._channel = self._runner.channel(self._deliver)
        self.reading = Path(path)
        self._channel.submit(_read_job, self.reading)

    def is_idle(self) -> bool:
        return self.reading is None

    def close(self) -> None:
        """Drop what is being read (its result never arrives) and end the thread."""
        self.reading = None
        if self._runner is not None:
            self._runner.close(0)

    def _deliver(self, _generation: int, value, error: str | None) -> None:
        path, self.reading = self.reading, None
        if isinstance(value, LessonError):
            self.refused.emit(path, value.problems)
        elif error is not None or value is None:  # a bug in the reader: still one line
            self.refused.emit(path, [f"{printable(str(path))}:1: {error or 'not read'}"])
        else:
            self.loaded.emit(value)
