"""√d_head view: histograms, the per-head table and the sweep curves are the core's numbers."""

import numpy as np
import pytest

from explorer.core import PRESETS, AttentionConfig, forward
from explorer.core.topics import d_model_sweep, histogram, score_statistics
from explorer.gui.topics.scaling_view import SWEEP_SEEDS, ScalingView, compute_scaling
from numeric import assert_close
from topic_support import redraw, show_view


def sweep_rule(sweep, scaled: bool) -> dict:
    """The rule's arguments for a sweep curve (every width in one comparison): the sums of the
    widest draw — x·W (d_model), q·k (d_head), the softmax and the entropy (the keys), the means
    over heads × rows and seeds — and, as for any softmax, the size of its largest scores: the
    largest of a few dozen normal scores lies within 4 standard deviations of the widest draw."""
    d = int(sweep.d_models.max())
    n = sweep.n_tokens
    variance = sweep.scaled_variance if scaled else sweep.raw_variance
    return {"dtype": "float64", "scale": 4 * float(np.sqrt(variance.max())),
            "reduction": d + d // sweep.n_heads + 2 * n + sweep.n_heads * n + len(sweep.seeds)}


def test_histograms_and_table_match_the_core(qtbot):
    result = forward(PRESETS["saturated-softmax"].config)
    view = show_view(qtbot, ScalingView, result)
    stats = score_statistics(result)
    raw = result.raw_scores.ravel()  # nothing masked: every score of both heads
    x, y = view.raw_curve.getData()
    edges, counts = histogram(raw, len(x) - 1)
    assert_close(x, edges, dtype="float64")  # evenly spaced from min to max: elementwise
    np.testing.assert_array_equal(y, counts)  # counts
    assert y.sum() == raw.size == 2 * 16
    assert f"Var {raw.var():.3g}" in view.raw_plot.titleLabel.text
    sx, sy = view.scaled_curve.getData()
    assert_close(sx, edges / np.sqrt(256), dtype="float64")
    np.testing.assert_array_equal(sy, counts)
    rows = view.table_text()
    assert len(rows) == 2
    for h, row in enumerate(rows):  # displayed numbers: 4 significant digits, 3 decimals
        assert float(row[1]) == pytest.approx(stats.raw_variance[h], rel=1e-3)
        assert float(row[2]) == pytest.approx(stats.scaled_variance[h], rel=1e-3)
        assert float(row[3]) == pytest.approx(stats.max_weight[h], abs=1e-3)
    assert "d_head = 256" in view.summary.text()
    assert "← softmax" in view.raw_plot.titleLabel.text  # unscaled config: raw feeds softmax


def test_sweep_curves_are_the_cores_sweep(qtbot):
    result = forward(AttentionConfig())
    view = show_view(qtbot, ScalingView, result)
    assert view.init.currentData() == "unit"
    sweep = d_model_sweep(4, 2, 1, n_seeds=SWEEP_SEEDS, init="unit")
    curves = view.sweep_curves()
    assert_close(curves["scaled"][0], np.log2(sweep.d_models), dtype="float64")
    assert_close(curves["scaled"][1], sweep.max_weight_scaled, **sweep_rule(sweep, True))
    assert_close(curves["unscaled"][1], sweep.max_weight_unscaled, **sweep_rule(sweep, False))
    view.measure.setCurrentIndex(view.measure.findData("entropy"))
    assert_close(view.sweep_curves()["unscaled"][1], sweep.entropy_unscaled,
                 **sweep_rule(sweep, False))
    redraw(qtbot, view, lambda: view.init.setCurrentIndex(view.init.findData("course")))
    course = d_model_sweep(4, 2, 1, n_seeds=SWEEP_SEEDS, init="course")
    assert_close(view.sweep_curves()["scaled"][1], course.entropy_scaled,
                 **sweep_rule(course, True))
    assert_close(view.current_line.value(), 3.0, dtype="float64")  # log2(8)


def test_head_count_dividing_no_sweep_width_still_draws_histograms(qtbot):
    result = forward(AttentionConfig(d_model=9, n_heads=3))
    view = show_view(qtbot, ScalingView, result)
    assert view.data.sweep is None
    assert len(view.sweep_curves()["scaled"][0] or []) == 0
    assert "no sweep" in view.sweep_plot.titleLabel.text
    assert view.raw_curve.getData()[1].sum() == 3 * 16


def test_superseded_sweep_returns_none():
    result = forward(AttentionConfig(seed=12345))
    assert compute_scaling(result, "course", should_stop=lambda: True) is None
