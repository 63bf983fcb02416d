"""Repeated actions must not pile things up (issue 11's 10,000-action run).

PySide6 6.11.3 leaks one reference to None for each virtual method Qt first calls on a new
Python-made wrapper: painting on a new QPixmap / QImage / QPicture costs six, every time.
The labels' atlas (202 pixmaps) was rebuilt per heatmap and per font change, so one
presentation toggle leaked ~2,500 None references and a Copy figure ~6,400. The atlas is now
shared (cell_text_item.shared_atlas); these tests fail if per-action rebuilding comes back,
and if the binding stops leaking the first test says so (the bounds then hold trivially).
Counts of references and objects, not times: nothing here depends on the machine's speed.
"""

import gc
import sys

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QPainter, QPixmap

from explorer.core import AttentionConfig
from explorer.gui.plotting.cell_text_item import shared_atlas
from qt_settle import run_posted_events
from window_support import settle


def growth_per_call(count, action, repeats: int) -> float:
    """What count() gains per call of action(i), after two calls of warm-up (collected first)."""
    for i in range(2):
        action(i)
    gc.collect()
    before = count()
    for i in range(repeats):
        action(i)
    gc.collect()
    return (count() - before) / repeats


def none_growth(action, repeats: int) -> float:
    """None references gained per call of action(i)."""
    return growth_per_call(lambda: sys.getrefcount(None), action, repeats)


def paint_on_a_new_pixmap(_i):
    pixmap = QPixmap(4, 4)
    painter = QPainter(pixmap)
    painter.end()


def test_the_binding_behaviour_these_bounds_are_about(qapp):
    """Documents the leak (6 per new device on PySide6 6.11.3). Not an assertion on PySide:
    a fixed binding gives 0 and the other tests still hold."""
    per_device = none_growth(paint_on_a_new_pixmap, 50)
    # rounded: a thread another test left finishing may drop a None reference meanwhile (5.98
    # was seen once); the binding's own count per device is a whole number
    assert round(per_device) in (0, 6), per_device


@pytest.fixture
def window_config():
    return AttentionConfig(tokens=tuple("abcdef"), d_model=8, n_heads=2)


@pytest.fixture
def window_size():
    return (1200, 800)


@pytest.fixture
def values_on(qtbot, window):
    """The shared window with every cell's value printed: the labels are what leaked."""
    window.state.view.show_values = "on"
    settle(qtbot, window)


def test_one_atlas_per_font_size_and_ratio(qapp):
    from PySide6.QtGui import QFont
    first = shared_atlas(QFont("Noto Sans"), 11, 1.0)
    assert shared_atlas(QFont("Noto Sans"), 11, 1.0) is first
    assert shared_atlas(QFont("Noto Sans"), 12, 1.0) is not first


@pytest.mark.usefixtures("values_on")
def test_presentation_toggles_do_not_rebuild_label_pixmaps(qtbot, window):
    def toggle(_i):
        window.state.view.presentation = not window.state.view.presentation
        run_posted_events()  # the relayout it posted
        window.repaint()

    growth = none_growth(toggle, 10)
    assert growth < 300, f"{growth:.0f} None references per toggle (2,472 when each toggle rebuilt)"


@pytest.mark.usefixtures("values_on")
def test_copy_figure_does_not_rebuild_label_pixmaps(qtbot, window):
    from explorer.gui.window.exports.export_dialog import copy_figure
    growth = none_growth(lambda _i: copy_figure(window), 4)
    # 6,402 before the shared atlas, ~1,560 with a fresh offscreen grid per copy, ~84 with the
    # window's FigureCache reusing it (figures.FigureCache)
    assert growth < 400, f"{growth:.0f} None references per copy"


@pytest.mark.usefixtures("values_on")
def test_topics_opened_again_and_again_leave_no_objects_behind(qtbot, window):
    controller = window.findChild(QObject, "topics_controller")
    keys = sorted(controller.actions)

    def objects_after_a_round():
        for key in keys:
            controller.show_topic(key)
            settle(qtbot, window)
        window.tabs.setCurrentIndex(0)
        for index in reversed(range(3, window.tabs.count())):
            window._close_tab(index)  # closable topic tabs
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        settle(qtbot, window)
        return len(window.findChildren(QObject))

    objects_after_a_round()  # the views are built once
    first = objects_after_a_round()
    assert [objects_after_a_round() for _ in range(3)] == [first] * 3


def test_the_shared_atlases_stay_within_their_memory_bound(qapp):
    from PySide6.QtGui import QFont

    from explorer.gui.plotting import cell_text_item
    for px in range(7, 60, 2):  # every size a window, presentation mode and a 4x export reach
        for dpr in (1.0, 2.0, 4.0):
            shared_atlas(QFont("Noto Sans"), px, dpr)
    held = sum(map(cell_text_item._atlas_bytes, cell_text_item._ATLASES.values()))
    biggest = max(map(cell_text_item._atlas_bytes, cell_text_item._ATLASES.values()))
    assert held <= cell_text_item.MAX_ATLAS_BYTES + biggest


def weakref_growth(action, repeats: int) -> float:
    """Live weak references gained per call of action(i). PySide makes one for each connection to
    a bound method; a disconnect should drop it."""
    import weakref
    return growth_per_call(lambda: sum(1 for o in gc.get_objects() if type(o) is weakref.ReferenceType),
                           action, repeats)


def test_the_binding_keeps_a_weak_reference_per_disconnect(qapp):
    """Documents what the next test is about: a PlotItem removed from a layout and added again
    reconnects its auto-range button's view signals, and PySide6 6.11.3 keeps the weak
    reference of each one it disconnects (2 per cycle). A fixed binding gives 0."""
    import pyqtgraph as pg
    layout = pg.GraphicsLayoutWidget()
    plot = layout.addPlot(row=0, col=0)

    def remove_and_add(_i):
        layout.ci.removeItem(plot)
        layout.ci.addItem(plot, row=0, col=0)

    try:
        assert round(weakref_growth(remove_and_add, 20)) in (0, 2)
    finally:
        layout.close()
        layout.deleteLater()
        run_posted_events()


def test_refocusing_the_heads_grid_keeps_no_weak_references(qtbot, window):
    """Each focus change re-lays out the heads grid (its plots removed and added again): with
    the auto-range button off views, nothing is kept per change (2 to 4 before)."""
    def refocus(i):
        window.set_focus_head(None if i % 2 else 1)
        settle(qtbot, window)

    try:
        growth = weakref_growth(refocus, 20)
    finally:
        window.set_focus_head(None)
    assert growth < 0.5, f"{growth:.2f} weak references kept per focus change"


def test_rearranging_the_training_curves_keeps_no_weak_references(qtbot):
    """The Train tab's curves go from four in a row to two rows as the tab narrows."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from explorer.gui.training.curves import TrainingCurves
    tab = QWidget()  # as in the window: pyqtgraph's own close() of the view crashes PySide
    qtbot.addWidget(tab)
    QVBoxLayout(tab).addWidget(TrainingCurves())
    tab.show()

    def narrow_and_widen(i):
        tab.resize(300 if i % 2 else 1600, 400)
        run_posted_events()

    try:
        growth = weakref_growth(narrow_and_widen, 10)
    finally:  # a shown pyqtgraph widget alive at exit crashes it (a failure's traceback keeps it)
        tab.hide()
    assert growth < 0.5, f"{growth:.2f} weak references kept per rearrangement"
