"""Automatic float32 where no number is displayed (``AppState(auto_precision=True)``, the window).

The course preset, small sizes and any view with values forced on stay float64 exact; a large
float64 config without values is computed in float32, and forcing values on recomputes it in
float64."""

import numpy as np
import pytest

from explorer.app.course.state import AUTO_FLOAT32_MIN_TOKENS, AppState, auto_precision_config
from explorer.core import AttentionConfig, forward
from numeric import assert_close

LARGE = AttentionConfig(tokens=tuple(f"t{i}" for i in range(AUTO_FLOAT32_MIN_TOKENS)),
                        d_model=16, n_heads=2, seed=3)


@pytest.mark.parametrize("config, show_values, dtype", [
    (AttentionConfig(), "auto", "float64"),                          # the course preset
    (AttentionConfig(), "off", "float64"),                           # small: exact anyway
    (LARGE.replace(tokens=LARGE.tokens[:-1]), "off", "float64"),     # just below the threshold
    (LARGE, "auto", "float32"),
    (LARGE, "off", "float32"),
    (LARGE, "on", "float64"),                                        # values shown: exact
    (LARGE.replace(dtype="float32"), "on", "float32"),               # the user's own choice kept
])
def test_rule(config, show_values, dtype):
    assert auto_precision_config(config, show_values).dtype == dtype
    same_but_dtype = auto_precision_config(config, show_values).replace(dtype=config.dtype)
    assert same_but_dtype == config


@pytest.fixture
def make_state(qtbot):
    states = []

    def make(config, auto_precision=True):
        state = AppState(config, auto_precision=auto_precision)
        states.append(state)
        qtbot.waitUntil(lambda: state.is_idle() and state.result is not None, timeout=20_000)
        return state

    yield make
    for state in states:
        state.shutdown()


def test_course_preset_stays_float64_bit_exact(make_state):
    state = make_state(AttentionConfig())
    assert state.computed_config == state.config
    assert state.result.config == state.config
    np.testing.assert_array_equal(state.result.weights, forward(AttentionConfig()).weights)


def test_large_size_computed_in_float32_and_values_on_brings_float64_back(qtbot, make_state):
    state = make_state(LARGE)
    assert state.config.dtype == "float64"              # the user's choice is not rewritten
    assert state.result.config == state.computed_config == LARGE.replace(dtype="float32")
    assert state.result.weights.dtype == np.float32
    exact = forward(LARGE)  # float32 softmax weights: their rounding grows with the scores' size
    assert_close(state.result.weights, exact.weights, dtype="float32", reduction=LARGE.d_model,
                 scale=np.abs(exact.scores).max())
    state.view.show_values = "on"
    qtbot.waitUntil(lambda: state.is_idle() and state.result.config == LARGE, timeout=20_000)
    assert state.result.weights.dtype == np.float64
    np.testing.assert_array_equal(state.result.weights, forward(LARGE).weights)


def test_off_by_default(make_state):
    state = make_state(LARGE, auto_precision=False)
    assert state.result.config == state.config == LARGE


def test_kv_trace_follows_the_computed_precision(qtbot, make_state):
    state = make_state(LARGE)
    state.kv_enabled = True
    qtbot.waitUntil(lambda: state.kv_trace is not None and state.is_idle(), timeout=20_000)
    assert state.kv_trace.config.dtype == "float32"
