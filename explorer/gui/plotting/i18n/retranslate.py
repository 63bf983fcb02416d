"""Rewrite every text under a widget through one function (the live language switch).

Covers what Qt widgets show (window titles, tooltips, status tips, labels, buttons, group
boxes, placeholders, spin-box affixes, combo items, tabs, table items and headers, menus and
actions) and what pyqtgraph draws (plot titles, axis labels, legend and text items). Widgets
that build their text from data refresh themselves on ``QEvent.LanguageChange`` or on the
next result; this only maps texts already shown.
"""

from __future__ import annotations

from typing import Callable

import shiboken6
from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QComboBox, QGraphicsView,
                               QGroupBox, QLabel, QLineEdit, QMenu, QTableWidget, QTabWidget,
                               QWidget)

from ..labels import plain_tooltip, plain_tooltip_text

Convert = Callable[[str], str]


def _swap(get, put, convert: Convert) -> None:
    text = get()
    shown = plain_tooltip_text(text)  # a user's text in a tooltip: convert what it shows
    new = convert(text) if shown is None else plain_tooltip(convert(shown))
    if new != text:
        put(new)


def _actions(widget: QWidget, convert: Convert, seen: set) -> None:
    for action in widget.actions():
        if action in seen:
            continue
        seen.add(action)
        for get, put in ((action.text, action.setText), (action.toolTip, action.setToolTip),
                         (action.statusTip, action.setStatusTip),
                         (action.iconText, action.setIconText)):
            _swap(get, put, convert)
        menu = action.menu()
        if menu is not None:
            retranslate_tree(menu, convert, seen)


def _widget(widget: QWidget, convert: Convert) -> None:
    for get, put in ((widget.windowTitle, widget.setWindowTitle),
                     (widget.toolTip, widget.setToolTip), (widget.statusTip, widget.setStatusTip),
                     (widget.whatsThis, widget.setWhatsThis)):
        _swap(get, put, convert)
    if isinstance(widget, (QLabel, QAbstractButton)):
        _swap(widget.text, widget.setText, convert)
    if isinstance(widget, QLineEdit):
        _swap(widget.placeholderText, widget.setPlaceholderText, convert)
    if isinstance(widget, QGroupBox):
        _swap(widget.title, widget.setTitle, convert)
    if isinstance(widget, QMenu):
        _swap(widget.title, widget.setTitle, convert)
    if isinstance(widget, QAbstractSpinBox):
        _swap(widget.specialValueText, widget.setSpecialValueText, convert)
        for name in ("prefix", "suffix"):
            if hasattr(widget, name):
                _swap(getattr(widget, name), getattr(widget, "set" + name.title()), convert)
    if isinstance(widget, QComboBox):
        for i in range(widget.count()):
            _swap(lambda i=i: widget.itemText(i), lambda t, i=i: widget.setItemText(i, t), convert)
            _swap(lambda i=i: widget.itemData(i, 3) or "",  # Qt.ToolTipRole
                  lambda t, i=i: widget.setItemData(i, t, 3), convert)
    if isinstance(widget, QTabWidget):
        for i in range(widget.count()):
            _swap(lambda i=i: widget.tabText(i), lambda t, i=i: widget.setTabText(i, t), convert)
            _swap(lambda i=i: widget.tabToolTip(i), lambda t, i=i: widget.setTabToolTip(i, t),
                  convert)
    if isinstance(widget, QTableWidget):
        _table(widget, convert)
    if isinstance(widget, QGraphicsView) and widget.scene() is not None:
        _scene(widget.scene(), convert)


def _table(table: QTableWidget, convert: Convert) -> None:
    items = [table.horizontalHeaderItem(c) for c in range(table.columnCount())]
    items += [table.verticalHeaderItem(r) for r in range(table.rowCount())]
    items += [table.item(r, c) for r in range(table.rowCount()) for c in range(table.columnCount())]
    for item in items:
        if item is not None:
            _swap(item.text, item.setText, convert)
            _swap(item.toolTip, item.setToolTip, convert)


def _scene(scene, convert: Convert) -> None:
    import pyqtgraph as pg
    for item in scene.items():
        if isinstance(item, pg.AxisItem) and item.labelText:
            new = convert(item.labelText)
            if new != item.labelText:
                item.setLabel(new, units=item.labelUnits or None, **item.labelStyle)
        elif isinstance(item, pg.LabelItem):
            _swap(lambda: item.text, lambda t: item.setText(t), convert)
        elif isinstance(item, pg.TextItem):
            _swap(item.toPlainText, item.setText, convert)
        if hasattr(item, "toolTip"):
            _swap(item.toolTip, item.setToolTip, convert)


def retranslate_tree(root: QWidget, convert: Convert, seen: set | None = None) -> None:
    """Apply `convert` to every text of `root` and its descendants (and their actions/menus)."""
    seen = set() if seen is None else seen
    if not shiboken6.isValid(root):  # a closed window whose deleteLater ran meanwhile
        return
    for widget in [root, *root.findChildren(QWidget)]:
        if not shiboken6.isValid(widget) or widget in seen:  # deleted meanwhile (deleteLater)
            continue
        seen.add(widget)
        _widget(widget, convert)
        _actions(widget, convert, seen)
