"""The one labelled-matrix heatmap (plotting/matrix.py) the heads, PE/KV and topic views draw
with."""

import numpy as np

from explorer.gui.heads.panel import HeadPanel
from explorer.gui.plotting.colormaps import dark_text_mask
from explorer.gui.plotting.matrix import MatrixHeatmap
from explorer.gui.topics.widgets import MatrixPlot
from qt_settle import painted


def test_an_image_is_framed_on_its_cells_and_reframed_only_when_its_shape_changes(qtbot):
    heatmap = MatrixHeatmap(colormap="viridis")
    assert heatmap.set_image(np.zeros((3, 5)), (0.0, 1.0))
    assert heatmap.image.boundingRect().size().toTuple() == (5.0, 3.0)
    view = heatmap.plot.getViewBox()
    # exact: the view is set to the half-integer cell edges, no padding (no rounding anywhere)
    assert view.viewRange() == [[-0.5, 4.5], [-0.5, 2.5]]
    assert heatmap.cells_rect().getRect() == (-0.5, -0.5, 5, 3)
    assert not heatmap.set_image(np.ones((3, 5)), (0.0, 2.0))
    assert heatmap.image.levels.tolist() == [0.0, 2.0]
    assert heatmap.set_image(np.zeros((2, 2)), (0.0, 1.0))
    assert view.viewRange() == [[-0.5, 1.5], [-0.5, 1.5]]


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


def test_topic_matrices_draw_values_the_heads_way(qtbot):
    """One way to draw cell values: the topics' MatrixPlot uses the heads grid's CellTextItem
    (any numbers, rectangular matrices), painted where they fit and not at all where they don't."""
    import pyqtgraph as pg
    from explorer.gui.plotting.cell_text_item import CellTextItem

    plot = MatrixPlot()
    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    widget.ci.addItem(plot.plot)
    widget.resize(600, 360)
    widget.show()
    qtbot.waitExposed(widget)
    values = np.array([[-2.0, 0.25, 2.0], [12.345, -0.5, 0.0]])
    plot.set_matrix(values, (-2.0, 2.0), "CET-D1", values=True)
    assert plot.value_labels() == ["-2.00", "0.25", "2.00", "12.35", "-0.50", "0.00"]
    assert not any(isinstance(item, pg.TextItem) for item in plot.plot.items)
    assert isinstance(plot.values, CellTextItem)
    assert plot.values.boundingRect().getRect() == (-0.5, -0.5, 3, 2)
    plot.set_matrix(values, (-2.0, 2.0), "CET-D1", values=True, value_cells=values > 0)
    assert plot.value_labels() == ["0.25", "2.00", "12.35"]

    def lightness_across(row, col):  # across cell (row, col) of the grabbed widget
        image = painted(widget)  # laid out (the resize too) and painted now
        view = plot.plot.getViewBox()
        points = [view.mapViewToScene(pg.Point(col + dx, row)) for dx in np.linspace(-0.3, 0.3, 40)]
        return [image.pixelColor(widget.mapFromScene(p)).lightness() for p in points]

    plot.set_matrix(values, (-2.0, 2.0), "CET-D1", values=True)
    shown = lightness_across(0, 0)  # -2.00 on the darkest blue: white text
    plot.set_matrix(values, (-2.0, 2.0), "CET-D1", values=False)
    plain = lightness_across(0, 0)
    assert max(plain) - min(plain) < 10
    assert max(shown) > max(plain) + 60
    plot.set_matrix(values, (-2.0, 2.0), "CET-D1", values=True)
    widget.resize(150, 90)  # cells too small for a readable label: none painted
    squeezed = lightness_across(0, 0)
    assert max(squeezed) - min(squeezed) < 10
    widget.close()
