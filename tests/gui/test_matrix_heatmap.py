"""The one labelled-matrix heatmap (plotting/matrix.py) the heads, PE/KV and topic views draw
with."""

import numpy as np

from explorer.gui.heads.panel import HeadPanel
from explorer.gui.plotting.colormaps import dark_text_mask
from explorer.gui.plotting.matrix import MatrixHeatmap
from explorer.gui.topics.widgets import MatrixPlot


def test_an_image_is_framed_on_its_cells_and_reframed_only_when_its_shape_changes(qtbot):
    heatmap = MatrixHeatmap(colormap="viridis")
    assert heatmap.set_image(np.zeros((3, 5)), (0.0, 1.0))
    assert heatmap.image.boundingRect().size().toTuple() == (5.0, 3.0)
    view = heatmap.plot.getViewBox()
    np.testing.assert_allclose(view.viewRange(), [[-0.5, 4.5], [-0.5, 2.5]])
    assert heatmap.cells_rect().getRect() == (-0.5, -0.5, 5, 3)
    assert not heatmap.set_image(np.ones((3, 5)), (0.0, 2.0))
    assert heatmap.image.levels.tolist() == [0.0, 2.0]
    assert heatmap.set_image(np.zeros((2, 2)), (0.0, 1.0))
    np.testing.assert_allclose(view.viewRange(), [[-0.5, 1.5], [-0.5, 1.5]])


def test_one_contrast_rule_for_named_maps_and_any_levels(qtbot):
    values = np.linspace(0, 1, 12).reshape(3, 4)
    np.testing.assert_array_equal(MatrixHeatmap.dark_text(values, (0.0, 1.0), "viridis"),
                                  dark_text_mask("viridis", values))
    np.testing.assert_array_equal(MatrixHeatmap.dark_text(values * 4 - 2, (-2.0, 2.0), "viridis"),
                                  dark_text_mask("viridis", values))


def test_ticks_title_and_per_axis_style(qtbot):
    heatmap = MatrixHeatmap()
    heatmap.set_token_ticks("bottom", ["나는", "학교에"], max_chars=8)
    assert heatmap.plot.getAxis("bottom")._tickLevels == [[(0, "나는"), (1, "학교에")]]
    heatmap.set_title("head 0", color="#222222")
    assert heatmap.plot.titleLabel.text == "head 0"
    assert heatmap.plot.titleLabel.minimumWidth() == 0  # a long title never widens the layout
    heatmap.style_axes("#222222", 9, width=2, hideOverlappingLabels={"bottom": 40, "left": False})
    assert heatmap.plot.getAxis("bottom").style["hideOverlappingLabels"] == 40
    assert heatmap.plot.getAxis("left").style["hideOverlappingLabels"] is False
    assert heatmap.plot.getAxis("left").pen().width() == 2


def test_the_views_draw_with_it(qtbot):
    from explorer.gui.heads.panel import PanelStyle
    assert isinstance(HeadPanel(PanelStyle.for_mode(False)), MatrixHeatmap)
    assert isinstance(MatrixPlot(), MatrixHeatmap)
