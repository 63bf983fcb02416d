"""Neighbouring seeds' weights are drawn ahead on the prefetch thread beside the forward pass
(app/prefetch.py), never in the way of a request that needs other weights."""

from __future__ import annotations

import threading
import time

import numpy as np

from explorer.app.course.compute import ComputeWorker
from explorer.app.course.prefetch import MAX_NUMBERS, neighbours, prefetch, weight_key
from explorer.core import AttentionConfig
from explorer.core import weights as weights_module
from explorer.core.weights import clear_draws, draw_weights, draw_weights_polling, draws_waiting


def config(seed, n=7, d=12):
    return AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=2, seed=seed)


def is_cached(key) -> bool:
    before = draw_weights.cache_info().hits
    draw_weights(*key)
    return draw_weights.cache_info().hits == before + 1


def test_neighbours_are_the_next_seed_then_the_previous():
    assert [k[0] for k in neighbours(config(5))] == [6, 4]
    assert [k[0] for k in neighbours(config(0))] == [1]
    assert neighbours(config(5))[0] == weight_key(config(6))
    assert neighbours(AttentionConfig(tokens=("a",) * 8, d_model=1024, n_heads=2, seed=1)) == []
    assert 512 * 512 + 4 * 512 * 512 <= MAX_NUMBERS


def test_worker_draws_both_neighbours_after_a_result():
    clear_draws()
    worker = ComputeWorker()
    try:
        worker.submit(config(41, n=9, d=20))
        assert worker.wait_idle(30)
        assert worker.prefetched == 2
        assert is_cached(weight_key(config(42, n=9, d=20)))
        assert is_cached(weight_key(config(40, n=9, d=20)))
    finally:
        worker.stop(0)


def test_worker_without_prefetch_draws_nothing_more(monkeypatch):
    clear_draws()
    monkeypatch.setattr(ComputeWorker, "prefetch", False)
    worker = ComputeWorker()
    try:
        worker.submit(config(61, n=9, d=20))
        assert worker.wait_idle(30)
        assert worker.prefetched == 0
        assert not is_cached(weight_key(config(62, n=9, d=20)))
    finally:
        worker.stop(0)


def test_a_waiting_request_for_other_weights_stops_the_prefetch():
    clear_draws()
    keys = neighbours(config(80, n=5, d=16))
    other = weight_key(config(99, n=5, d=16))
    assert prefetch(keys, lambda: other, lambda: True, lambda: False) == 0
    assert not is_cached(keys[0])


def test_a_waiting_request_for_the_same_weights_lets_the_draw_finish():
    clear_draws()
    keys = neighbours(config(80, n=5, d=16))
    assert prefetch(keys, lambda: keys[0], lambda: True, lambda: False) == 1  # then stops
    assert is_cached(keys[0])


def test_a_stale_prefetch_draws_nothing():
    clear_draws()
    keys = neighbours(config(70, n=5, d=16))
    assert prefetch(keys, lambda: None, lambda: False, lambda: True) == 0


def test_the_wanted_weights_are_drawn_to_the_end_even_by_a_stale_job():
    clear_draws()
    keys = neighbours(config(90, n=5, d=16))
    # a newer request made this job stale and another thread waits, but it wants this draw
    assert prefetch(keys, lambda: keys[0], lambda: True, lambda: True) == 1
    assert is_cached(keys[0])


def test_a_draw_in_progress_on_another_thread_is_waited_for_not_repeated():
    clear_draws()
    key = (123, 5, 16, "course")
    entered, release = threading.Event(), threading.Event()

    def slow_stop() -> bool:  # holds the first thread inside its draw until released
        entered.set()
        release.wait(10)
        return False

    got = {}
    first = threading.Thread(target=lambda: got.setdefault(
        "first", draw_weights_polling(*key, should_stop=slow_stop)))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=lambda: got.setdefault("second", draw_weights(*key)))
    second.start()
    assert wait_until(draws_waiting)  # the second waits for the first's draw
    release.set()
    first.join(10)
    second.join(10)
    assert got["first"] is got["second"]  # one draw, not two
    rng = np.random.RandomState(123)
    assert np.array_equal(got["second"].x, rng.randn(5, 16))
    assert not draws_waiting()


