"""The info strip says when a float64 config was computed in float32 automatically (en and ko)."""

import pytest

from explorer.app.course.state import AUTO_FLOAT32_MIN_TOKENS, AppState
from explorer.core import AttentionConfig
from explorer.gui.window.main_window import MainWindow

LARGE = AttentionConfig(tokens=tuple(f"t{i}" for i in range(AUTO_FLOAT32_MIN_TOKENS)),
                        d_model=16, n_heads=2, seed=3)
NOTE = {"en": "float32 (auto)", "ko": "float32 (자동)"}


@pytest.fixture
def window_on(qtbot):
    made = []

    def make(config):
        state = AppState(config, auto_precision=True)
        window = MainWindow(state)
        qtbot.addWidget(window)
        made.append((state, window))
        window.show()
        qtbot.waitUntil(lambda: state.is_idle() and state.result is not None, timeout=20_000)
        return state, window

    yield make
    for state, window in made:
        window.close()
        state.shutdown()


def test_strip_says_float32_auto_and_drops_it_when_values_are_shown(qtbot, window_on,
                                                                     ui_language):
    state, window = window_on(LARGE)
    label = window.info_strip.time_label
    qtbot.waitUntil(lambda: NOTE[ui_language] in label.text(), timeout=20_000)
    assert "float64" in label.toolTip()
    state.view.show_values = "on"
    qtbot.waitUntil(lambda: state.is_idle() and state.result.config == LARGE, timeout=20_000)
    qtbot.waitUntil(lambda: NOTE[ui_language] not in label.text(), timeout=20_000)


def test_course_preset_has_no_note(qtbot, window_on):
    state, window = window_on(AttentionConfig())
    assert state.result.config == state.config
    assert "float32" not in window.info_strip.time_label.text()


def test_a_csv_from_the_window_carries_the_exact_float64_numbers(qtbot, window_on):
    """The picture is float32 (auto), but a CSV exports numbers: they match the CLI's float64."""
    import csv
    import io

    import numpy as np

    from explorer.core import forward
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import export_from_window

    state, window = window_on(LARGE)
    assert state.result.weights.dtype == np.float32  # what the screen shows
    _name, content = export_from_window(window, FigureSpec("head", 1), ExportOptions(fmt="csv"))
    rows = list(csv.DictReader(io.StringIO(bytes(content).decode("utf-8"))))
    exact = forward(LARGE).weights[1]  # (n, n) float64
    weights = np.array([float(r["weight"]) for r in rows]).reshape(exact.shape)
    assert np.array_equal(weights, exact)  # the CSV writes the very float64 weights (repr)


def test_a_csv_of_the_picture_shown_while_the_next_one_is_computed(qtbot, window_on):
    """The config moved on (2 heads -> 1) and its picture is not in yet: a CSV of head 1 is the
    shown picture's, in float64 (it used to compute the new config and fail on its head 1)."""
    import csv
    import io

    import numpy as np

    from explorer.core import forward
    from explorer.export.naming import FigureSpec
    from explorer.gui.window.exports.figures import ExportOptions
    from explorer.gui.window.exports.from_window import export_from_window

    state, window = window_on(LARGE)
    state.update(n_heads=1)  # submitted; its result reaches the window only through the event loop
    assert state.result.config.n_heads == 2
    _name, content = export_from_window(window, FigureSpec("head", 1), ExportOptions(fmt="csv"))
    rows = list(csv.DictReader(io.StringIO(bytes(content).decode("utf-8"))))
    exact = forward(LARGE).weights[1]  # (n, n) float64
    assert np.array_equal(np.array([float(r["weight"]) for r in rows]).reshape(exact.shape), exact)
