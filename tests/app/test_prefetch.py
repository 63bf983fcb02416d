"""Neighbouring seeds' weights are drawn ahead on the idle compute thread (app/prefetch.py),
never in the way of a request that needs other weights."""

from __future__ import annotations

from explorer.app.course.compute import ComputeWorker
from explorer.app.course.prefetch import MAX_NUMBERS, neighbours, prefetch, weight_key
from explorer.core import AttentionConfig
from explorer.core.weights import draw_weights


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
    draw_weights.cache_clear()
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
    draw_weights.cache_clear()
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
    draw_weights.cache_clear()
    keys = neighbours(config(80, n=5, d=16))
    other = weight_key(config(99, n=5, d=16))
    assert prefetch(keys, lambda: other, lambda: True, lambda: False) == 0
    assert not is_cached(keys[0])


def test_a_waiting_request_for_the_same_weights_lets_the_draw_finish():
    draw_weights.cache_clear()
    keys = neighbours(config(80, n=5, d=16))
    assert prefetch(keys, lambda: keys[0], lambda: True, lambda: False) == 1  # then stops
    assert is_cached(keys[0])


def test_a_stale_prefetch_draws_nothing():
    draw_weights.cache_clear()
    keys = neighbours(config(70, n=5, d=16))
    assert prefetch(keys, lambda: None, lambda: False, lambda: True) == 0
