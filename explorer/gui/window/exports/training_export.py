"""Export from the Train tab: the shown snapshot as one figure, and the heads over training as an
animation (a PNG sequence and a looping GIF, written with Pillow; without Pillow, the PNGs only).

`install_training_export(window)` answers the tab's two export buttons (file dialogs, then
`export_shown_snapshot`, or the animation with progress and Cancel: training_animation.py's
`start_export`, which streams the frames to disk and asks before replacing files).
`export_all_snapshots` is the animation in one call (tests call it with a path directly).

Figures are fresh offscreen widgets of this package (the live tab is never touched), drawn by
the export floor (`render.render_png`, `frame.FigureFrame`) and written all-or-nothing by
`files.write_files`, like every other export. ExportError says what went wrong in one line.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....app.i18n import error_text
from ....core.files.output_files import ExportError, write_file
from ...export.frame import FigureFrame
from ...export.render import render_png, settle
from PySide6.QtWidgets import QFileDialog

from ...plotting.i18n import translate
from ...heads.grid import HeadsGrid
from . import training_animation as animation
from .training_animation import LAYER_HEIGHT, gif_available, run_title
from ...training.curves import TrainingCurves
from ...training.heads import SnapshotHeads

FIGURE_WIDTH = 1200
CURVES_HEIGHT = 520


def _heads(snapshot, probe, colormap: str | None) -> SnapshotHeads:
    heads = SnapshotHeads(HeadsGrid)
    if colormap:
        heads.set_colormap(colormap)
    heads.set_snapshot(snapshot, probe)
    return heads


def snapshot_figure(config, snapshot, probe, records, colormap: str | None = None,
                    background: str = "white") -> FigureFrame:
    """The heads of `snapshot` above the curves of `records`, the snapshot's step marked."""
    body = QWidget()
    layout = QVBoxLayout(body)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(_heads(snapshot, probe, colormap), snapshot.attention.shape[0] * 10)
    curves = TrainingCurves()
    curves.set_records(records)
    curves.set_marked_step(snapshot.step)
    layout.addWidget(curves, 15)
    frame = FigureFrame(body, background, run_title(config, snapshot.step))
    height = snapshot.attention.shape[0] * LAYER_HEIGHT + CURVES_HEIGHT
    return settle(frame, frame.size_for_view(QSize(FIGURE_WIDTH, height)))


def export_snapshot(path, config, snapshot, probe, records, colormap=None, scale: float = 1.0) -> Path:
    """Write the snapshot's figure as a PNG at `path`; returns the path written."""
    frame = snapshot_figure(config, snapshot, probe, records, colormap)
    try:
        data = render_png(frame, scale=scale, description=frame.description)
    finally:
        frame.deleteLater()
    return write_file(path, data, on_exists="overwrite")


def export_animation(folder, config, snapshots, probe, colormap=None, gif: bool = True,
                     on_exists: str = "error") -> list[Path]:
    """Write heads_step_00000.png … (one per snapshot) into `folder`, and heads.gif there when
    Pillow is installed and `gif`; returns the paths written. Streamed (animation.export_animation):
    one frame in memory at a time; nothing is left on failure."""
    return animation.export_animation(folder, config, snapshots, probe, HeadsGrid, colormap, gif, on_exists)


def export_shown_snapshot(view, path, scale: float = 1.0):
    """The Train tab's shown snapshot (heads and curves) as a PNG at `path`; None (and a message) if not."""
    snapshot = view.shown_snapshot()
    if snapshot is None:
        view.say(translate("window.training_export", "nothing to export yet"))
        return None
    try:
        written = export_snapshot(path, view.session.config, snapshot, view.probe(),
                                  view.session.records, view.colormap, scale)
    except (ExportError, ValueError) as exc:
        view.say(translate("window.training_export", "not exported: {reason}").format(reason=error_text(exc)))
        return None
    view.say(translate("window.training_export", "exported {path}").format(path=written))
    return written


def export_all_snapshots(view, folder) -> list:
    """Every snapshot's heads as a PNG sequence in `folder` (and a GIF with Pillow)."""
    try:
        written = export_animation(folder, view.session.config, view.session.snapshots,
                                   view.probe(), view.colormap)
    except ExportError as exc:
        view.say(translate("window.training_export", "not exported: {reason}").format(reason=error_text(exc)))
        return []
    extra = "" if gif_available() else translate("window.training_export", " (PNG sequence only: Pillow is not installed, no GIF)")
    view.say(translate("window.training_export", "exported {count} files to {folder}").format(count=len(written), folder=folder) + extra)
    return written


def _ask(window, kind: str) -> None:
    view = window.train_view
    if kind == "snapshot":
        snapshot = view.shown_snapshot()
        step = 0 if snapshot is None else snapshot.step
        path, _ = QFileDialog.getSaveFileName(window, translate("window.training_export", "Export the shown snapshot"),
                                              f"training_step_{step:05d}.png", "PNG (*.png)")
        if path:
            export_shown_snapshot(view, path)
    else:
        folder = QFileDialog.getExistingDirectory(window, translate("window.training_export", "Export the heads over training to a folder"))
        if folder:
            animation.start_export(view, folder, window)  # asks before replacing; progress, Cancel


def install_training_export(window) -> None:
    window.train_view.export_requested.connect(lambda kind: _ask(window, kind))
