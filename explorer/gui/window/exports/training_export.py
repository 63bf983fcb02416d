"""Export from the Train tab: the shown snapshot as one figure, and the heads over training as an
animation (a PNG sequence and a looping GIF, written with Pillow; without Pillow, the PNGs only).

`install_training_export(window)` answers the tab's two export buttons (file dialogs, then
`export_shown_snapshot` / `export_all_snapshots`, which tests call with a path directly).

Figures are fresh offscreen widgets of this package (the live tab is never touched), drawn by
the export floor (`render.render_png`, `frame.FigureFrame`) and written all-or-nothing by
`files.write_files`, like every other export. ExportError says what went wrong in one line.
"""

from __future__ import annotations

import io
from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....core.messages import QT_TRANSLATE_NOOP
from ....app.i18n import error_text
from ....export.files import ExportError, make_folders, remove_empty, write_file, write_files
from ....export.frame import FigureFrame
from ....export.render import render_image, render_png, settle
from PySide6.QtWidgets import QFileDialog

from ...plotting.i18n import translate
from ...heads.grid import HeadsGrid
from ...training.curves import TrainingCurves
from ...training.heads import SnapshotHeads

FIGURE_WIDTH = 1200
LAYER_HEIGHT = 340     # the heads of one layer
CURVES_HEIGHT = 520
FRAME_WIDTH = 960      # animation frames: heads only
GIF_FRAME_MS = 400


def run_title(config, step: int) -> str:
    return (f"{config.task} · {config.n_layers} layer(s) × {config.n_heads} heads · "
            f"d_model {config.d_model} · seed {config.seed} · lr {config.lr:g} · step {step}")


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


def _frames(config, snapshots, probe, colormap):
    """Yield (step, QImage) for every snapshot, drawn on one offscreen frame."""
    heads = SnapshotHeads(HeadsGrid)
    if colormap:
        heads.set_colormap(colormap)
    heads.set_snapshot(snapshots[0], probe)
    frame = FigureFrame(heads, "white", run_title(config, snapshots[0].step))
    size = frame.size_for_view(QSize(FRAME_WIDTH, snapshots[0].attention.shape[0] * LAYER_HEIGHT))
    settle(frame, size)
    try:
        for snapshot in snapshots:
            heads.set_snapshot(snapshot, probe)
            frame.title_label.setText(run_title(config, snapshot.step))
            settle(frame)
            yield snapshot.step, render_image(frame)
    finally:
        frame.deleteLater()


def export_animation(folder, config, snapshots, probe, colormap=None, gif: bool = True) -> list[Path]:
    """Write heads_step_00000.png … (one per snapshot) into `folder`, and heads.gif there when
    Pillow is installed and `gif`; returns the paths written. Nothing is left on failure."""
    if not snapshots:
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "there are no snapshots to export yet"))
    from ....export.render import png_bytes
    width = len(str(snapshots[-1].step))
    items, images = [], []
    for step, image in _frames(config, snapshots, probe, colormap):
        items.append((f"heads_step_{step:0{max(5, width)}d}.png", png_bytes(image, run_title(config, step))))
        images.append(image)
    gif_data = _gif(images) if gif else None
    if gif_data is not None:
        items.append(("heads.gif", gif_data))
    created = make_folders(folder)
    try:
        return write_files(folder, items, on_exists="overwrite")
    except BaseException:
        remove_empty(created)
        raise


def gif_available() -> bool:
    try:
        import PIL.Image  # noqa: F401  (a dependency; an older install may lack it)
    except ImportError:
        return False
    return True


def _gif(images) -> bytes | None:
    """The frames as one looping GIF (Pillow), or None without Pillow."""
    if not gif_available():
        return None
    from PIL import Image
    from ....export.png import image_rgb
    frames = [Image.fromarray(image_rgb(image)).convert("P", palette=Image.Palette.ADAPTIVE)
              for image in images]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:],
                   duration=GIF_FRAME_MS, loop=0)
    return out.getvalue()



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
            export_all_snapshots(view, folder)


def install_training_export(window) -> None:
    window.train_view.export_requested.connect(lambda kind: _ask(window, kind))
