"""TopicRunner: work runs off the GUI thread, only the newest request is delivered."""

import threading

import pytest

from explorer.core import ConfigError
from explorer.gui.topics.runner import TopicRunner

WAIT_MS = 10_000


@pytest.fixture
def runner(qtbot):
    r = TopicRunner()
    yield r
    r.wait()


def all_handled(runner: TopicRunner) -> bool:
    """Nothing of `runner`'s can arrive any more: no job of it waits or runs, and every result it
    posted to the GUI thread has been handled there (delivered or dropped) — its Channel's
    is_idle; TopicRunner itself only tells whether the newest request is answered."""
    return runner._channel is None or runner._channel.is_idle()


def test_result_arrives_in_the_gui_thread_from_another_thread(qtbot, runner):
    seen = {}

    def job(x):
        seen["thread"] = threading.current_thread()
        return x * 2

    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as blocker:
        runner.submit(job, 21)
    assert blocker.args == [42]
    assert seen["thread"] is not threading.main_thread()
    assert not runner.is_busy()


def test_only_the_latest_request_is_delivered(qtbot, runner):
    gate, started = threading.Event(), threading.Event()
    delivered, ran = [], []
    runner.finished.connect(delivered.append)

    def slow(x):
        ran.append(x)
        started.set()
        gate.wait(5)
        return x

    runner.submit(slow, 1)          # runs, blocks on the gate
    assert started.wait(5)
    runner.submit(slow, 2)          # queued, then superseded: never runs
    runner.submit(lambda x: x, 3)   # the newest
    gate.set()
    qtbot.waitUntil(lambda: delivered == [3], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: all_handled(runner), timeout=WAIT_MS)  # job 1's result too
    assert delivered == [3] and ran == [1]


def test_config_error_becomes_a_message(qtbot, runner):
    def bad():
        raise ConfigError("d_ff must be between 1 and 16384, got 0")

    with qtbot.waitSignal(runner.failed, timeout=WAIT_MS) as blocker:
        runner.submit(bad)
    assert blocker.args == ["d_ff must be between 1 and 16384, got 0"]


def test_unexpected_exception_is_reported_not_raised(qtbot, runner, capsys):
    with qtbot.waitSignal(runner.failed, timeout=WAIT_MS) as blocker:
        runner.submit(lambda: 1 / 0)
    assert blocker.args[0].startswith("ZeroDivisionError")


def stoppable_job(started, poke, observed):
    """A cancellable job that runs until it sees that it should stop: it looks at its token each
    time the test pokes it (after the change that should stop it), and gives up after WAIT_MS
    without a poke."""
    def long_job(should_stop):
        started.set()
        while poke.wait(WAIT_MS / 1000):
            poke.clear()
            if should_stop():
                observed["stopped"] = True
                return "stopped"
        return "finished"
    return long_job


def test_cancellable_job_sees_that_it_is_stale(qtbot, runner):
    started, poke, observed = threading.Event(), threading.Event(), {}
    runner.submit_cancellable(stoppable_job(started, poke, observed))
    assert started.wait(5)
    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as blocker:
        runner.submit(lambda: "newer")
        poke.set()  # the running job looks at its token now
    assert blocker.args == ["newer"]
    assert observed.get("stopped")


def test_cancel_drops_the_running_result(qtbot, runner):
    gate, started = threading.Event(), threading.Event()
    delivered = []
    runner.finished.connect(delivered.append)
    runner.submit(lambda: started.set() or gate.wait(5) and "late")
    assert started.wait(5)  # running
    runner.cancel()
    assert not runner.is_busy()
    gate.set()
    qtbot.waitUntil(lambda: all_handled(runner), timeout=WAIT_MS)  # its result came and went
    assert delivered == []


def test_shutdown_does_not_wait_and_stops_a_cancellable_job(qtbot, runner):
    from explorer.gui.topics import runner as runner_mod
    started, poke, observed = threading.Event(), threading.Event(), {}
    delivered = []
    runner.finished.connect(delivered.append)
    ran = []
    other = TopicRunner()
    runner.submit_cancellable(stoppable_job(started, poke, observed))
    closing = runner_mod.topic_thread()
    assert started.wait(5)
    other.submit(ran.append, "queued")  # dropped by the shutdown, never runs
    assert runner_mod.shutdown_topic_pool() is False  # returns at once: the job waits for its poke
    poke.set()  # the running job looks at its token now
    assert closing.wait_idle(10)
    qtbot.waitUntil(lambda: all_handled(runner) and all_handled(other), timeout=WAIT_MS)
    assert observed.get("stopped") and delivered == [] and ran == []
    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as blocker:  # a fresh thread
        runner.submit(lambda: "after")
    assert blocker.args == ["after"]


def test_shutdown_abandons_a_job_that_cannot_stop(qtbot, runner):
    from explorer.gui.topics import runner as runner_mod
    gate, started = threading.Event(), threading.Event()
    delivered = []
    runner.finished.connect(delivered.append)
    runner.submit(lambda: started.set() or gate.wait(10) and "late")
    assert started.wait(5)
    closing = runner_mod.topic_thread()
    assert runner_mod.shutdown_topic_pool() is False  # still running: abandoned, not awaited
    gate.set()
    assert closing.wait_idle(10)
    qtbot.waitUntil(lambda: all_handled(runner), timeout=WAIT_MS)
    assert delivered == []
