"""Where background results are handed back: `post_to_main(fn)` runs fn on the main (GUI) thread.

The runner (runner.py) finishes jobs on its own thread but state objects and views may only be
touched on the main thread. Without a GUI (CLI, Qt-free tests) nothing is installed and
`post_to_main` calls fn at once, on the caller's thread. The GUI installs a poster that queues
fn into the Qt event loop (gui/dispatch_qt.py, installed when ``explorer.gui`` is imported), so
this layer stays free of Qt.
"""

from __future__ import annotations

from typing import Callable

_poster: Callable[[Callable[[], None]], None] | None = None


def install_main_thread_poster(poster: Callable[[Callable[[], None]], None] | None) -> None:
    """Route `post_to_main` through `poster(fn)` (None: call at once again)."""
    global _poster
    _poster = poster


def post_to_main(fn: Callable[[], None]) -> None:
    """Run fn() on the main thread (queued when a GUI poster is installed)."""
    if _poster is None:
        fn()
    else:
        _poster(fn)
