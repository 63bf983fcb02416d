"""KVPanel: the pictures at each step, read back from the items, against the core's trace."""

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.core import AttentionConfig, get_preset, run_kv_cache
from explorer.gui.kv.cache_view import concat_heads
from explorer.gui.kv.panel import KVPanel

ROOT = Path(__file__).resolve().parents[2]
COURSE = get_preset("course-lab3").config.replace(positional=True)


def random_configs(count=5, seed=0):
    rng = np.random.default_rng(seed)
    configs = []
    for _ in range(count):
        h = int(rng.choice([1, 2, 4]))
        n = int(rng.integers(1, 14))
        configs.append(AttentionConfig(
            tokens=tuple(f"t{i}" for i in range(n)), d_model=h * int(rng.integers(1, 9)), n_heads=h,
            seed=int(rng.integers(0, 2**32)), scaled=bool(rng.integers(2)),
            positional=bool(rng.integers(2)), dtype=str(rng.choice(["float64", "float32"])),
            padding=frozenset(int(p) for p in rng.choice(n, size=int(rng.integers(0, n)), replace=False))))
    return configs


@pytest.fixture
def panel(qtbot):
    widget = KVPanel()
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    return widget


def snapshot(panel):
    """Everything the panel shows for the current step, read from its items and labels."""
    view, flops = panel.cache_view, panel.flops_plot
    return {
        "rects": [tuple(r.rect().getRect()) + (r.isVisible(),)
                  for r in (view.k_cover, view.k_new, view.v_cover, view.v_new)],
        "k": view.k_item.image.copy(), "v": view.v_item.image.copy(),
        "q": view.q_item.image.copy(), "w": view.w_item.image.copy(), "out": view.out_item.image.copy(),
        "marker": (flops.marker_line.value(),) + tuple(np.concatenate(flops.marker_dots.getData())),
        "texts": [label.text() for label in panel._counter_labels()],
        "controls": (panel.controls.slider.value(), panel.controls.step_spin.value(),
                     panel.controls.position_label.text()),
    }


def assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key])
        else:
            assert a[key] == b[key], key


def check_step_matches_trace(panel, trace, t):
    view, step = panel.cache_view, trace.steps[t]
    keys, values = trace.cache_at(t)  # (h, t+1, d_head)
    assert view.filled_rows() == t + 1
    np.testing.assert_array_equal(view.k_item.image[:t + 1], concat_heads(keys))
    np.testing.assert_array_equal(view.v_item.image[:t + 1], concat_heads(values))
    # the new row is outlined; exact: its rectangle spans the half-integer edges t ± 0.5
    assert view.k_new.rect().center().y() == t
    np.testing.assert_array_equal(view.q_item.image, step.q.reshape(1, -1))
    np.testing.assert_array_equal(view.w_item.image, step.weights)
    assert view.w_item.image.shape == (trace.config.n_heads, t + 1)
    np.testing.assert_array_equal(view.out_item.image, step.output[None, :])


def test_forward_then_back_gives_the_same_pictures(panel):
    trace = run_kv_cache(AttentionConfig(tokens=tuple("abcdefgh"), d_model=12, n_heads=3, seed=4))
    panel.set_trace(trace)
    forward = []
    for t in range(len(trace.steps)):
        if t:
            panel.step_forward()
        assert panel.step == t
        check_step_matches_trace(panel, trace, t)
        forward.append(snapshot(panel))
    panel.step_forward()  # past the end: stays
    assert panel.step == len(trace.steps) - 1
    for t in reversed(range(len(trace.steps))):
        assert panel.step == t
        assert_same(snapshot(panel), forward[t])
        panel.step_back()
    assert panel.step == 0
    assert forward[0]["rects"][0][4] is True and forward[-1]["rects"][0][4] is False


@pytest.mark.parametrize("config", [COURSE] + random_configs(), ids=lambda c: f"n{c.n_tokens}-{c.dtype}")
def test_equality_check_passes_at_every_step(panel, config):
    trace = run_kv_cache(config)
    panel.set_trace(trace)
    for t in range(len(trace.steps)):
        panel.set_step(t)
        text = panel.check_label.text()
        assert text.startswith(f"cached output = row {t} of the full causal pass: max |difference| = ")
        assert text.endswith("✓") and "✗" not in text
        assert f"{trace.steps[t].max_diff:.1e}" in text
        assert text_colour(panel.check_label) == "#1a7f37"
        check_step_matches_trace(panel, trace, t)


def text_colour(label) -> str:
    from PySide6.QtGui import QPalette
    return label.palette().color(QPalette.ColorRole.WindowText).name()


