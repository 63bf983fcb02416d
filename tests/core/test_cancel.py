"""Cancellable forward pass and KV trace: `should_stop` is polled, `Cancelled` ends the job,
and the chunking that makes polling possible changes no number (compared bit for bit)."""

import math

import numpy as np
import pytest

from explorer.core import AttentionConfig, Cancelled, forward, run_kv_cache
from explorer.core.backends import numpy_ops
from explorer.core.masks import build_mask, masked_softmax
from explorer.core.weights import draw_weights

from attention_rounding import rule
from numeric import assert_close

RESULT_ARRAYS = ("x_in", "q", "k", "v", "qh", "kh", "vh", "raw_scores", "scores", "weights",
                 "head_outputs", "concat", "output", "mask", "empty_rows")

CONFIGS = [
    AttentionConfig(tokens=tuple(f"t{i}" for i in range(9)), d_model=10, n_heads=5, seed=3),
    AttentionConfig(tokens=tuple(f"t{i}" for i in range(12)), d_model=12, n_heads=3, seed=4,
                    causal=True, padding=frozenset({10, 11}), positional=True),
    AttentionConfig(tokens=tuple(f"t{i}" for i in range(20)), d_model=32, n_heads=8, seed=5,
                    scaled=False, dtype="float32", padding=frozenset({0})),
    AttentionConfig(tokens=tuple(f"t{i}" for i in range(7)), d_model=8, n_heads=1, seed=6,
                    causal=True),
]


class StopAfter:
    """should_stop that says False `k` times, then True; counts its polls."""

    def __init__(self, k: int):
        self.k, self.polls = k, 0

    def __call__(self) -> bool:
        self.polls += 1
        return self.polls > self.k


def assert_same_bits(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert a.tobytes() == b.tobytes(), what


def assert_same_result(a, b) -> None:
    for name in RESULT_ARRAYS:
        assert_same_bits(getattr(a, name), getattr(b, name), name)
    for name, value in vars(a.stats).items():
        assert_same_bits(value, getattr(b.stats, name), f"stats.{name}")


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.n_tokens}x{c.d_model}x{c.n_heads}")
def test_chunked_forward_equals_one_shot_bit_for_bit(config, monkeypatch):
    monkeypatch.setattr(numpy_ops, "CHUNK_CELLS", 1 << 40)  # every head in one chunk
    one_shot = forward(config)
    monkeypatch.setattr(numpy_ops, "CHUNK_CELLS", 1)  # one head a chunk (stats: two)
    chunked = forward(config, should_stop=lambda: False)
    assert_same_result(one_shot, chunked)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.n_tokens}x{c.d_model}x{c.n_heads}")
def test_chunked_weights_equal_the_unchunked_formula(config, monkeypatch):
    """The weights as the pre-chunking code computed them, all heads in one expression."""
    monkeypatch.setattr(numpy_ops, "CHUNK_CELLS", 1)
    result = forward(config)
    allowed = build_mask(config.n_tokens, config.n_tokens, config.causal, config.padding)
    raw = result.qh @ result.kh.transpose(0, 2, 1)  # (h, n, n)
    scores = raw / math.sqrt(config.d_head) if config.scaled else raw
    assert_same_bits(result.weights, masked_softmax(scores, allowed), "weights")
    assert_same_bits(result.head_outputs, masked_softmax(scores, allowed) @ result.vh, "head_outputs")


def test_head_chunks_cover_every_head_once():
    for n_heads in range(1, 18):
        for cells in (1, 3, 1 << 19, 1 << 20, 1 << 22):
            for min_heads in (1, 2):
                chunks = numpy_ops.head_chunks(n_heads, cells, min_heads)
                covered = [h for s in chunks for h in range(s.start, s.stop)]
                assert covered == list(range(n_heads))
                assert all(s.stop - s.start >= min(min_heads, n_heads) for s in chunks)


@pytest.mark.parametrize("k", [0, 1, 3, 6])
def test_forward_stops_at_the_first_true_poll(k, monkeypatch):
    monkeypatch.setattr(numpy_ops, "CHUNK_CELLS", 1)
    config = CONFIGS[2].replace(seed=101 + k)  # a seed not drawn yet: the draw polls too
    stop = StopAfter(k)
    with pytest.raises(Cancelled, match="cancelled"):
        forward(config, should_stop=stop)
    assert stop.polls == k + 1  # nothing ran (and nothing polled) after the first True
    never = StopAfter(10**9)
    forward(config, should_stop=never)
    assert never.polls > k + 1  # a full pass polls more often than that


def test_kv_trace_stops_early():
    config = CONFIGS[1]
    forward(config)  # the draw is cached from here on: every run below polls the same way
    never = StopAfter(10**9)
    run_kv_cache(config, should_stop=never)
    total = never.polls
    assert total >= config.n_tokens  # at least once per step
    for k in (0, 1, total // 2, total - 2, total - 1):
        stop = StopAfter(k)
        with pytest.raises(Cancelled, match="KV-cache trace|forward pass|weight draw"):
            run_kv_cache(config, should_stop=stop)
        assert stop.polls == k + 1, k  # nothing polled (nothing ran) after the first True
    with pytest.raises(Cancelled, match="KV-cache trace"):  # late: inside the steps
        run_kv_cache(config, should_stop=StopAfter(total - 1))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.n_tokens}x{c.d_model}x{c.n_heads}")
def test_kv_trace_never_stopped_is_unchanged(config):
    plain = run_kv_cache(config)
    polled = run_kv_cache(config, should_stop=lambda: False)
    assert_same_bits(plain.keys, polled.keys, "keys")
    assert_same_bits(plain.values, polled.values, "values")
    assert len(plain.steps) == len(polled.steps) == config.n_tokens
    for a, b in zip(plain.steps, polled.steps):
        assert a.to_dict() == b.to_dict()
        for name in ("q", "weights", "output"):
            assert_same_bits(getattr(a, name), getattr(b, name), name)
    assert_same_result(plain.full, polled.full)
    for t, step in enumerate(polled.steps):  # and the cache still matches the full causal pass
        assert_close(step.output, polled.full.output[t], **rule(config, polled.full, "output"))


def test_a_cancelled_draw_caches_nothing():
    config = AttentionConfig(tokens=("a", "b", "c"), d_model=8, n_heads=2, seed=909)
    with pytest.raises(Cancelled):
        forward(config, should_stop=StopAfter(1))  # stops between the draws of W
    misses = draw_weights.cache_info().misses
    result = forward(config)
    assert draw_weights.cache_info().misses == misses + 1  # drawn again, from the start
    rng = np.random.RandomState(909)
    assert np.array_equal(result.x, rng.randn(3, 8))
