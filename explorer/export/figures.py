"""Build the figures to export offscreen, from a config or from results already computed.

A figure is the real view (HeadsGrid, PEPanel, KVPanel) built fresh, fed the core's
results synchronously, styled white or dark and wrapped in a `FigureFrame` with an
optional settings line. Nothing is shown on screen and the live window is never touched,
so exporting cannot disturb what the class is looking at.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

from ..core import AttentionConfig, AttentionResult, KVTrace, forward, run_kv_cache
from . import csv_export
from .frame import FigureFrame
from .naming import FigureSpec, default_name, settings_title
from .render import png_bytes, render_image, render_svg, settle

HEAD_CELL = QSize(440, 420)       # logical size per head in the grid
SINGLE_HEAD = QSize(640, 600)
PE_SIZE = QSize(1100, 760)
KV_SIZE = QSize(1100, 640)
GRID_MAX_COLUMNS = 4


@dataclass
class ExportOptions:
    fmt: str = "png"              # png | svg | csv
    scale: float = 1.0            # ignored when width is set
    width: int | None = None      # exact pixel width, height in proportion
    background: str = "white"     # white | dark
    title: bool = False           # one line of settings above the view


def default_view_size(spec: FigureSpec, config: AttentionConfig) -> QSize:
    """The logical (on-screen) size a figure gets when there is no window to copy it from."""
    if spec.kind == "heads":
        cols = min(config.n_heads, GRID_MAX_COLUMNS)
        rows = -(-config.n_heads // cols)
        return QSize(HEAD_CELL.width() * cols, HEAD_CELL.height() * rows)
    return {"head": SINGLE_HEAD, "pe": PE_SIZE, "kv": KV_SIZE}.get(spec.kind, PE_SIZE)


def build_view(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None) -> QWidget:
    """A fresh view of `spec` holding the given results (the GUI's own widget classes)."""
    if spec.kind in ("heads", "head"):
        from ..gui.heads_view import HeadsGrid
        view = HeadsGrid()
        view.set_result(result)
        if spec.kind == "head":
            view.set_focus_head(spec.index)
        return view
    if spec.kind == "pe":
        from ..gui.pe_panel import PEPanel
        view = PEPanel()
        view.set_result(result)
        return view
    if spec.kind == "kv":
        from ..gui.kv_panel import KVPanel
        view = KVPanel()
        view.set_trace(trace if trace is not None else run_kv_cache(result.config))
        view.pause()
        view.set_step(spec.index)
        return view
    raise ValueError(f"no offscreen view for {spec}")


def build_figure(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None, *,
                 background: str = "white", title: bool = False,
                 size: QSize | None = None) -> FigureFrame:
    """The view in a frame, laid out offscreen at `size` (default: `default_view_size` + frame)."""
    view = build_view(spec, result, trace)
    frame = FigureFrame(view, background, settings_title(result.config, spec) if title else "")
    if size is None:
        size = frame.size_for_view(default_view_size(spec, result.config))
    return settle(frame, size)


def figure_bytes(frame: FigureFrame, options: ExportOptions) -> bytes:
    """The figure encoded as PNG or SVG."""
    description = frame.title_label.text()
    if options.fmt == "png":
        image = render_image(frame, options.scale, options.width, frame.colours.background)
        return png_bytes(image, description)
    if options.fmt == "svg":
        return render_svg(frame, "Attention Explorer", description, frame.colours.background)
    raise ValueError(f"figure_bytes cannot write {options.fmt!r}")


def csv_text(spec: FigureSpec, result: AttentionResult, trace: KVTrace | None = None) -> str:
    """The numbers behind a figure as tidy CSV (Qt-free)."""
    if spec.kind == "heads":
        return csv_export.weights_csv(result)
    if spec.kind == "head":
        return csv_export.weights_csv(result, [spec.index])
    if spec.kind == "pe":
        return csv_export.pe_csv(result)
    if spec.kind == "kv":
        return csv_export.kv_csv(trace if trace is not None else run_kv_cache(result.config), spec.index)
    raise ValueError(f"no CSV for {spec}")


def export_items(config: AttentionConfig, specs: list[FigureSpec], options: ExportOptions,
                 result: AttentionResult | None = None,
                 trace: KVTrace | None = None) -> list[tuple[str, bytes]]:
    """(default file name, file content) for every spec, computed and rendered synchronously.

    Nothing is written here: the caller hands the list to `files.write_files`.
    """
    result = result if result is not None else forward(config)
    if trace is None and any(s.kind == "kv" for s in specs):
        trace = run_kv_cache(config)
    items = []
    for spec in specs:
        name = default_name(spec, config, options.fmt)
        if options.fmt == "csv":
            items.append((name, csv_text(spec, result, trace).encode("utf-8")))
            continue
        frame = build_figure(spec, result, trace, background=options.background, title=options.title)
        try:
            items.append((name, figure_bytes(frame, options)))
        finally:
            frame.close()
            frame.deleteLater()
    return items
