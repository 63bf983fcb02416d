"""AppState: validation in one place, results for the current config, stale drop, torch fallback."""

import numpy as np
import pytest

from explorer.core import AttentionConfig, DeviceUnavailableError, forward
from explorer.app.course.state import AppState, ViewState
from explorer.app.course.compute import ComputeWorker, Outcome


@pytest.fixture
def make_state(qtbot):
    states = []

    def make(config=None, **worker_kw):
        state = AppState(config, worker=ComputeWorker(**worker_kw) if worker_kw else None)
        states.append(state)
        return state

    yield make
    for state in states:
        state.shutdown()


def settle(qtbot, state):
    qtbot.waitUntil(state.is_idle, timeout=20_000)


def test_first_result_is_the_initial_config(qtbot, make_state):
    state = make_state()
    settle(qtbot, state)
    assert state.result.config == state.config == AttentionConfig()
    np.testing.assert_array_equal(state.result.weights, forward(AttentionConfig()).weights)


def test_update_emits_and_recomputes(qtbot, make_state):
    state = make_state()
    with qtbot.waitSignal(state.config_changed) as changed:
        assert state.update(d_model=16, n_heads=4)
    assert changed.args[0].d_model == 16
    settle(qtbot, state)
    assert state.result.config.n_heads == 4
    assert state.result.weights.shape == (4, 4, 4)


@pytest.mark.parametrize("changes", [
    {"tokens": ()},                  # empty sentence
    {"n_heads": 3},                  # 3 does not divide 8
    {"seed": -1},
    {"seed": 2**32},
    {"padding": frozenset({9})},
    {"backend": "numpy", "device": "cuda"},
])
def test_invalid_change_keeps_the_old_config_and_says_why(qtbot, make_state, changes):
    state = make_state()
    before = state.config
    with qtbot.assertNotEmitted(state.config_changed):
        with qtbot.waitSignal(state.error) as error:
            assert state.update(**changes) is False
    assert error.args[0]  # a readable message
    assert state.config == before


def test_unchanged_update_emits_nothing(qtbot, make_state):
    state = make_state()
    with qtbot.assertNotEmitted(state.config_changed):
        assert state.update(seed=state.config.seed)


def test_unknown_field_is_a_programming_error(make_state):
    state = make_state()
    with pytest.raises(AttributeError):
        state.update(colour="red")


def test_stale_outcome_is_dropped(qtbot, make_state):
    state = make_state()
    settle(qtbot, state)
    shown = state.result
    old = Outcome(generation=0, config=AttentionConfig(seed=99),
                  result=forward(AttentionConfig(seed=99)))
    with qtbot.assertNotEmitted(state.result_changed):
        state._on_outcome(old)
    assert state.result is shown


def test_torch_failure_falls_back_to_numpy_and_keeps_the_picture(qtbot, make_state):
    def compute(config):
        if config.backend == "torch":
            raise DeviceUnavailableError("CUDA was requested but no CUDA device is available")
        return forward(config)

    state = make_state(compute=compute)
    settle(qtbot, state)
    good = state.result
    errors, fallbacks = [], []
    state.error.connect(errors.append)
    state.fallback.connect(fallbacks.append)
    assert state.update(backend="torch", device="cuda:0")
    settle(qtbot, state)
    assert state.config.backend == "numpy" and state.config.device == "cpu"
    assert any("no CUDA device" in e and "numpy" in e for e in errors)
    assert len(fallbacks) == 1
    assert state.result.config == state.config
    np.testing.assert_array_equal(state.result.weights, good.weights)


def test_numpy_failure_reports_without_changing_the_config(qtbot, make_state):
    def compute(config):
        if config.seed == 5:
            raise MemoryError("too big")
        return forward(config)

    state = make_state(compute=compute)
    settle(qtbot, state)
    errors = []
    state.error.connect(errors.append)
    state.update(seed=5)
    settle(qtbot, state)
    assert state.config.seed == 5
    assert state.result.config.seed == 1  # the last good picture stays
    assert errors and "MemoryError: too big" in errors[0]


def test_kv_trace_computed_only_when_enabled(qtbot, make_state):
    state = make_state()
    settle(qtbot, state)
    assert state.kv_trace is None
    with qtbot.waitSignal(state.kv_trace_changed, timeout=20_000) as blocker:
        state.kv_enabled = True
    trace = blocker.args[0]
    assert trace.config.tokens == state.config.tokens and trace.config.causal
    state.kv_enabled = False
    state.update(seed=8)
    settle(qtbot, state)
    assert state.kv_trace is trace  # not recomputed while the KV view is hidden
    with qtbot.waitSignal(state.kv_trace_changed, timeout=20_000) as blocker:
        state.kv_enabled = True
    assert blocker.args[0].config.seed == 8


def test_view_state_validates_and_emits_once(qtbot):
    view = ViewState()
    with qtbot.waitSignal(view.colormap_changed):
        view.colormap = "magma"
    with qtbot.assertNotEmitted(view.colormap_changed):
        view.colormap = "magma"
    with pytest.raises(ValueError):
        view.show_values = "sometimes"
    with qtbot.waitSignal(view.presentation_changed) as blocker:
        view.presentation = True
    assert blocker.args == [True]
