"""Test-wide setup: Qt offscreen, settings in a temporary folder, never the user's."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

SETTINGS_ENV = "ATTENTION_EXPLORER_SETTINGS_DIR"


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Point the app's settings folder at a fresh temporary directory for every test."""
    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path_factory.mktemp("settings")))


@pytest.fixture
def make_window(qtbot):
    """make_window(config=None, compute=None, devices=None, show=True, seed=0, size=None): a main
    window on a fresh AppState, shown and settled; every window made is closed and its worker
    stopped after the test (see window_support.WindowFactory)."""
    from window_support import WindowFactory
    factory = WindowFactory(qtbot)
    yield factory
    factory.close_all()