def test_a_wrong_cache_shows_a_red_cross(panel):
    trace = run_kv_cache(COURSE)
    bad = dataclasses.replace(trace.steps[2], max_diff=3e-5)  # > 1e-6 for float64
    panel.set_trace(dataclasses.replace(trace, steps=trace.steps[:2] + (bad,) + trace.steps[3:]))
    panel.set_step(2)
    assert panel.check_label.text().endswith("3.0e-05 ✗")
    assert text_colour(panel.check_label) == "#d1242f"
    panel.set_step(1)
    assert panel.check_label.text().endswith("✓") and text_colour(panel.check_label) == "#1a7f37"
    trace32 = run_kv_cache(COURSE.replace(dtype="float32"))
    fine = dataclasses.replace(trace32.steps[0], max_diff=3e-5)  # within 1e-4 for float32
    panel.set_trace(dataclasses.replace(trace32, steps=(fine,) + trace32.steps[1:]))
    assert panel.check_label.text().endswith("✓")


@pytest.mark.parametrize("config", [COURSE, COURSE.replace(dtype="float32"),
                                    AttentionConfig(tokens=tuple("abcdef"), d_model=24, n_heads=4)])
def test_counters_match_the_formulas(panel, config):
    trace = run_kv_cache(config)
    panel.set_trace(trace)
    d, h = config.d_model, config.n_heads
    d_head, itemsize = d // h, 8 if config.dtype == "float64" else 4
    cum_cached = cum_recompute = 0
    for t in range(config.n_tokens):
        panel.set_step(t)
        cached = t + 1
        cache_bytes = 2 * 1 * 1 * h * cached * d_head * itemsize
        step_cached = 3 * 2 * d * d + 2 * d * d + 2 * cached * d + 2 * cached * d  # q,k,v,o + qK + wV
        step_recompute = 4 * 2 * cached * d * d + 2 * 2 * cached * cached * d
        cum_cached += step_cached
        cum_recompute += step_recompute
        assert panel.tokens_label.text().endswith(f"tokens cached {cached}")
        assert (f"2 · 1 · 1 · {h} · {cached} · {d_head} · {itemsize} = {cache_bytes:,} bytes"
                in panel.bytes_label.text())
        assert panel.step_flops_label.text().endswith(
            f"4·2·{d}² + 2·2·{cached}·{d} = {step_cached:,}")
        assert (f"8·{cached}·{d}² + 4·{cached}²·{d} = {step_recompute:,}  "
                in panel.recompute_label.text())
        assert f"with cache: {cum_cached:,} (" in panel.cum_label.text()
        assert f"without: {cum_recompute:,} (" in panel.cum_label.text()


def test_cumulative_curves_and_marker(panel):
    config = AttentionConfig(tokens=tuple("abcdefghij"), d_model=16, n_heads=2)
    trace = run_kv_cache(config)
    panel.set_trace(trace)
    d, steps = 16, np.arange(10)
    cached = np.cumsum([8 * d * d + 4 * (t + 1) * d for t in steps])
    recompute = np.cumsum([8 * (t + 1) * d * d + 4 * (t + 1) ** 2 * d for t in steps])
    for curve, expected in ((panel.flops_plot.cached_curve, cached),
                            (panel.flops_plot.recompute_curve, recompute)):
        x, y = curve.getData()
        np.testing.assert_array_equal(x, steps)
        np.testing.assert_array_equal(y, expected)
    panel.set_step(6)
    assert panel.flops_plot.marker_line.value() == 6
    x, y = panel.flops_plot.marker_dots.getData()
    assert list(x) == [6, 6] and list(y) == [cached[6], recompute[6]]


def test_choosing_a_head_shows_its_cache(panel):
    trace = run_kv_cache(AttentionConfig(tokens=tuple("abcde"), d_model=12, n_heads=3))
    panel.set_trace(trace)
    panel.set_step(3)
    view = panel.cache_view
    lines = sorted(line.value() for plot, line in view._separators if plot is view.k_plot)
    assert lines == [3.5, 7.5]  # head boundaries in the concatenated K (d_head 4)
    panel.controls.head_combo.setCurrentIndex(2)  # "head 1"
    assert view._separators == []
    np.testing.assert_array_equal(view.k_item.image, trace.keys[1])
    np.testing.assert_array_equal(view.v_item.image, trace.values[1])
    np.testing.assert_array_equal(view.q_item.image, trace.steps[3].q[1][None, :])
    assert view.filled_rows() == 4 and view.head_box.isVisible()
    panel.set_trace(run_kv_cache(AttentionConfig(tokens=tuple("abc"), d_model=8, n_heads=2)))
    assert panel.controls.head_combo.currentData() == 1  # the choice survives a new trace
    panel.set_trace(run_kv_cache(AttentionConfig(tokens=tuple("abc"), d_model=8, n_heads=1)))
    assert panel.controls.head_combo.currentData() is None and view.head is None


