"""Debounce and throttle (app/throttle.py) on a manual clock, and once on real QTimers."""

import pytest

from explorer.app.throttle import Debouncer, Throttler


class Clock:
    """Manual time for the throttle's single-shot timers: `advance(ms)` fires what is due."""

    def __init__(self):
        self.now, self.timers = 0, []

    def make_timer(self, on_timeout, owner=None):
        timer = ManualTimer(self, on_timeout)
        self.timers.append(timer)
        return timer

    def advance(self, ms: int) -> None:
        end = self.now + ms
        while True:
            due = [t for t in self.timers if t.due is not None and t.due <= end]
            if not due:
                break
            timer = min(due, key=lambda t: t.due)
            self.now, timer.due = timer.due, None
            timer.on_timeout()
        self.now = end


class ManualTimer:
    def __init__(self, clock, on_timeout):
        self.clock, self.on_timeout, self.due = clock, on_timeout, None

    def start(self, ms):
        self.due = self.clock.now + ms

    def stop(self):
        self.due = None

    def is_active(self):
        return self.due is not None


@pytest.fixture
def clock():
    return Clock()


def test_a_burst_becomes_one_call_with_the_last_value(clock):
    calls = []
    debounce = Debouncer(calls.append, 40, make_timer=clock.make_timer)
    for value in range(5):
        debounce(value)
        clock.advance(30)  # each call comes before the last one's 40 ms are over
    assert calls == [] and debounce.pending
    clock.advance(10)
    assert calls == [4] and not debounce.pending
    clock.advance(1000)
    assert calls == [4]


def test_debounce_cancel_and_flush(clock):
    calls = []
    debounce = Debouncer(calls.append, 400, make_timer=clock.make_timer)
    debounce("a")
    debounce.cancel()
    clock.advance(1000)
    assert calls == []
    debounce("b")
    debounce.flush()
    assert calls == ["b"]
    clock.advance(1000)
    assert calls == ["b"]


def test_throttle_leading_and_trailing(clock):
    calls = []
    throttle = Throttler(calls.append, 100, make_timer=clock.make_timer)
    throttle(1)             # leading: at once
    throttle(2)
    throttle(3)
    assert calls == [1]
    clock.advance(100)      # trailing: the last call of the period
    assert calls == [1, 3]
    throttle(4)             # within the period the trailing call opened: waits
    assert calls == [1, 3]
    clock.advance(100)
    assert calls == [1, 3, 4]
    clock.advance(100)      # a quiet period: nothing pending, the throttle is open again
    throttle(5)
    assert calls == [1, 3, 4, 5]


def test_a_steady_stream_is_called_once_per_period(clock):
    calls = []
    throttle = Throttler(calls.append, 100, make_timer=clock.make_timer)
    for value in range(50):  # every 10 ms for 500 ms
        throttle(value)
        clock.advance(10)
    clock.advance(200)
    assert calls[0] == 0 and calls[-1] == 49
    assert 5 <= len(calls) <= 7  # ~ 500 ms / 100 ms, never one per call


@pytest.mark.parametrize("leading, trailing, expected", [(True, False, [1]),
                                                         (False, True, [3]),
                                                         (False, False, [])])
def test_throttle_without_leading_or_trailing(clock, leading, trailing, expected):
    calls = []
    throttle = Throttler(calls.append, 100, make_timer=clock.make_timer, leading=leading,
                         trailing=trailing)
    for value in (1, 2, 3):
        throttle(value)
    clock.advance(500)
    assert calls == expected


def test_qt_timers_are_installed_by_the_gui(qtbot):
    import explorer.gui  # noqa: F401 (installs the QTimer factory)
    from PySide6.QtWidgets import QWidget
    owner = QWidget()
    qtbot.addWidget(owner)
    calls = []
    debounce = Debouncer(calls.append, 0, owner=owner)
    for value in "abc":
        debounce(value)
    qtbot.waitUntil(lambda: not debounce.pending)
    assert calls == ["c"]


def test_a_qt_timer_whose_owner_is_gone_does_nothing(qtbot):
    import explorer.gui  # noqa: F401 (installs the QTimer factory)
    from PySide6.QtWidgets import QWidget
    from shiboken6 import delete
    owner = QWidget()
    calls = []
    debounce = Debouncer(calls.append, 0, owner=owner)
    delete(owner)  # the timer, its child, goes with it
    debounce("late")  # e.g. a signal emitted while the widget is torn down
    assert not debounce._timer.is_active() and calls == []
