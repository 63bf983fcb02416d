"""Presentation mode on a projector: at 1024 × 768, 1280 × 720 and 1920 × 1080 every view fits.

The window is given the projector as its screen (``screen_size``) and that size; in presentation
mode every tab and every topic must then lie inside the window (nothing off the right edge, no
horizontal scrolling) and no label, button or check box may show less than its text.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import (QAbstractButton, QAbstractScrollArea, QComboBox, QLabel, QWidget)

from explorer.core import AttentionConfig
from explorer.gui.plotting import fonts
from explorer.gui.topics import TOPICS, TopicsController
from qt_settle import problems_left, run_posted_events

# every layout check runs in the English and in the Korean UI (the Korean texts must fit too)
pytestmark = pytest.mark.usefixtures("ui_language")

PROJECTORS = [(1024, 768), (1280, 720), (1920, 1080)]
WAIT_MS = 60_000


def present_on(window, qtbot, width: int, height: int) -> None:
    window.screen_size = lambda: QSize(width, height)
    window.resize(width, height)
    window.state.view.presentation = True
    qtbot.waitUntil(lambda: window.width() <= width and window.height() <= height, timeout=5000)


def views(window, qtbot):
    """Each tab, then each topic (its compute finished), as the current page."""
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.waitUntil(window.state.is_idle, timeout=WAIT_MS)
        run_posted_events()  # the page laid out
        yield window.tabs.tabText(i)
    controller = window.findChild(TopicsController)
    for topic in TOPICS:
        view = controller.show_topic(topic.key)
        qtbot.waitUntil(window.state.is_idle, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not view.runner.is_busy(), timeout=WAIT_MS)
        run_posted_events()
        yield topic.key


def clipped(widget: QWidget) -> bool:
    """A label, button or box narrower than its own text needs (Qt then cuts or elides it)."""
    if isinstance(widget, QLabel):
        if widget.wordWrap() or not widget.text() or widget.textFormat() == 1:  # rich text
            return False
        need = widget.fontMetrics().horizontalAdvance(widget.text())
        return widget.contentsRect().width() + 1 < need
    if isinstance(widget, (QAbstractButton, QComboBox)):
        return widget.width() + 1 < widget.minimumSizeHint().width()
    return False


def offenders(window) -> list[str]:
    page = window.tabs.currentWidget()
    inside = window.rect()
    found = []
    for widget in [page, *page.findChildren(QWidget)]:
        if not widget.isVisibleTo(window) or widget.width() <= 0:
            continue
        top_left = widget.mapTo(window, widget.rect().topLeft())
        rect = widget.rect().translated(top_left)
        if rect.right() > inside.right() + 1 or rect.left() < inside.left() - 1:
            found.append(f"{type(widget).__name__} {widget.objectName()!r} at x {rect.left()}–"
                         f"{rect.right()} outside 0–{inside.right()}")
        elif clipped(widget):
            found.append(f"{type(widget).__name__} text {getattr(widget, 'text', lambda: '')()!r}"
                         f" cut at {widget.width()} px")
        if isinstance(widget, QAbstractScrollArea) and widget.horizontalScrollBar().isVisible():
            found.append(f"{type(widget).__name__} {widget.objectName()!r} scrolls sideways")
    return found


@pytest.mark.parametrize("width, height", PROJECTORS)
def test_every_view_fits_a_projector_in_presentation_mode(qtbot, make_window, width, height):
    window = make_window(size=(1400, 900))
    present_on(window, qtbot, width, height)
    assert window.controls_dock.isHidden()  # the plots take the screen
    # exact: the same function of the same screen (quotients of integers, exact in binary)
    assert fonts.font_scale() == fonts.screen_scale(width, height)
    problems = {}
    for name in views(window, qtbot):
        found = problems_left(qtbot, lambda: offenders(window))  # the layout's last passes
        if found:
            problems[name] = found[:5]
    assert problems == {}


def test_controls_come_back_after_presentation_and_toggle_with_f9(qtbot, make_window):
    window = make_window(size=(1400, 900))
    present_on(window, qtbot, 1024, 768)
    action = window.shortcut_actions["toggle_controls"]
    assert not action.isChecked()
    action.trigger()  # F9: the controls over the plots, for one change
    assert not window.controls_dock.isHidden() and action.isChecked()
    action.trigger()
    assert window.controls_dock.isHidden()
    window.state.view.presentation = False
    assert not window.controls_dock.isHidden()
    assert fonts.font_scale() == 1.0


def test_a_dock_hidden_before_presenting_stays_hidden_after(qtbot, make_window):
    window = make_window(size=(1400, 900))
    window.controls_dock.hide()
    window.state.view.presentation = True
    window.state.view.presentation = False
    assert window.controls_dock.isHidden()


@pytest.mark.parametrize("size, expected", [((1024, 768), 1.0), ((1280, 720), 0.9375),
                                            ((1920, 1080), 1.40625), ((800, 600), 0.85),
                                            ((3840, 2160), 2.0)])
def test_presentation_text_keeps_its_share_of_the_screen(size, expected):
    assert fonts.screen_scale(*size) == expected  # exact: w / 1024 and h / 768, or a bound


def test_window_never_opens_larger_than_its_screen(qtbot, make_window):
    window = make_window(show=False)
    window.screen_size = lambda: QSize(1024, 768)
    window.resize(1400, 900)
    window.fit_to_screen()
    assert (window.width(), window.height()) == (1024, 768)


MANY_HEADS = [AttentionConfig(tokens=tuple("나는 학교에 버스로 갔다 그리고 집에 왔다 !".split()), d_model=48,
                              n_heads=12, seed=3),
              AttentionConfig(tokens=tuple(f"tok{i}" for i in range(20)), d_model=64, n_heads=16)]


@pytest.mark.parametrize("config", MANY_HEADS, ids=["12-heads", "16-heads"])
@pytest.mark.parametrize("width, height", PROJECTORS)
def test_many_heads_stay_inside_the_view_in_presentation_mode(qtbot, make_window, config,
                                                              width, height):
    """Four columns of 12 heads at 1024 × 768: the last column and the colour bar ran off the
    right edge (the grid guessed the axes' width; long token labels need more)."""
    window = make_window(config, size=(1400, 900))
    present_on(window, qtbot, width, height)
    grid = window.heads_grid
    view = grid._view

    def outside() -> list:
        right = view.viewport().width() + 1
        return [(len(grid.plot_items()), item.sceneBoundingRect())
                for item in (*grid.plot_items(), grid._bar) if item.sceneBoundingRect().right() > right]
    assert grid.plot_items()
    assert problems_left(qtbot, outside) == []  # the grid re-laid out for the projector's fonts


@pytest.mark.parametrize("width, height", PROJECTORS)
def test_the_shortcuts_dialog_fits_a_projector(qtbot, make_window, monkeypatch, width, height):
    """At 1024 × 768 in presentation mode the table is taller than the screen: it scrolls, and
    the dialog (its Close button too) stays on the screen, every column whole."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QDialogButtonBox
    from explorer.gui.window.shortcuts import ShortcutsDialog

    window = make_window(size=(1400, 900))
    present_on(window, qtbot, width, height)
    room = QRect(0, 0, width, height)
    # the class, not the dialog: it fits itself as it is shown
    monkeypatch.setattr(ShortcutsDialog, "available_rect", lambda self: room)
    dialog = window.show_shortcuts()
    qtbot.waitExposed(dialog)
    table = dialog.table

    def unfitted() -> list:
        found = [] if room.contains(dialog.frameGeometry()) else [(dialog.frameGeometry(), room)]
        metrics = table.fontMetrics()
        for column in range(table.columnCount()):
            need = max(metrics.horizontalAdvance(table.item(r, column).text())
                       for r in range(table.rowCount()))
            if table.columnWidth(column) < need:
                found.append((column, table.columnWidth(column), need))
        return found
    # fit_to_contents runs after the font change (a deferred slot): wait for what it sets
    assert problems_left(qtbot, unfitted) == []
    run_posted_events()  # the dialog laid out at its new size
    close = dialog.findChild(QDialogButtonBox)
    assert dialog.rect().contains(close.geometry()) and close.isVisible()
    assert not table.horizontalScrollBar().isVisible()
    if height <= 768:
        assert table.verticalScrollBar().isVisible()  # 16 pt rows: taller than the screen
    dialog.close()


def test_the_kv_flops_curves_get_room_at_1024x768(qtbot, make_window):
    """The FLOPs plot had ~60 px of curves and a y label cut off: the legend now sits inside the
    plot, the y label is only the unit, the side column is wider so the counters wrap less."""
    window = make_window(size=(1400, 900))
    present_on(window, qtbot, 1024, 768)
    window.tabs.setCurrentWidget(window.kv_panel)
    qtbot.waitUntil(lambda: window.kv_panel.trace is not None, timeout=WAIT_MS)
    flops = window.kv_panel.flops_plot
    view = flops.plot.getViewBox()
    qtbot.waitUntil(lambda: view.height() >= 100, timeout=5000)  # the layout settles
    assert flops.legend.parentItem() is view
    label = flops.plot.getAxis("left").label  # rotated: its width runs along the axis
    assert label.boundingRect().width() <= view.height()
    window.state.view.presentation = False
    run_posted_events()
    assert flops.legend.parentItem() is not view  # back under the plot
    from explorer.gui.plotting.i18n import translate
    assert flops.plot.getAxis("left").labelText == translate("kv.flops_plot", "cumulative")



@pytest.mark.parametrize("width, height", PROJECTORS[:2])
def test_the_scaling_sweep_and_the_training_curves_get_room(qtbot, make_window, width, height):
    """The √d_head sweep had a third of the plots' height (~60 px of curve at 1024 × 768) and
    the Train tab's curves ~55 px: the sweep now runs the full height beside the stacked
    histograms, and presentation gives the curves half of the Train tab's height. Every title
    stays inside the view."""
    window = make_window(size=(1400, 900))
    present_on(window, qtbot, width, height)
    view = window.findChild(TopicsController).show_topic("scaling")
    qtbot.waitUntil(lambda: view.data is not None and not view.runner.is_busy(), timeout=WAIT_MS)
    # the layout settles (a fixed wait could be too short on a loaded machine)
    qtbot.waitUntil(lambda: view.sweep_plot.getViewBox().height() >= 150, timeout=5000)
    sweep = view.sweep_plot.getViewBox().height()
    assert sweep >= 150 and sweep >= 2 * view.raw_plot.getViewBox().height(), sweep
    shown = view.graphics.mapToScene(view.graphics.viewport().rect()).boundingRect()
    for plot in (view.raw_plot, view.scaled_plot, view.sweep_plot):
        title = plot.titleLabel.item.sceneBoundingRect()
        assert shown.left() - 1 <= title.left() and title.right() <= shown.right() + 1, plot.titleLabel.text
    window.install_training()
    window.tabs.setCurrentWidget(window.train_view)
    heights = lambda: [plot.getViewBox().height() for plot in window.train_view.curves.plots]  # noqa: E731
    qtbot.waitUntil(lambda: min(heights()) >= 57, timeout=5000)
    curves = heights()
    assert min(curves) >= 57, curves  # 45–53 px before
