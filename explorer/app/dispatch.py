"""Where background results are handed back: `post_to_main(fn)` runs fn on the main (GUI) thread.

The runner (runner.py) finishes jobs on its own thread but state objects and views may only be
touched on the main thread. Without a GUI (CLI, Qt-free tests) nothing is installed and
`post_to_main` calls fn at once, on the caller's thread. The GUI installs a poster that queues
fn into the Qt event loop (gui/dispatch_qt.py, installed when ``explorer.gui`` is imported), so
this layer stays free of Qt.

Timers the same way: `make_timer(on_timeout, owner)` gives the single-shot timer
``app.throttle`` debounces on; the GUI installs QTimer ones (owned by the widget `owner`, so they
stop with it), and there is no default (without a GUI, pass a timer to the throttle yourself).
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


_timer_factory: Callable | None = None


def install_timer_factory(factory: Callable | None) -> None:
    """`factory(on_timeout, owner)` -> a single-shot timer (``throttle.SingleShot``)."""
    global _timer_factory
    _timer_factory = factory


def make_timer(on_timeout: Callable[[], None], owner=None):
    """A single-shot timer calling on_timeout() on the main thread (the installed kind)."""
    if _timer_factory is None:
        raise RuntimeError("no timer installed: import explorer.gui, or pass make_timer")
    return _timer_factory(on_timeout, owner)
