"""Test-wide setup: Qt offscreen, settings in a temporary folder, never the user's."""

import os
from pathlib import Path

# Offscreen Qt with one 1920 × 1080 screen (a common laptop/monitor; Qt's default offscreen
# screen is 800 × 800, smaller than the window's 1400 × 900 default). Projector sizes are
# tested by giving the window a smaller screen (tests/gui/test_projector.py).
SCREEN_CONFIG = Path(__file__).with_name("offscreen-screen.json")
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={SCREEN_CONFIG}"

# transformers and huggingface_hub draw progress bars on stderr while the tests build and save
# checkpoints (transformers 5.24's save_pretrained: "Writing model shards"): they would land in
# the stderr the command-line tests read ("one line and exit 2"). Read once, at their import.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
# The window generates with precision "auto": the compact step where it measured faster on this
# machine (core/learned/generation.py). Pinned to float32 here so a test's result does not depend
# on the machine; the compact step's tests ask for it (tests/learned/test_compact_generation.py).
os.environ.setdefault("ATTENTION_EXPLORER_GENERATION", "float32")

import pytest  # noqa: E402

SETTINGS_ENV = "ATTENTION_EXPLORER_SETTINGS_DIR"


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Point the app's settings folder at a fresh temporary directory for every test."""
    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path_factory.mktemp("settings")))


@pytest.fixture(autouse=True)
def _model_sources_restored():
    """Sources a test registers (a fake one, a folder opened in the window) are removed after it."""
    import sys
    registry = sys.modules.get("explorer.app.models.sources")
    before = None if registry is None else set(registry._SOURCES)
    yield
    registry = sys.modules.get("explorer.app.models.sources")
    if registry is not None:
        for name in [n for n in registry._SOURCES if before is None or n not in before]:
            if name not in ("random", "trained") and name not in registry.MODELS:
                registry.unregister_source(name)


@pytest.fixture(autouse=True)
def _empty_hub_cache(tmp_path_factory, monkeypatch):
    """An empty Hugging Face cache for every test (the Model source list and `models` list the
    cache's checkpoints: a developer's real cache must not change what a test sees); offline."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.mktemp("hub")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _normal_font_scale():
    """Presentation mode scales every font process-wide; no test inherits another's scale."""
    yield
    import sys
    fonts = sys.modules.get("explorer.gui.plotting.fonts")
    if fonts is not None:
        fonts.set_font_scale(1.0)


@pytest.fixture(autouse=True)
def _results_on_the_gui_thread(request):
    """Tests that drive Qt get the app's Qt bridge: background results arrive through the event
    loop, as in the app (importing explorer.gui installs it; without it they arrive at once).
    They also get the app's garbage collection on the GUI thread only (explorer.gui.gui_thread_gc:
    a worker's automatic collection freeing Qt objects hung a CI run); from then on, every test's
    teardown runs the collection that came due, on this (the main) thread."""
    if "qtbot" in request.fixturenames:
        import explorer.gui  # noqa: F401
        from explorer.gui.gui_thread_gc import collect_on_gui_thread
        request.getfixturevalue("qapp")
        collect_on_gui_thread()
    yield
    import sys
    gui_gc = sys.modules.get("explorer.gui.gui_thread_gc")
    if gui_gc is not None:
        gui_gc.collect_due()


@pytest.fixture
def make_window(qtbot):
    """make_window(config=None, compute=None, devices=None, show=True, seed=0, size=None): a main
    window on a fresh AppState, shown and settled; every window made is closed and its worker
    stopped after the test (see window_support.WindowFactory)."""
    from window_support import WindowFactory
    factory = WindowFactory(qtbot)
    yield factory
    factory.close_all()


@pytest.fixture(autouse=True)
def _english_ui():
    """The UI language is process-wide (Qt's installed translator): every test starts and ends
    in English, whatever a test switched to."""
    yield
    import sys
    i18n = sys.modules.get("explorer.gui.plotting.i18n")
    if i18n is not None:
        i18n.install_language("en")
    app_i18n = sys.modules.get("explorer.app.i18n")
    if app_i18n is not None:
        app_i18n.set_current_language("en")


@pytest.fixture
def korean_ui(qapp):
    """The Korean UI installed before the test builds its windows."""
    from explorer.gui.plotting.i18n import install_language
    assert install_language("ko")
    yield


@pytest.fixture(params=["en", "ko"])
def ui_language(request, qapp):
    """Runs a test in the English and in the Korean UI (layout tests: Korean must fit too)."""
    from explorer.gui.plotting.i18n import install_language
    install_language(request.param)
    yield request.param


# -- shared fixtures: one of each (a module changes what they build by overriding the small
# fixtures they read: window_config, window_size, grid_size) ---------------------------------

@pytest.fixture
def window_config():
    """The AttentionConfig the `window` fixture opens with; None is the app's default. A module
    overrides this fixture to open its windows on another config."""
    return None


@pytest.fixture
def window_size():
    """The `window` fixture's size, (width, height); None keeps the window's default size."""
    return None


@pytest.fixture
def window(make_window, window_config, window_size):
    """A main window on a fresh AppState with `window_config`, shown and settled (closed after)."""
    return make_window(window_config, size=window_size)


@pytest.fixture
def grid_size():
    """The `grid` fixture's size, (width, height)."""
    return (1000, 700)


@pytest.fixture
def grid(qtbot, grid_size):
    """A bare heads grid (no window, no state), shown and exposed at `grid_size`."""
    from explorer.gui.heads.grid import HeadsGrid
    widget = HeadsGrid()
    qtbot.addWidget(widget)
    widget.resize(*grid_size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def lesson_file(tmp_path):
    """lesson_file(text, name="tiny.toml") → the path of a lesson file holding `text` (dedented,
    UTF-8) in the test's temporary folder."""
    import textwrap

    def write(text: str, name: str = "tiny.toml"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path
    return write