def test_controls_and_keys_move_the_step(panel, qtbot):
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_trace(run_kv_cache(AttentionConfig(tokens=tuple(f"t{i}" for i in range(30)))))
    seen = []
    panel.step_changed.connect(seen.append)
    panel.controls.slider.setValue(12)
    assert panel.step == 12 and panel.controls.step_spin.value() == 12
    panel.controls.step_spin.setValue(20)
    assert panel.step == 20 and panel.controls.slider.value() == 20
    panel.setFocus()
    qtbot.keyClick(panel, Qt.Key_Left)
    assert panel.step == 19
    qtbot.keyClick(panel, Qt.Key_End)
    assert panel.step == 29
    qtbot.keyClick(panel, Qt.Key_PageUp)
    assert panel.step == 19
    qtbot.keyClick(panel, Qt.Key_Home)
    assert panel.step == 0
    qtbot.mouseClick(panel.controls.forward_button, Qt.LeftButton)
    assert panel.step == 1
    assert seen == [12, 20, 19, 29, 19, 0, 1]
    qtbot.keyClick(panel, Qt.Key_Space)
    assert panel.is_playing
    qtbot.keyClick(panel, Qt.Key_Space)
    assert not panel.is_playing
    for view in (panel.cache_view, panel.flops_plot.graphics):  # a clicked plot has the focus
        qtbot.keyClick(view, Qt.Key_Right)
    assert panel.step == 3
    qtbot.keyClick(panel.cache_view, Qt.Key_Right, modifier=Qt.ControlModifier)  # not ours
    assert panel.step == 3


def test_play_runs_to_the_end_and_stops(panel, qtbot):
    panel.show()
    panel.set_trace(run_kv_cache(COURSE))
    panel.set_speed(100)
    panel.play()
    assert panel.is_playing and not panel.controls.play_button.isEnabled()
    qtbot.waitUntil(lambda: not panel.is_playing, timeout=5000)
    assert panel.step == 3 and panel.controls.play_button.isEnabled()
    panel.play()  # from the last step: starts again at 0
    assert panel.is_playing and panel.step == 0
    panel.pause()


def test_new_trace_while_playing_restarts_at_zero_and_keeps_playing(panel, qtbot):
    panel.show()
    panel.set_trace(run_kv_cache(AttentionConfig(tokens=tuple(f"t{i}" for i in range(40)))))
    panel.set_speed(60)
    panel.play()
    qtbot.waitUntil(lambda: panel.step >= 3, timeout=5000)
    new = run_kv_cache(AttentionConfig(tokens=tuple(f"u{i}" for i in range(25)), d_model=16, n_heads=4))
    with qtbot.waitSignal(panel.step_changed) as signal:
        panel.set_trace(new)
    assert signal.args == [0]
    assert panel.is_playing and panel.trace is new
    check_step_matches_trace(panel, new, panel.step)
    qtbot.waitUntil(lambda: panel.step >= 2, timeout=5000)
    panel.pause()
    panel.set_step(10)
    panel.set_trace(run_kv_cache(COURSE))  # paused: shows step 0 and stays paused
    assert panel.step == 0 and not panel.is_playing
    check_step_matches_trace(panel, panel.trace, 0)


def test_the_same_trace_again_keeps_the_step(panel):
    trace = run_kv_cache(COURSE)
    panel.set_trace(trace)
    panel.set_step(2)
    panel.set_trace(trace)  # e.g. the window re-sends the current trace when the tab is shown
    assert panel.step == 2
    panel.set_trace(run_kv_cache(COURSE))  # an equal but new trace: a new computation, step 0
    assert panel.step == 0


def test_closing_mid_play_stops_the_timer(panel, qtbot):
    panel.show()
    panel.set_trace(run_kv_cache(AttentionConfig(tokens=tuple(f"t{i}" for i in range(200)))))
    panel.set_speed(120)
    panel.play()
    qtbot.waitUntil(lambda: panel.step >= 2, timeout=5000)
    panel.close()
    assert not panel.is_playing and not panel.timer.isActive()
    stopped_at = panel.step
    # A fixed wait on purpose (one of the five left in tests/): it shows that NOTHING happens.
    # At 120 steps a second, a play still running would take a dozen steps in these 100 ms.
    qtbot.wait(100)
    assert panel.step == stopped_at


