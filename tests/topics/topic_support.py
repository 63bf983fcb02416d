"""Shared by the topic view tests: show a view, feed it a result, wait for its picture.

(Holds no tests itself.)
"""

from __future__ import annotations

WAIT_MS = 30_000


def show_view(qtbot, view_class, result=None, state=None, size=(1200, 800)):
    """A shown view of `view_class`; if `result` is given, wait until it is drawn."""
    view = view_class(state)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    if result is not None:
        feed(qtbot, view, result)
    return view


def feed(qtbot, view, result) -> None:
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        view.set_result(result)


def redraw(qtbot, view, change) -> None:
    """Run `change()` (a control edit) and wait for the view's next picture."""
    with qtbot.waitSignal(view.drawn, timeout=WAIT_MS):
        change()
