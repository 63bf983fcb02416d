"""TrainingSession on a real Runner, no Qt: start to the end, pause, step, reset, errors.

As in the window, results are handed to the main (test) thread: a poster queues them and
`pump` runs them here, so `deliver` never races the test's own calls.
"""

import queue
import time

import pytest

pytest.importorskip("torch")

from explorer.app import dispatch  # noqa: E402
from explorer.app.runner import Runner  # noqa: E402
from explorer.app.training import TrainingSession  # noqa: E402
from explorer.core.training import TrainConfig, Trainer  # noqa: E402

SMALL = TrainConfig(steps=40, log_every=10, snapshot_every=20, batch=8, d_model=16, n_heads=2, seed=2)


@pytest.fixture
def main_queue():
    """Deliveries queued for this thread; the poster installed before (Qt's, once explorer.gui
    was imported by another test) is put back afterwards, or later GUI tests would get results
    on the runner's thread."""
    previous = dispatch._poster
    q = queue.Queue()
    dispatch.install_main_thread_poster(q.put)
    yield q
    dispatch.install_main_thread_poster(previous)


@pytest.fixture
def runner(main_queue):
    r = Runner("test-training")
    yield r
    r.close(5.0)


def pump(q, until=lambda: False, seconds=60.0):
    """Run posted deliveries on this thread until `until()` holds or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        try:
            q.get(timeout=0.01)()
        except queue.Empty:
            pass
    return until()


def test_start_trains_to_the_end_in_chunks_with_the_same_curves_as_a_plain_trainer(runner, main_queue):
    session = TrainingSession(runner, SMALL)
    deliveries, statuses = [], []
    session.progress.connect(lambda records, snapshots: deliveries.append((records, snapshots)))
    session.status_changed.connect(statuses.append)
    session.start()
    assert pump(main_queue, lambda: session.status == "done")
    plain = Trainer(SMALL)
    list(plain.run())
    assert [r.step for r in session.records] == [0, 10, 20, 30, 40]
    assert [r.heldout_loss for r in session.records] == [r.heldout_loss for r in plain.records]
    assert [s.step for s in session.snapshots] == [0, 20, 40]
    assert sum(len(r) for r, _ in deliveries) == 5  # each record delivered once
    assert statuses == ["running", "done"]


def test_step_trains_one_log_interval_and_pauses(runner, main_queue):
    session = TrainingSession(runner, SMALL)
    session.step()
    assert pump(main_queue, lambda: session.trainer is not None)
    assert session.status == "paused" and session.trainer.step_count == 10
    assert [r.step for r in session.records] == [0, 10]
    session.step(5)
    assert pump(main_queue, lambda: session.trainer.step_count == 15)


def test_pause_stops_between_chunks_and_start_resumes_the_same_run(runner, main_queue):
    session = TrainingSession(runner, SMALL.replace(steps=5000, log_every=100, snapshot_every=500))
    session.start()
    assert pump(main_queue, lambda: session.trainer is not None and session.trainer.step_count >= 5)
    session.pause()
    assert session.status == "paused"
    # the chunk in flight ends (≤ 0.1 s) and is delivered, and no next one is queued (a chunk
    # queued after it would keep the session busy: the pump would time out)
    assert pump(main_queue, session.is_idle)
    paused_at = session.trainer.step_count
    assert not runner.is_busy() and paused_at < 5000  # nothing runs (or waits to) while paused
    trainer = session.trainer
    session.start()
    assert pump(main_queue, lambda: trainer.step_count > paused_at)
    session.pause()
    assert pump(main_queue, session.is_idle)
    assert session.trainer is trainer  # the same run went on


def test_reset_forgets_the_run_and_a_new_config_starts_from_its_seed(runner, main_queue):
    session = TrainingSession(runner, SMALL)
    session.step()
    assert pump(main_queue, lambda: session.trainer is not None)
    session.set_config(SMALL.replace(seed=3))
    assert session.status == "idle" and session.records == [] and session.trainer is None
    session.start()
    assert pump(main_queue, lambda: session.status == "done")
    other = Trainer(SMALL.replace(seed=3))
    list(other.run())
    assert [r.heldout_loss for r in session.records] == [r.heldout_loss for r in other.records]


def test_reset_while_running_drops_the_old_run(runner, main_queue):
    session = TrainingSession(runner, SMALL.replace(steps=5000, log_every=100))
    session.start()
    assert pump(main_queue, lambda: session.trainer is not None)
    old = session.trainer
    session.reset()
    assert pump(main_queue, session.is_idle)  # the old chunk and the reset's empty job handed over
    assert session.trainer is None and session.records == [] and session.status == "idle"
    # no chunk of the old run runs or waits: its chunk saw the newer request and stopped, and
    # nothing will step the old trainer again
    assert not runner.is_busy()


def test_a_missing_device_is_one_error_line_and_the_session_stays_idle(runner, main_queue):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    session = TrainingSession(runner, SMALL.replace(device="cuda"))
    errors = []
    session.error.connect(errors.append)
    session.start()
    assert pump(main_queue, lambda: errors)
    assert session.status == "idle" and len(errors) == 1 and "CUDA was requested" in errors[0]
