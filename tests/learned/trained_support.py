"""What the tests of the trained model as a model source share: a tiny config trained in seconds,
the shared window with the trained source forgotten before and after, and the steps that drive it."""

from __future__ import annotations

import pytest

from explorer.app.models.learned import forget_trained, trained_spec
from explorer.core.training import TrainConfig

SMALL = TrainConfig(steps=40, batch=8, d_model=16, n_heads=2, seed=1, log_every=10, snapshot_every=20)
WAIT_MS = 60_000


@pytest.fixture
def no_trained_model():
    """No trained model registered when the test starts, none left behind (the registry is
    process-wide)."""
    forget_trained()
    yield
    forget_trained()


@pytest.fixture
def window(no_trained_model, window):
    """The shared `window` (tests/conftest.py), opened with no trained model registered."""
    return window


def settle(qtbot, window):
    qtbot.waitUntil(lambda: window.learned.is_idle() and window.learned.busy == "", timeout=WAIT_MS)


def train_steps(qtbot, window, n=10):
    """n more steps in the Train tab (SMALL the first time); waits until that model is registered
    as the "trained" source. → the session's trainer."""
    session = window.train_view.session
    if session.trainer is None:
        session.set_config(SMALL)
    before = trained_spec()
    session.step(n)
    qtbot.waitUntil(lambda: trained_spec() is not before and session.is_idle(), timeout=WAIT_MS)
    return session.trainer


def choose(qtbot, window, name):
    """Pick `name` in the model-source combo as a user does (it must be enabled), and settle."""
    combo = window.model_source.combo
    index = combo.findData(name)
    assert combo.model().item(index).isEnabled()
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    settle(qtbot, window)
