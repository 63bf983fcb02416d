"""Toggles (scaling, masks, PE, backend) reuse the drawn weights; a new seed or size redraws."""

import numpy as np

from explorer.core import AttentionConfig, forward, model_input
from explorer.core.weights import draw_weights

from numeric import assert_close


def test_toggles_reuse_the_same_draw():
    config = AttentionConfig(tokens=tuple("abcdef"), d_model=16, n_heads=4, seed=77)
    draw_weights.cache_clear()
    first, _, _ = model_input(config)
    assert draw_weights.cache_info().misses == 1
    toggles = [{"scaled": False}, {"causal": True}, {"padding": frozenset({1, 3})},
               {"positional": True}, {"n_heads": 2}, {"backend": "torch"}]
    for changes in toggles:
        weights, _, _ = model_input(config.replace(**changes))
        assert weights is first, changes
        forward(config.replace(**changes))
    info = draw_weights.cache_info()
    assert info.misses == 1 and info.hits >= 2 * len(toggles)


def test_float32_cast_is_cached_too():
    config = AttentionConfig(seed=5, dtype="float32")
    a, _, _ = model_input(config)
    b, _, _ = model_input(config.replace(causal=True, scaled=False))
    assert a is b and a.x.dtype == np.float32


def test_changing_the_init_gives_other_weights_from_the_same_stream():
    course, _, _ = model_input(AttentionConfig(seed=8))
    unit, _, _ = model_input(AttentionConfig(seed=8, init="unit"))
    assert unit is not course
    np.testing.assert_array_equal(unit.x, course.x)
    assert_close(unit.w_q, course.w_q / 0.5 / np.sqrt(8))  # × 1/√8 against ÷ √8: one rounding


def test_new_seed_or_size_redraws():
    base = draw_weights(3, 4, 8)
    assert draw_weights(3, 4, 8) is base
    assert draw_weights(4, 4, 8) is not base
    assert draw_weights(3, 5, 8) is not base
    assert not np.array_equal(draw_weights(4, 4, 8).x, base.x)


def test_drawn_arrays_are_read_only():
    w = draw_weights(1, 4, 8)
    for arr in (w.x, w.w_q, w.w_k, w.w_v, w.w_o):
        assert not arr.flags.writeable


def test_torch_toggles_reuse_device_tensors():
    from explorer.core.backends import torch_ops
    config = AttentionConfig(backend="torch", seed=11)
    forward(config)
    before = torch_ops.device_weights.cache_info()
    forward(config.replace(causal=True))
    forward(config.replace(scaled=False, padding=frozenset({0})))
    after = torch_ops.device_weights.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 2
