"""The compute thread's jobs give way to newer requests: the KV trace stops at once, a forward
pass after its grace period; a cancelled job delivers nothing. With the KV tab open the picture
comes first and the trace follows as a request of its own."""

import threading

import pytest

from explorer.app.course import compute
from explorer.app.course.compute import ComputeWorker
from explorer.app.course.state import AppState
from explorer.core import AttentionConfig, Cancelled, forward, run_kv_cache
from numeric import assert_close


class StoppableTrace:
    """A KV trace (of seed 1) whose work lasts until the test says `go_on`, polling its
    should_stop before and after; it stops when told to, else runs to the end. Records what
    happened."""

    def __init__(self):
        self.started, self.go_on = threading.Event(), threading.Event()
        self.cancelled: list[int] = []

    def __call__(self, config, should_stop):
        if config.seed != 1:
            return run_kv_cache(config, should_stop=should_stop)
        self.started.set()
        for _ in range(2):
            if should_stop():
                self.cancelled.append(config.seed)
                raise Cancelled("KV-cache trace")
            self.go_on.wait(10)
        return run_kv_cache(config)


@pytest.fixture
def make_worker(qtbot):
    workers = []

    def make(**kw):
        workers.append(ComputeWorker(**kw))
        return workers[-1]
    yield make
    for worker in workers:
        worker.stop()


def test_a_running_kv_trace_gives_way_and_delivers_nothing(qtbot, make_worker):
    trace = StoppableTrace()
    worker = make_worker(kv_compute=trace)
    delivered = []
    worker.finished.connect(delivered.append)
    worker.submit(AttentionConfig(seed=1), with_kv=True)
    assert trace.started.wait(10)
    newer = worker.submit(AttentionConfig(seed=2), with_kv=True)
    trace.go_on.set()
    qtbot.waitUntil(lambda: any(o.generation == newer for o in delivered), timeout=10_000)
    assert trace.cancelled == [1]
    assert [o.config.seed for o in delivered] == [2]  # nothing from the cancelled job
    assert delivered[0].trace is not None and delivered[0].trace.config.seed == 2


class ManualClock:
    """compute's clock (the grace period reads time.perf_counter), moved on by the test's job:
    each step of the slow forward below is 5 ms of work."""

    def __init__(self):
        self.ms = 0

    def perf_counter(self) -> float:
        return self.ms / 1000


def test_a_long_forward_stops_after_its_grace_period(qtbot, make_worker, monkeypatch):
    monkeypatch.setattr(compute, "FORWARD_GRACE_S", 0.2)
    clock = ManualClock()
    monkeypatch.setattr(compute, "time", clock)  # after_grace's clock only (compute's one use)
    polls = []
    started, superseded = threading.Event(), threading.Event()

    def slow_forward(config, should_stop):
        if config.seed == 1:
            started.set()
            superseded.wait(10)
            start = clock.ms
            while clock.ms - start < 10_000:  # 10 s of 5 ms steps
                if should_stop():
                    polls.append((clock.ms - start) / 1000)
                    raise Cancelled("forward pass")
                clock.ms += 5
        return forward(config, should_stop=should_stop)

    worker = make_worker(compute=slow_forward)
    delivered = []
    worker.finished.connect(delivered.append)
    worker.submit(AttentionConfig(seed=1))
    assert started.wait(10)
    worker.submit(AttentionConfig(seed=2))  # supersedes at once: the forward still runs 0.2 s
    superseded.set()
    qtbot.waitUntil(lambda: len(delivered) == 1, timeout=10_000)
    assert delivered[0].config.seed == 2
    assert polls == [0.2]  # it stopped at its first poll once the 0.2 s grace had passed


def test_a_short_superseded_forward_still_shows(qtbot, make_worker):
    """The grace period: a forward that finishes within it is delivered although superseded
    (the picture keeps moving during a drag)."""
    gate, started, first_shown = threading.Event(), threading.Event(), threading.Event()

    def gated(config, should_stop):
        if config.seed == 1:
            started.set()
            gate.wait(10)
        else:  # (else the channel may drop seed 1 as overtaken before the GUI looked)
            first_shown.wait(10)
        return forward(config, should_stop=should_stop)

    worker = make_worker(compute=gated)
    delivered = []
    worker.finished.connect(delivered.append)
    worker.finished.connect(lambda _outcome: first_shown.set())
    worker.submit(AttentionConfig(seed=1))
    assert started.wait(10)
    worker.submit(AttentionConfig(seed=2))
    gate.set()
    qtbot.waitUntil(lambda: len(delivered) == 2, timeout=10_000)
    assert [o.config.seed for o in delivered] == [1, 2]


def test_with_the_kv_tab_open_the_picture_comes_before_the_trace(qtbot):
    state = AppState(AttentionConfig(seed=3))
    try:
        qtbot.waitUntil(state.is_idle, timeout=20_000)
        events = []
        state.result_changed.connect(lambda r: events.append(("result", r.config.seed)))
        state.kv_trace_changed.connect(lambda t: events.append(("trace", t.config.seed)))
        state.kv_enabled = True  # the result is current: only the trace is computed
        qtbot.waitUntil(lambda: ("trace", 3) in events, timeout=20_000)
        assert events == [("trace", 3)]
        state.update(seed=4)
        qtbot.waitUntil(lambda: ("trace", 4) in events, timeout=20_000)
        assert events[1:] == [("result", 4), ("trace", 4)]  # the picture first, once each
        trace = state.kv_trace  # the cached last row is the full causal pass's, up to rounding
        assert_close(trace.steps[-1].output, trace.full.output[-1], reduction=trace.config.d_model)
    finally:
        state.shutdown()
