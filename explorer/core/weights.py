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
# (`_last`) instead of drawing it again. `_waiting` counts threads waiting for the gate: the
# prefetch gives way to them (app/course/prefetch.py).
_gate = threading.Lock()
_waiting_lock = threading.Lock()
_waiting = 0
_last: dict[tuple, "Weights"] = {}  # the newest draw only (the same object lru_cache holds)


def draws_waiting() -> bool:
    """A thread waits to draw weights (any thread)."""
    return _waiting > 0


def clear_draws() -> None:
    """Forget every cached draw and cast (tests, the soak's same-state measurement)."""
    draw_weights.cache_clear()
    _cast.cache_clear()
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
    global _waiting
    key = (seed, n_tokens, d_model, init)
    with _waiting_lock:
        _waiting += 1
    with _gate:
        with _waiting_lock:
            _waiting -= 1
        if key in _last:  # drawn by another thread while this one waited
            return _last[key]
        weights = _draw(seed, n_tokens, d_model, init)
        _last.clear()
        _last[key] = weights
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
