"""Deterministic inputs and weights, drawn the course's way.

The course (Lab 3) seeds the legacy generator and draws, in this order:
X = randn(n, d_model), then W_Q, W_K, W_V, W_O = randn(d_model, d_model) * 0.5.
`np.random.RandomState(seed)` yields the same stream without touching global state.
Draws are cached: toggling scaling, a mask or the backend never redraws.

init="course" is that convention. Its entries of q have variance d_model / 4, so at
large d_model softmax saturates even after ÷√d_head. init="unit" rescales the very
same draws to entries of variance 1 / d_model (as real models initialise), so q.k has
variance d_head and ÷√d_head brings it back to 1: the effect the course describes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from .cancel import StopCheck, check
from .config import INITS, QT_TRANSLATE_NOOP, ConfigError

WEIGHT_SCALE = 0.5


def weight_std(d_model: int, init: str = "course") -> float:
    """Standard deviation of one projection-matrix entry under `init`."""
    if init == "course":
        return WEIGHT_SCALE
    if init == "unit":
        return 1.0 / np.sqrt(d_model)
    raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown weight init {value} (choose {choices})"),
                         value=repr(init), choices=", ".join(INITS))


@dataclass(frozen=True, eq=False)  # hashed by identity: draws are cached, so one object per draw
class Weights:
    """Read-only arrays drawn from one seed (float64 unless cast)."""

    x: np.ndarray    # (n, d)
    w_q: np.ndarray  # (d, d)
    w_k: np.ndarray  # (d, d)
    w_v: np.ndarray  # (d, d)
    w_o: np.ndarray  # (d, d)

    def as_dtype(self, dtype: str) -> "Weights":
        if dtype == "float64":
            return self
        return _cast(self, dtype)


_polling = threading.local()  # should_stop of the draw running on this thread (see draw_weights_polling)

# One draw at a time (the compute thread and the prefetch thread both draw): a thread that
# misses the cache while another draws the same key waits for it and takes its result
# (`_last`) instead of drawing it again. `_waiting` counts the threads waiting for the gate
# by key: the prefetch gives way to those whose weights are not drawn yet
# (app/course/prefetch.py).
_gate = threading.Lock()
_waiting_lock = threading.Lock()
_waiting_changed = threading.Condition(_waiting_lock)  # notified when _waiting or _last change
_waiting: dict[tuple, int] = {}  # key -> threads waiting at the gate to draw it
_last: dict[tuple, "Weights"] = {}  # the newest draw only (the same object lru_cache holds)


def draws_waiting() -> bool:
    """A thread waits at the gate for weights not drawn yet (any thread).

    One waiting for the draw that has just ended does not count: it takes that draw as soon as
    it gets the gate. (Counting it made the prefetch skip every other seed: the draw of
    seed + 1 ended, the compute thread waiting for it had not yet been scheduled, and the next
    job, seed + 2, gave way to it before it began.)"""
    with _waiting_lock:
        return _needs_draw()


def _needs_draw() -> bool:  # with _waiting_lock held
    return any(key not in _last for key in _waiting)


def wait_while_draws_waiting(should_stop: Callable[[], bool], poll_s: float = 0.05) -> bool:
    """Block until no thread waits for weights not drawn yet (`draws_waiting`); False as soon
    as `should_stop()` says so (polled every `poll_s`). The prefetch gives way with it."""
    with _waiting_changed:
        while _needs_draw():
            if should_stop():
                return False
            _waiting_changed.wait(poll_s)
    return not should_stop()


def clear_draws() -> None:
    """Forget every cached draw and cast (tests, the soak's same-state measurement)."""
    draw_weights.cache_clear()
    _cast.cache_clear()
    with _waiting_lock:
        _last.clear()


def draw_weights_polling(seed: int, n_tokens: int, d_model: int, init: str = "course",
                         should_stop: StopCheck = None) -> Weights:
    """`draw_weights`, polling `should_stop` between the five draws of a cache miss.

    At d_model 2048 a miss draws 17-19 million normals (about a second); a cancelled draw
    raises Cancelled and caches nothing. The check rides on a thread-local so that the
    cache key (seed, n, d, init) stays what it is.
    """
    _polling.should_stop = should_stop
    try:
        return draw_weights(seed, n_tokens, d_model, init)
    finally:
        _polling.should_stop = None


@lru_cache(maxsize=4)
def draw_weights(seed: int, n_tokens: int, d_model: int, init: str = "course") -> Weights:
    """X and the four projection matrices for (seed, n, d), in the course's order."""
    key = (seed, n_tokens, d_model, init)
    with _waiting_lock:
        _waiting[key] = _waiting.get(key, 0) + 1
    with _gate:
        with _waiting_lock:
            _waiting[key] -= 1
            if not _waiting[key]:
                del _waiting[key]
            _waiting_changed.notify_all()
        if key in _last:  # drawn by another thread while this one waited
            return _last[key]
        weights = _draw(seed, n_tokens, d_model, init)
        with _waiting_lock:  # draws_waiting() reads both
            _last.clear()
            _last[key] = weights
            _waiting_changed.notify_all()
        return weights


def _draw(seed: int, n_tokens: int, d_model: int, init: str) -> Weights:
    rng = np.random.RandomState(seed)
    should_stop = getattr(_polling, "should_stop", None)
    x = rng.randn(n_tokens, d_model)  # (n, d)
    std = weight_std(d_model, init)
    mats = []
    for _ in range(4):
        check(should_stop, "weight draw")
        mats.append(rng.randn(d_model, d_model) * std)  # (d, d)
    for arr in (x, *mats):
        arr.setflags(write=False)
    return Weights(x, *mats)


@lru_cache(maxsize=4)
def _cast(weights: Weights, dtype: str) -> Weights:
    arrays = [np.ascontiguousarray(a, dtype=dtype) for a in
              (weights.x, weights.w_q, weights.w_k, weights.w_v, weights.w_o)]
    for arr in arrays:
        arr.setflags(write=False)
    return Weights(*arrays)
