"""The one background runner (app.runner), without Qt: latest request wins, stale results dropped,
cancellable jobs stop, close never waits. Results are handed over at once here (no GUI poster)."""

import threading

import pytest

from explorer.app import dispatch
from explorer.app.runner import Runner

WAIT_S = 10


@pytest.fixture
def runner(monkeypatch):
    monkeypatch.setattr(dispatch, "_poster", None)  # deliver on the runner thread, no event loop
    r = Runner("test-runner")
    yield r
    r.close(WAIT_S)


def collect(runner, **kw):
    got = []
    done = threading.Event()

    def deliver(generation, value, error):
        got.append((generation, value, error))
        done.set()
    return runner.channel(deliver, **kw), got, done


def test_a_stale_result_is_dropped_and_the_newest_delivered(runner):
    channel, got, done = collect(runner)
    gate, started = threading.Event(), threading.Event()

    def slow(x):
        started.set()
        gate.wait(WAIT_S)
        return x

    first = channel.submit(slow, "old")
    assert started.wait(WAIT_S)
    channel.submit(lambda x: x, "skipped")       # replaced before it starts: never runs
    newest = channel.submit(lambda x: x, "new")
    gate.set()
    assert runner.wait_idle(WAIT_S) and done.wait(WAIT_S)
    assert newest == first + 2
    assert got == [(newest, "new", None)]          # "old" finished after a newer submit: dropped
    assert not channel.is_busy() and channel.is_idle()


def test_keep_superseded_shows_an_older_result_until_a_newer_one_has_finished(runner):
    channel, got, _ = collect(runner, keep_superseded=True)
    gate, started = threading.Event(), threading.Event()
    channel.submit(lambda: started.set() or gate.wait(WAIT_S) and "drag")
    assert started.wait(WAIT_S)
    channel.submit(lambda: "release")
    gate.set()
    assert runner.wait_idle(WAIT_S)
    assert [value for _, value, _ in got] == ["drag", "release"]


def test_a_cancellable_job_stops_when_a_newer_request_arrives(runner):
    channel, got, done = collect(runner)
    started, submitted, polls = threading.Event(), threading.Event(), []

    def long_job(should_stop):
        started.set()
        for _ in range(1000):
            polls.append(1)
            if should_stop():
                return "stopped"
            submitted.wait(WAIT_S)  # its work between polls lasts until the newer request exists
        return "ran to the end"

    channel.submit(long_job, cancellable=True)
    assert started.wait(WAIT_S)
    newest = channel.submit(lambda: "newer")
    submitted.set()
    assert done.wait(WAIT_S) and runner.wait_idle(WAIT_S)
    assert got == [(newest, "newer", None)]
    assert len(polls) < 1000                       # it stopped early, it did not run to the end


def test_close_with_a_job_running_returns_at_once_and_delivers_nothing(runner):
    channel, got, _ = collect(runner)
    gate, started = threading.Event(), threading.Event()
    channel.submit(lambda: started.set() or gate.wait(WAIT_S) and "late")
    assert started.wait(WAIT_S)
    assert runner.close(timeout=0) is False        # still running: abandoned, not awaited
    assert runner.is_busy(channel)                 # returned while the job still runs
    gate.set()
    assert runner.wait_idle(WAIT_S)
    assert got == [] and channel.submit(lambda: "refused") == channel.generation


def test_a_failing_job_gives_a_one_line_error_and_the_thread_lives_on(runner):
    channel, got, _ = collect(runner)
    channel.submit(lambda: 1 / 0)
    assert runner.wait_idle(WAIT_S)
    second = channel.submit(lambda: "fine")
    assert runner.wait_idle(WAIT_S)
    assert got[0][2] == "ZeroDivisionError: division by zero"
    assert got[-1] == (second, "fine", None)


def test_the_higher_priority_channel_runs_first(runner):
    order = []
    low, _, _ = collect(runner)
    high, _, _ = collect(runner, priority=1)
    gate, started = threading.Event(), threading.Event()

    def hold(timeout):
        started.set()
        gate.wait(timeout)

    low.submit(hold, WAIT_S)                       # occupies the thread
    assert started.wait(WAIT_S)  # running before the others queue (else the next low supersedes it)
    low.submit(order.append, "low")
    high.submit(order.append, "high")
    gate.set()
    assert runner.wait_idle(WAIT_S)
    assert order == ["high", "low"]