def wait_until(condition, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.001)
    return condition()


def no_worker_drawing() -> bool:
    """A worker an earlier test stopped without waiting (stop(0)) may still be drawing: wait."""
    return wait_until(lambda: not any(t.name in ("weight-prefetch", "attention-compute")
                                      for t in threading.enumerate()), 30)


def test_a_thread_waiting_for_the_draw_just_ended_does_not_stop_the_next_prefetch():
    """Regression (issue 26): the prefetch of seed + 1 ended, the compute thread waiting for it
    had not got the gate yet, and the next job (seed + 2) gave way to it before it began: every
    other seed was drawn on the compute thread, in the way of its forward pass.

    Two phases, because a lock does not hand itself to its waiters in order: with a taker and
    a needer both queued, either may get the gate first (and the needer's draw replaces the
    newest one). So the taker is first checked alone, then beside a needer."""
    assert no_worker_drawing()
    clear_draws()
    drawn, other = (124, 5, 16, "course"), (125, 5, 16, "course")
    first = draw_weights(*drawn)  # the newest draw (what a prefetch just finished)
    got = {}

    def queue(name, key):  # a thread that misses the cache and waits at the gate for `key`
        thread = threading.Thread(target=lambda: got.setdefault(name, draw_weights(*key)))
        thread.start()
        assert wait_until(lambda: key in weights_module._waiting)
        return thread

    draw_weights.cache_clear()  # so the next caller misses the cache and queues at the gate
    with weights_module._gate:  # the prefetch thread still holds it
        taker = queue("taker", drawn)
        assert not draws_waiting()  # it will take the draw that has just ended
    taker.join(10)
    assert got["taker"] is first  # taken, not drawn again

    draw_weights.cache_clear()
    with weights_module._gate:
        again = queue("again", drawn)
        assert not draws_waiting()
        needer = queue("needer", other)
        assert draws_waiting()  # this one needs a draw: the prefetch gives way
    again.join(10)
    needer.join(10)
    assert np.array_equal(got["again"].x, first.x)  # taken or drawn again, whichever went first
    assert np.array_equal(got["needer"].x, np.random.RandomState(125).randn(5, 16))
    assert not draws_waiting()


def test_a_prefetch_that_gave_way_begins_the_draw_again_once_the_other_is_done():
    clear_draws()
    keys = neighbours(config(150, n=5, d=16))
    other = weight_key(config(99, n=5, d=16))
    waiting = iter([True])  # one thread waits, once
    gave_way = []

    def give_way(stale) -> bool:
        gave_way.append(stale())
        return True  # the other draw is done

    assert prefetch(keys, lambda: other, lambda: next(waiting, False), lambda: False, give_way) == 2
    assert gave_way == [False]
    assert is_cached(keys[0]) and is_cached(keys[1])


def test_a_prefetch_that_gave_way_ends_when_its_job_turns_stale_meanwhile():
    clear_draws()
    keys = neighbours(config(160, n=5, d=16))
    other = weight_key(config(99, n=5, d=16))
    assert prefetch(keys, lambda: other, lambda: True, lambda: False, lambda stale: False) == 0
    assert not is_cached(keys[0])


def test_waiting_for_waiting_draws_ends_when_they_are_drawn_or_when_stopped():
    from explorer.core.weights import wait_while_draws_waiting
    assert no_worker_drawing()
    clear_draws()
    key = (170, 5, 16, "course")
    result = {}
    with weights_module._gate:
        drawer = threading.Thread(target=lambda: draw_weights(*key))
        drawer.start()
        assert wait_until(draws_waiting)
        assert wait_while_draws_waiting(lambda: True) is False  # stopped: does not wait
        polls = []  # stops at its third poll: it kept waiting while the draw had not begun
        assert wait_while_draws_waiting(lambda: polls.append(1) or len(polls) > 2, 0.001) is False
        assert len(polls) == 3
        waiter = threading.Thread(target=lambda: result.setdefault(
            "waited", wait_while_draws_waiting(lambda: False)))
        waiter.start()
    drawer.join(10)
    waiter.join(10)
    assert result["waited"] is True and not draws_waiting()