def test_hiding_pauses(panel, qtbot):
    panel.show()
    panel.set_trace(run_kv_cache(COURSE))
    panel.play()
    panel.hide()
    assert not panel.is_playing


def test_an_empty_panel_ignores_the_controls(panel, qtbot):
    panel.play()
    panel.set_step(3)
    panel.step_forward()
    assert not panel.is_playing and panel.step == 0 and panel.step_count == 0
    assert not panel.empty_label.isHidden()


def test_presentation_mode(panel):
    panel.set_trace(run_kv_cache(COURSE))
    size = panel.check_label.font().pointSizeF()
    panel.set_presentation(True)
    assert panel.check_label.font().pointSizeF() > size
    panel.set_step(2)
    check_step_matches_trace(panel, panel.trace, 2)


WINDOW_SCRIPT = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget
    from explorer.core import AttentionConfig, run_kv_cache
    from explorer.gui.kv.panel import KVPanel

    app = QApplication(sys.argv)
    window = QMainWindow()
    tabs = QTabWidget()
    panel = KVPanel()
    tabs.addTab(panel, "KV cache")
    window.setCentralWidget(tabs)
    window.resize(1200, 800)
    window.show()
    panel.set_trace(run_kv_cache(AttentionConfig(tokens=tuple(f"t{i}" for i in range(300)),
                                                 d_model=64, n_heads=4)))
    panel.set_speed(60)
    panel.play()
    QTimer.singleShot(600, window.close)
    code = app.exec()
    print("steps shown", panel.step, "playing", panel.is_playing)
    sys.exit(code)
""")


def test_a_window_closed_mid_play_exits_cleanly(tmp_path):
    script = tmp_path / "kv_window.py"
    script.write_text(WINDOW_SCRIPT, encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "playing False" in proc.stdout
    shown = int(proc.stdout.split("steps shown")[1].split()[0])
    assert 0 < shown < 299  # it was really playing, and was closed before the end


def test_padding_keys_are_marked_in_the_weights(panel):
    config = get_preset("padding").config.replace(padding=frozenset({0, 4, 5}))
    trace = run_kv_cache(config)
    panel.set_trace(trace)
    marks = dict(panel.cache_view._pad_marks)
    assert sorted(marks) == [0, 4, 5]
    for t in range(config.n_tokens):
        panel.set_step(t)
        assert [marks[k].isVisible() for k in (0, 4, 5)] == [k <= t for k in (0, 4, 5)]
        texts = panel.cache_view._value_texts
        for h in range(config.n_heads):
            shown = [texts[h][k].textItem.toPlainText() for k in range(t + 1)]
            expected = ["pad" if k in config.padding else f"{trace.steps[t].weights[h, k]:.2f}"
                        for k in range(t + 1)]
            assert shown == expected
        assert panel.check_label.text().endswith("✓")  # step 0: every key masked, output still checked


def test_cell_values_and_the_head_in_titles_only_where_they_fit(panel, qtbot):
    """Weights are printed in their cells while a label fits (32 keys at 1024 px: they ran into
    each other), and K's and V's titles leave out the head when they would run into each other."""
    config = AttentionConfig(tokens=tuple(f"t{i}" for i in range(12)), d_model=16, n_heads=2)
    trace = run_kv_cache(config)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_trace(trace)
    panel.set_step(11)
    panel.set_head_choice(2)  # head 1
    view = panel.cache_view
    texts = [text for row in view._value_texts for text in row]

    def shown():
        return sum(text.isVisible() for text in texts)

    qtbot.waitUntil(lambda: shown() == 2 * 12)
    assert view.k_plot.titleLabel.text == "K cache, head 1 (12 × 8)"
    panel.resize(420, 900)
    qtbot.waitUntil(lambda: shown() == 0)
    assert not view.values_fit()
    qtbot.waitUntil(lambda: view.k_plot.titleLabel.text == "K cache (12 × 8)")
    flops = panel.flops_plot.plot
    qtbot.waitUntil(lambda: flops.titleLabel.text == "FLOPs up to step t")  # the long one was cut off
    assert flops.titleLabel.item.boundingRect().width() <= panel.flops_plot.graphics.width()
    panel.resize(1400, 900)
    qtbot.waitUntil(lambda: shown() == 2 * 12 and view.k_plot.titleLabel.text == "K cache, head 1 (12 × 8)")
    qtbot.waitUntil(lambda: flops.titleLabel.text == "cumulative FLOPs up to step t")
    axis = panel.flops_plot.plot.getAxis("bottom")  # 12 steps: every second one numbered
    assert [label for _value, label in axis._tickLevels[0]] == ["0", "2", "4", "6", "8", "10"]
