"""The KV cache against the full causal pass, and its byte/FLOP counters against formulas.

The formulas are written here, independently of explorer.core.flops.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core import AttentionConfig, forward, run_kv_cache
from explorer.core.kv_cache import KVCache

from attention_rounding import rule
from numeric import assert_close


@st.composite
def configs(draw):
    n = draw(st.integers(1, 12))
    n_heads = draw(st.integers(1, 8))
    d_head = draw(st.integers(1, 8))
    return AttentionConfig(
        tokens=tuple(f"t{i}" for i in range(n)), d_model=n_heads * d_head, n_heads=n_heads,
        seed=draw(st.integers(0, 2**32 - 1)), scaled=draw(st.booleans()),
        causal=draw(st.booleans()),  # run_kv_cache forces causal either way
        padding=draw(st.frozensets(st.integers(0, n - 1), max_size=n)),
        positional=draw(st.booleans()), dtype=draw(st.sampled_from(["float64", "float32"])),
    )


def cached_step_flops(t, d):
    """Step t: project 1 token with W_Q, W_K, W_V, W_O (4 * 2d^2), attend over t+1 keys (2 * 2(t+1)d)."""
    return 8 * d * d + 4 * (t + 1) * d


def recompute_step_flops(t, d):
    """Step t without a cache: full forward over m = t+1 tokens: 8md^2 + 4m^2 d."""
    m = t + 1
    return 8 * m * d * d + 4 * m * m * d


@settings(max_examples=60, deadline=None, database=None)
@given(configs())
def test_every_step_equals_the_full_causal_pass(config):
    trace = run_kv_cache(config)
    full = forward(config.replace(causal=True))  # computed here, not trace.full
    n = config.n_tokens
    assert len(trace.steps) == n
    assert trace.config.causal
    for t, step in enumerate(trace.steps):
        assert (step.step, step.token, step.cached) == (t, config.tokens[t], t + 1)
        assert_close(step.output, full.output[t], **rule(config, full, "output"))
        assert_close(step.weights, full.weights[:, t, :t + 1], **rule(config, full, "weights"))
        assert_close(step.q, full.qh[:, t], **rule(config, full, "qh"))
        keys, values = trace.cache_at(t)
        assert keys.shape == values.shape == (config.n_heads, t + 1, config.d_head)
        assert_close(keys, full.kh[:, :t + 1], **rule(config, full, "kh"))
        assert_close(values, full.vh[:, :t + 1], **rule(config, full, "vh"))
        assert step.max_diff >= 0.0
        assert_close(step.max_diff, 0.0, dtype=config.dtype, **rule(config, full, "output"))
        assert np.isfinite(step.weights).all() and np.isfinite(step.output).all()


@settings(max_examples=60, deadline=None, database=None)
@given(configs())
def test_counters_match_the_formulas(config):
    trace = run_kv_cache(config)
    d = config.d_model
    itemsize = 8 if config.dtype == "float64" else 4
    cum_cached = cum_recompute = 0
    for t, step in enumerate(trace.steps):
        # K and V, each (heads, t+1, d_head), heads * d_head = d_model
        assert step.cache_bytes == 2 * (t + 1) * d * itemsize
        assert step.flops_cached == cached_step_flops(t, d)
        assert step.flops_recompute == recompute_step_flops(t, d)
        cum_cached += cached_step_flops(t, d)
        cum_recompute += recompute_step_flops(t, d)
        assert (step.cum_flops_cached, step.cum_flops_recompute) == (cum_cached, cum_recompute)
        assert step.flops_cached <= step.flops_recompute


def test_course_sentence_trace():
    trace = run_kv_cache(AttentionConfig())
    assert [s.token for s in trace.steps] == ["나는", "학교에", "버스로", "갔다"]
    assert [s.cache_bytes for s in trace.steps] == [128, 256, 384, 512]  # 2 * t * 8 * 8 bytes
    assert trace.steps[0].weights.shape == (2, 1)
    np.testing.assert_array_equal(trace.steps[0].weights, 1.0)  # one key: all the weight
    assert_close([s.max_diff for s in trace.steps], 0.0, dtype="float64",
                 **rule(trace.config, trace.full, "output"))
    assert set(trace.steps[0].to_dict()) >= {
        "step", "token", "cached", "cache_bytes", "flops_cached", "flops_recompute", "max_diff"}


def test_cache_grows_and_refuses_to_overflow():
    cache = KVCache(n_heads=2, capacity=2, d_head=3)
    assert cache.nbytes == 0
    cache.append(np.ones((2, 3)), np.full((2, 3), 2.0))
    assert cache.keys().shape == (2, 1, 3) and cache.nbytes == 2 * 2 * 1 * 3 * 8
    cache.append(np.zeros((2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(cache.values()[:, 0], 2.0)
    with pytest.raises(IndexError):
        cache.append(np.zeros((2, 3)), np.zeros((2, 3)))


def test_padded_first_token_gives_an_empty_first_step():
    trace = run_kv_cache(AttentionConfig(padding=frozenset({0})))
    first = trace.steps[0]
    np.testing.assert_array_equal(first.weights, 0.0)
    np.testing.assert_array_equal(first.output, 0.0)
    assert np.all(trace.steps[1].weights[:, 0] == 0.0)
