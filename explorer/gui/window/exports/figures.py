"""Build the figures to export offscreen, from a config or from results already computed.

A figure is the real view (HeadsGrid, PEPanel, KVPanel), fed the core's results
synchronously, styled white or dark and wrapped in a `FigureFrame` with an optional
settings line. Nothing is shown on screen and the live window is never touched, so
exporting cannot disturb what the class is looking at.

The command line builds each view fresh. The window keeps one frame per kind and
background in its `FigureCache` and refills it: every new view, plot item and paint device
costs PySide6 6.11 references it never gives back (issue 11's soak: Copy figure and Export
were most of the growth), while refilling a view only updates its items.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QApplication,
                               QComboBox, QLabel, QLayout, QLineEdit, QWidget)

from ....app.heap import trim_soon
from ....core import AttentionConfig, AttentionResult, KVTrace, forward, run_kv_cache
from ....export import csv_export
from ....core.files.output_files import Content, Streamed
from ...export.frame import FigureFrame
from ....export.naming import FigureSpec, default_name, settings_title
from ...export.render import render_png, render_svg, settle
from ....app.pictures import heads_picture
from ...heads.grid import COLORBAR_PX, MAX_GRID_HEADS, HeadsGrid
from ...kv.panel import KVPanel
from ...pe.panel import PEPanel

HEAD_CELL = QSize(400, 400)       # logical size per head in the grid
SINGLE_HEAD = QSize(640, 600)
PE_SIZE = QSize(1100, 760)
KV_SIZE = QSize(1300, 660)

# What a kept offscreen frame holds (measured: tests/gui/test_soak_exports.py; 2, 16 heads at 500 x 400 to
# 2000 x 1600 px): its backing store (4 B a device pixel) and its plots' images (about as much again) ...
KEPT_BYTES_PER_PIXEL = 8
KEPT_BYTES_PER_PANEL = 300 << 10  # ... and, in a grid, each head panel it ever drew (items, context menus)
CACHE_BUDGET_BYTES = 32 << 20  # all kept frames: a grid, a PE and a KV panel at a 1920 x 1080 window's sizes


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


VIEW_CLASSES = {"heads": HeadsGrid, "head": HeadsGrid, "pe": PEPanel, "kv": KVPanel}


def build_view(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None,
               look: ViewOptions | None = None) -> QWidget:
    """A fresh view of `spec` holding the given results (the GUI's own widget classes)."""
    if spec.kind not in VIEW_CLASSES:
        raise ValueError(f"no offscreen view for {spec}")
    view = VIEW_CLASSES[spec.kind]()
    fill_view(view, spec, result, trace, look)
    return view


def fill_view(view: QWidget, spec: FigureSpec, result, trace: KVTrace | None = None,
              look: ViewOptions | None = None) -> None:
    """Give a view (fresh, or reused from a FigureCache) the results and drawing options of `spec`."""
    look = look or ViewOptions()
    if spec.kind in ("heads", "head"):
        _fill_heads(view, spec, result, look)
    elif spec.kind == "pe":
        _fill_pe(view, result, look)
    else:
        _fill_kv(view, spec, trace if trace is not None else run_kv_cache(result.config), look)


def _fill_heads(view: HeadsGrid, spec: FigureSpec, result, look: ViewOptions) -> None:
    if look.colormap:
        view.set_colormap(look.colormap)
    if look.show_values:
        view.set_show_values(look.show_values)
    view.set_presentation(look.presentation)
    view.set_result(heads_picture(result))
    if spec.kind == "head":
        view.set_focus_head(spec.index)
    elif view.focus_head() is not None:  # a reused grid that showed one head
        view.set_focus_head(None)


def _fill_pe(view: PEPanel, result: AttentionResult, look: ViewOptions) -> None:
    view.set_presentation(look.presentation)
    view.set_result(result)
    if look.pe_positions:
        view.set_positions(look.pe_positions)
    if look.pe_dims is not None:
        view.set_dims(look.pe_dims)


def _fill_kv(view: KVPanel, spec: FigureSpec, trace: KVTrace, look: ViewOptions) -> None:
    view.set_presentation(look.presentation)
    view.set_trace(trace)
    view.pause()
    if look.kv_head_choice is not None:
        view.set_head_choice(look.kv_head_choice)
    view.set_step(spec.index)


class FigureCache:
    """The window's offscreen frames, one per (view class, background), refilled for each export.

    A frame is reused for results of the same kind (a random model's or a pretrained layer's),
    whatever their tokens and head count, as the live views are: a refilled grid can draw its
    cell edges up to 1 px off a fresh grid's (its view box keeps a sub-pixel offset), which the
    tests allow and the eye does not see; rebuilding on every change of shape would leak as
    before (the soak changes the config between almost every two copies). Only frames whose drawing
    options are all given are kept (a window's exports always give them); anything else is
    built fresh and discarded. `clear()` closes and deletes them (the window does on close: a
    shown offscreen pyqtgraph widget must not outlive the app).

    Bounded by bytes: a kept frame costs its pixels and, for a grid, every head panel it ever drew
    (`frame_bytes`: a 16-head grid at the CLI's 400 px a head is about 25 MB). After each export the
    kept frames must fit `budget_bytes`: the least recently used go first, and a frame that alone
    does not fit is discarded after its export (built fresh next time, freed whole). Frames of one
    background only: an export in the other background discards the kept set first (a white and a
    dark set held 80 MB in issue 21's soak). Discarding frees a frame whole
    (tests/gui/test_soak_exports.py).
    """

    def __init__(self, budget_bytes: int = CACHE_BUDGET_BYTES):
        self.budget_bytes = budget_bytes
        self._frames: OrderedDict[tuple, tuple[tuple, FigureFrame]] = OrderedDict()  # key -> (shape, frame), oldest first
        self._panels: dict[tuple, int] = {}  # key -> the most head panels its grid has drawn
        self._bytes: dict[tuple, int] = {}   # key -> frame_bytes when it was last released

    @staticmethod
    def key(spec: FigureSpec, background: str, look: ViewOptions | None) -> tuple | None:
        if look is None or spec.kind not in VIEW_CLASSES:
            return None
        complete = {"heads": look.colormap and look.show_values, "head": look.colormap and look.show_values,
                    "pe": look.pe_positions and look.pe_dims is not None,
                    "kv": look.kv_head_choice is not None}[spec.kind]
        return (VIEW_CLASSES[spec.kind].__name__, background) if complete else None

    @staticmethod
    def shape(spec: FigureSpec, result, trace) -> tuple:
        """What a kept frame must have drawn before to be refilled: the same kind of results."""
        return (type(trace if spec.kind == "kv" else result).__name__,)

    def take(self, key: tuple | None, shape: tuple) -> FigureFrame | None:
        """The kept frame for `key` if it was laid out for `shape`; one for another shape is discarded."""
        if key is not None:
            self._keep_background(key[1])
        if key is None or key not in self._frames:
            return None
        kept_shape, frame = self._frames[key]
        if kept_shape == shape:
            self._frames.move_to_end(key)
            return frame
        self._drop(key)
        return None

    def get(self, key: tuple | None) -> FigureFrame | None:
        return None if key is None or key not in self._frames else self._frames[key][1]

    def put(self, key: tuple | None, shape: tuple, frame: FigureFrame) -> None:
        if key is not None:
            self._keep_background(key[1])
            if key in self._frames and self._frames[key][1] is not frame:
                self._drop(key)
            self._frames[key] = (shape, frame)
            self._frames.move_to_end(key)

    def _keep_background(self, background: str) -> None:
        """Discard the kept frames of any other background (see the class)."""
        for other in [k for k in self._frames if k[1] != background]:
            self._drop(other)

    def _drop(self, key: tuple) -> None:
        _shape, frame = self._frames.pop(key)
        self._panels.pop(key, None)
        self._bytes.pop(key, None)
        discard(frame)

    def _key_of(self, frame: QWidget) -> tuple | None:
        return next((key for key, (_shape, kept) in self._frames.items() if kept is frame), None)

    def holds(self, frame: QWidget) -> bool:
        return self._key_of(frame) is not None

    def release(self, frame: QWidget) -> None:
        """Done with a frame: a kept one is hidden for next time (if the kept frames fit the
        budget with it), any other discarded."""
        key = self._key_of(frame)
        if key is None:
            discard(frame)
            return
        view = getattr(frame, "view", None)
        if isinstance(view, HeadsGrid):
            self._panels[key] = max(self._panels.get(key, 0), len(view.visible_heads()))
        self._bytes[key] = frame_bytes(frame, self._panels.get(key, 0))
        frame.hide()
        self._fit(key)

    def _fit(self, newest: tuple) -> None:
        """Drop the least recently used frames, `newest` last, until the rest fit the budget."""
        for key in [k for k in self._frames if k != newest] + [newest]:
            if self.kept_bytes() <= self.budget_bytes:
                return
            self._drop(key)

    def kept_bytes(self) -> int:
        """What the kept frames hold, as `frame_bytes` estimated it when each was last released."""
        return sum(self._bytes.get(key, 0) for key in self._frames)

    def clear(self) -> None:
        for key in list(self._frames):
            self._drop(key)

    def __len__(self) -> int:
        return len(self._frames)


def frame_bytes(frame: QWidget, panels: int = 0) -> int:
    """About what a kept offscreen frame holds: its device pixels and `panels` head panels drawn."""
    ratio = frame.devicePixelRatioF()
    pixels = frame.width() * frame.height() * ratio * ratio
    return int(pixels * KEPT_BYTES_PER_PIXEL) + panels * KEPT_BYTES_PER_PANEL


def window_figure_cache(window) -> FigureCache:
    """The window's FigureCache, made on its first export (this module is not imported before)."""
    cache = window.figure_cache
    if cache is None:
        cache = window.figure_cache = FigureCache()
    return cache


def framed_view(spec: FigureSpec, result, trace, look: ViewOptions | None, background: str,
                cache: FigureCache | None = None) -> FigureFrame:
    """A frame holding spec's view filled with `result`/`trace`: the cache's, refilled, or a new one."""
    if spec.kind == "kv" and trace is None:
        trace = run_kv_cache(result.config)
    key = cache.key(spec, background, look) if cache is not None else None
    shape = FigureCache.shape(spec, result, trace) if key is not None else ()
    frame = cache.take(key, shape) if key is not None else None
    if frame is None:
        frame = FigureFrame(build_view(spec, result, trace, look), background, "")
        if key is not None:
            cache.put(key, shape, frame)
    else:
        fill_view(frame.view, spec, result, trace, look)
    hide_controls(frame.view)
    return frame


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
                 look: ViewOptions | None = None, cache: FigureCache | None = None) -> FigureFrame:
    """The view in a frame, laid out offscreen at `size` (default: `default_view_size` + frame)."""
    frame = framed_view(spec, result, trace, look, background, cache)
    # a KV figure draws its trace: named by the trace's config (the window may show the trace of
    # the previous picture while the new one's is computed; its step can be past the new tokens)
    shown = trace.config if spec.kind == "kv" and trace is not None else result.config
    line = settings_title(shown, spec)
    frame.set_title(line if title else "")
    frame.description = line  # written into the PNG / SVG metadata, title shown or not
    if size is None:
        size = frame.size_for_view(default_view_size(spec, shown))
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
                 look: ViewOptions | None = None, size: QSize | None = None,
                 cache: FigureCache | None = None) -> list[tuple[str, Content]]:
    """(default file name, file content) for every spec, computed and rendered synchronously.
    With a `cache` (the window's) the offscreen frames are reused.

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
                             size=size, look=look, cache=cache)
        try:
            items.append((name, figure_bytes(frame, options)))
        finally:
            release(frame, cache)
    return items


def _streamed_csv(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None) -> Streamed:
    if spec.kind not in ("heads", "head", "pe", "kv"):
        raise ValueError(f"no CSV for {spec}")
    return Streamed(lambda: csv_export.csv_bytes(csv_pieces(spec, result, trace)))


def release(frame: QWidget, cache: FigureCache | None) -> None:
    """Done with an exported frame: kept by the cache, or discarded; then the freed heap goes back."""
    if cache is not None:
        cache.release(frame)
    else:
        discard(frame)
    trim_soon()  # on the trimmer thread in the window (app.heap)


def discard(frame: QWidget) -> None:
    """Close and delete an offscreen figure now (not at interpreter exit, where it can chatter)."""
    frame.close()
    frame.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
