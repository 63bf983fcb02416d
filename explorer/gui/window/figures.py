"""Build the figures to export offscreen, from a config or from results already computed.

A figure is the real view (HeadsGrid, PEPanel, KVPanel) built fresh, fed the core's
results synchronously, styled white or dark and wrapped in a `FigureFrame` with an
optional settings line. Nothing is shown on screen and the live window is never touched,
so exporting cannot disturb what the class is looking at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QApplication,
                               QComboBox, QLabel, QLayout, QLineEdit, QWidget)

from ...core import AttentionConfig, AttentionResult, KVTrace, forward, run_kv_cache
from ...export import csv_export
from ...export.files import Content, Streamed
from ...export.frame import FigureFrame
from ...export.naming import FigureSpec, default_name, settings_title
from ...export.render import render_png, render_svg, settle
from ..heads.grid import COLORBAR_PX, MAX_GRID_HEADS, HeadsGrid
from ..kv.panel import KVPanel
from ..pe.panel import PEPanel

HEAD_CELL = QSize(400, 400)       # logical size per head in the grid
SINGLE_HEAD = QSize(640, 600)
PE_SIZE = QSize(1100, 760)
KV_SIZE = QSize(1300, 660)


@dataclass
class ExportOptions:
    fmt: str = "png"              # png | svg | csv
    scale: float = 1.0            # ignored when width is set
    width: int | None = None      # exact pixel width, height in proportion
    background: str = "white"     # white | dark
    title: bool = False           # one line of settings above the view


@dataclass
class ViewOptions:
    """How the live window draws its views, copied onto the offscreen ones (None: the default)."""
    colormap: str | None = None
    show_values: str | None = None    # auto | on | off
    presentation: bool = False
    pe_positions: int | None = None   # rows of the PE table shown
    pe_dims: list[int] | None = None  # PE columns drawn as curves
    kv_head_choice: int | None = None  # index in the KV panel's head list (0 = all heads)


def default_view_size(spec: FigureSpec, config: AttentionConfig) -> QSize:
    """The logical (on-screen) size a figure gets when there is no window to copy it from.

    The grid is about square (heads side by side when there are two), about the size of the
    window's heads tab for 4–9 heads; the HeadsGrid picks its own columns inside it.
    """
    if spec.kind == "heads":
        heads = min(config.n_heads, MAX_GRID_HEADS)
        cols = heads if heads <= 2 else math.ceil(math.sqrt(heads))
        rows = math.ceil(heads / cols)
        return QSize(HEAD_CELL.width() * cols + COLORBAR_PX, HEAD_CELL.height() * rows)
    return {"head": SINGLE_HEAD, "pe": PE_SIZE, "kv": KV_SIZE}.get(spec.kind, PE_SIZE)


def build_view(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None,
               look: ViewOptions | None = None) -> QWidget:
    """A fresh view of `spec` holding the given results (the GUI's own widget classes)."""
    look = look or ViewOptions()
    if spec.kind in ("heads", "head"):
        return _heads_view(spec, result, look)
    if spec.kind == "pe":
        return _pe_view(result, look)
    if spec.kind == "kv":
        return _kv_view(spec, trace if trace is not None else run_kv_cache(result.config), look)
    raise ValueError(f"no offscreen view for {spec}")


def _heads_view(spec: FigureSpec, result: AttentionResult, look: ViewOptions) -> QWidget:
    view = HeadsGrid()
    if look.colormap:
        view.set_colormap(look.colormap)
    if look.show_values:
        view.set_show_values(look.show_values)
    view.set_presentation(look.presentation)
    view.set_result(result)
    if spec.kind == "head":
        view.set_focus_head(spec.index)
    return view


def _pe_view(result: AttentionResult, look: ViewOptions) -> QWidget:
    view = PEPanel()
    view.set_presentation(look.presentation)
    view.set_result(result)
    if look.pe_positions:
        view.set_positions(look.pe_positions)
    if look.pe_dims is not None:
        view.set_dims(look.pe_dims)
    return view


def _kv_view(spec: FigureSpec, trace: KVTrace, look: ViewOptions) -> QWidget:
    view = KVPanel()
    view.set_presentation(look.presentation)
    view.set_trace(trace)
    view.pause()
    if look.kv_head_choice is not None:
        view.set_head_choice(look.kv_head_choice)
    view.set_step(spec.index)
    return view


INPUT_TYPES = (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit)


def hide_controls(view: QWidget) -> None:
    """Hide buttons, sliders, spin boxes, ... and the labels in their row: a figure is not a form."""
    for widget in view.findChildren(QWidget):
        if isinstance(widget, INPUT_TYPES) and not isinstance(widget.parentWidget(), INPUT_TYPES):
            widget.hide()
            row = _layout_holding(widget)
            for i in range(row.count() if row is not None else 0):
                sibling = row.itemAt(i).widget()
                if isinstance(sibling, QLabel):
                    sibling.hide()


def _layout_holding(widget: QWidget) -> QLayout | None:
    parent = widget.parentWidget()
    stack = [parent.layout()] if parent is not None and parent.layout() is not None else []
    while stack:
        layout = stack.pop()
        for i in range(layout.count()):
            item = layout.itemAt(i)
            if item.widget() is widget:
                return layout
            if item.layout() is not None:
                stack.append(item.layout())
    return None


def build_figure(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None, *,
                 background: str = "white", title: bool = False, size: QSize | None = None,
                 look: ViewOptions | None = None) -> FigureFrame:
    """The view in a frame, laid out offscreen at `size` (default: `default_view_size` + frame)."""
    view = build_view(spec, result, trace, look)
    hide_controls(view)
    line = settings_title(result.config, spec)
    frame = FigureFrame(view, background, line if title else "")
    frame.description = line  # written into the PNG / SVG metadata, title shown or not
    if size is None:
        size = frame.size_for_view(default_view_size(spec, result.config))
    settle(frame, size)
    frame.restyle()  # the PE panel, e.g., draws (and colours its titles) only once shown
    return settle(frame)


def figure_bytes(frame: FigureFrame, options: ExportOptions) -> bytes:
    """The figure encoded as PNG or SVG."""
    description = frame.description
    if options.fmt == "png":
        return render_png(frame, options.scale, options.width, frame.colours.background, description)
    if options.fmt == "svg":
        return render_svg(frame, "Attention Explorer", description, frame.colours.background)
    raise ValueError(f"figure_bytes cannot write {options.fmt!r}")


def csv_text(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None) -> str:
    """The numbers behind a figure as tidy CSV (Qt-free)."""
    return "".join(csv_pieces(spec, result, trace))


def csv_pieces(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None):
    """`csv_text` as str pieces (for a streamed file: never the whole text at once)."""
    if spec.kind == "heads":
        return csv_export.weights_chunks(result)
    if spec.kind == "head":
        return csv_export.weights_chunks(result, [spec.index])
    if spec.kind == "pe":
        return csv_export.pe_chunks(result)
    if spec.kind == "kv":
        return csv_export.kv_chunks(trace if trace is not None else run_kv_cache(result.config), spec.index)
    raise ValueError(f"no CSV for {spec}")


def export_items(config: AttentionConfig, specs: list[FigureSpec], options: ExportOptions,
                 result: AttentionResult | None = None, trace: KVTrace | None = None,
                 look: ViewOptions | None = None, size: QSize | None = None) -> list[tuple[str, Content]]:
    """(default file name, file content) for every spec, computed and rendered synchronously.

    Nothing is written here: the caller hands the list to `files.write_files`. A CSV is
    `Streamed`: its text is made while it is written (`bytes(content)` gives it whole).
    """
    result = result if result is not None else forward(config)
    if trace is None and any(s.kind == "kv" for s in specs):
        trace = run_kv_cache(config)
    items = []
    for spec in specs:
        name = default_name(spec, config, options.fmt)
        if options.fmt == "csv":
            items.append((name, _streamed_csv(spec, result, trace)))
            continue
        frame = build_figure(spec, result, trace, background=options.background, title=options.title,
                             size=size, look=look)
        try:
            items.append((name, figure_bytes(frame, options)))
        finally:
            discard(frame)
    return items


def _streamed_csv(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None) -> Streamed:
    if spec.kind not in ("heads", "head", "pe", "kv"):
        raise ValueError(f"no CSV for {spec}")
    return Streamed(lambda: csv_export.csv_bytes(csv_pieces(spec, result, trace)))


def discard(frame: QWidget) -> None:
    """Close and delete an offscreen figure now (not at interpreter exit, where it can chatter)."""
    frame.close()
    frame.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
