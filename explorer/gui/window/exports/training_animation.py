"""The Train tab's animation export: every snapshot's heads as a PNG, and a looping GIF, streamed.

(Here in the window floor, beside training_export.py: views may not import the export floor.)

A run may hold thousands of snapshots (4,002 at the limits); the export once kept every frame in
memory (600 frames: 3.1 GB) and drew them all in one call on the GUI thread (45 s frozen). Now:

- `FrameDrawer` draws one snapshot at a time on one offscreen frame. Widgets can only be drawn on
  the GUI thread, so this part stays there, one frame per event-loop turn.
- `AnimationFiles` writes each frame as it comes into one `core.output_files.Batch` (all or nothing,
  never over a non-regular file, mode from the umask): its PNG, and one more GIF frame (its own
  palette) appended to heads.gif by `GifStream`. Memory is a few frames whatever the count.
- `AnimationExport` runs an export from the window: frames are drawn on GUI-thread timer turns and
  handed through a short queue to a writer thread that encodes and writes them (the slow part);
  `progress`, then exactly one of `finished` / `failed` / `cancelled`. A Cancel, a failure or the
  window closing discards every staged file (and the folders the export created).
- `start_export(view, folder, parent)` is the Export animation… button: it asks before replacing
  files already there (as every other export), then shows the progress with a Cancel button.
- `export_animation(...)` is the same export in one call (tests, scripts): bounded memory too.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog

from ....app.i18n import error_text
from ....core.messages import QT_TRANSLATE_NOOP
from ....core.files.output_files import Batch, ExportError, existing_targets, make_folders, remove_empty
from ...export.frame import FigureFrame
from ...export.render import png_bytes, render_image, settle
from ...plotting.i18n import translate
from ...training.heads import SnapshotHeads

FRAME_WIDTH = 960      # animation frames: heads only
LAYER_HEIGHT = 340     # the heads of one layer
GIF_FRAME_MS = 400
GIF_NAME = "heads.gif"
QUEUE_FRAMES = 3       # frames drawn but not yet written (each ~3 MB at the recipe's size)
IDLE_TICK_MS = 15      # the GUI turn's interval while it waits on the writer


def run_title(config, step: int) -> str:
    return (f"{config.task} · {config.n_layers} layer(s) × {config.n_heads} heads · "
            f"d_model {config.d_model} · seed {config.seed} · lr {config.lr:g} · step {step}")


def gif_available() -> bool:
    try:
        import PIL.Image  # noqa: F401  (a dependency; an older install may lack it)
    except ImportError:
        return False
    return True


def frame_names(snapshots) -> list[str]:
    """heads_step_00000.png … one per snapshot (zero-padded to the last step's width, at least 5)."""
    width = max(5, len(str(snapshots[-1].step)))
    return [f"heads_step_{s.step:0{width}d}.png" for s in snapshots]


def animation_names(snapshots, gif: bool) -> list[str]:
    return frame_names(snapshots) + ([GIF_NAME] if gif else [])


# ----- writing -----------------------------------------------------------------------------------
class GifStream:
    """A looping GIF written frame by frame to `handle` (Pillow encodes each frame; nothing is kept).

    Pillow's own save(append_images=…) holds every frame until the end; its legacy per-frame
    helpers (GifImagePlugin.getheader / getdata) write one at a time."""

    def __init__(self, handle, duration_ms: int = GIF_FRAME_MS):
        self.handle, self.duration_ms, self.frames = handle, duration_ms, 0

    def add(self, rgb) -> None:
        """One more frame: (h, w, 3) uint8, quantised to its own 256-colour palette."""
        from PIL import GifImagePlugin, Image
        frame = Image.fromarray(rgb).convert("P", palette=Image.Palette.ADAPTIVE)
        if self.frames == 0:
            header, _ = GifImagePlugin.getheader(frame.copy(), info={"loop": 0, "duration": self.duration_ms})
            self.handle.write(b"".join(header))
        for piece in GifImagePlugin.getdata(frame, duration=self.duration_ms, include_color_table=True):
            self.handle.write(piece)
        self.frames += 1

    def finish(self) -> None:
        self.handle.write(b";")  # the GIF trailer


class AnimationFiles:
    """The export's files in one Batch: `add` writes a frame's PNG (and GIF frame), `commit` ends it.

    Use as a context manager: leaving it without a commit removes everything staged."""

    def __init__(self, folder, names: list[str], on_exists: str):
        self.batch = Batch(folder, names, on_exists)  # every name checked before a frame is drawn
        self.gif = GifStream(self.batch.open(GIF_NAME)) if GIF_NAME in names else None

    def __enter__(self) -> "AnimationFiles":
        return self

    def __exit__(self, *exc) -> None:
        self.batch.__exit__(*exc)

    def add(self, name: str, image, title: str) -> None:
        self.batch.write(name, png_bytes(image, title))
        if self.gif is not None:
            from ...export.render import image_rgb
            rgb = image_rgb(image)  # (h, w, 3)
            self.batch.guard(lambda: self.gif.add(rgb))  # a failure removes every staged file

    def commit(self) -> list[Path]:
        if self.gif is not None:
            self.batch.guard(self.gif.finish)
        return self.batch.commit()

    def discard(self) -> None:
        self.batch.discard()


# ----- drawing -----------------------------------------------------------------------------------
class FrameDrawer:
    """One offscreen heads figure, redrawn for each snapshot (GUI thread only)."""

    def __init__(self, config, first, probe, make_grid, colormap: str | None = None):
        self.config, self.probe = config, probe
        self.heads = SnapshotHeads(make_grid)
        if colormap:
            self.heads.set_colormap(colormap)
        self.heads.set_snapshot(first, probe)
        self.frame = FigureFrame(self.heads, "white", run_title(config, first.step))
        settle(self.frame, self.frame.size_for_view(QSize(FRAME_WIDTH, first.attention.shape[0] * LAYER_HEIGHT)))

    def __enter__(self) -> "FrameDrawer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def draw(self, snapshot):
        """The QImage of `snapshot`'s heads (a new image each time: it may go to another thread)."""
        self.heads.set_snapshot(snapshot, self.probe)
        self.frame.set_title(run_title(self.config, snapshot.step))
        settle(self.frame)
        return render_image(self.frame)

    def close(self) -> None:
        if self.frame is not None:
            self.frame.deleteLater()
            self.frame = None


NO_SNAPSHOTS = QT_TRANSLATE_NOOP("export", "there are no snapshots to export yet")


def export_animation(folder, config, snapshots, probe, make_grid, colormap=None, gif: bool = True,
                     on_exists: str = "error") -> list[Path]:
    """Write heads_step_00000.png … (one per snapshot) into `folder` (created if missing), and
    heads.gif there when Pillow is installed and `gif`; return the paths written. One frame at a
    time, on the calling (GUI) thread; nothing is left on failure."""
    if not snapshots:
        raise ExportError.of(NO_SNAPSHOTS)
    names = animation_names(snapshots, gif and gif_available())
    created = make_folders(folder)
    try:
        with AnimationFiles(folder, names, on_exists) as files, \
                FrameDrawer(config, snapshots[0], probe, make_grid, colormap) as drawer:
            for name, snapshot in zip(names, snapshots):
                files.add(name, drawer.draw(snapshot), run_title(config, snapshot.step))
            return files.commit()
    except BaseException:
        remove_empty(created)
        raise


# ----- in the window: drawn on GUI turns, written on a thread --------------------------------------
class AnimationExport(QObject):
    """One animation export in the background (see the module docstring). `start()` once."""

    progress = Signal(int, int)   # frames written, frames in all
    finished = Signal(list)       # the paths written
    failed = Signal(str)          # one line, in the UI's language
    cancelled = Signal()

    def __init__(self, folder, config, snapshots, probe, make_grid, colormap=None, gif: bool = True,
                 on_exists: str = "error", parent=None):
        super().__init__(parent)
        self.folder, self.config, self.snapshots = Path(folder), config, list(snapshots)
        self.names = animation_names(self.snapshots, gif and gif_available()) if self.snapshots else []
        self._probe, self._make_grid, self._colormap, self._on_exists = probe, make_grid, colormap, on_exists
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        self._stop = threading.Event()
        self._written = self._drawn = 0
        self._outcome = None          # set by the writer: ("finished", paths) or ("failed", error)
        self._draw_error: str | None = None
        self._created: list[Path] = []
        self._drawer: FrameDrawer | None = None
        self._thread: threading.Thread | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._turn)
        self.running = False

    @property
    def total(self) -> int:
        return len(self.snapshots)

    def start(self) -> None:
        """Check the folder and every name, then draw and write; `failed` at once if a check fails."""
        files = None
        try:
            if not self.snapshots:
                raise ExportError.of(NO_SNAPSHOTS)
            self._created = make_folders(self.folder)
            files = AnimationFiles(self.folder, self.names, self._on_exists)
            self._drawer = FrameDrawer(self.config, self.snapshots[0], self._probe, self._make_grid,
                                       self._colormap)
        except Exception as exc:  # noqa: BLE001 - an ExportError, or the figure failing: one line
            if files is not None:
                files.discard()
            remove_empty(self._created)
            text = error_text(exc) if isinstance(exc, ExportError) else f"{type(exc).__name__}: {exc}"
            QTimer.singleShot(0, lambda: self.failed.emit(text.splitlines()[0]))  # once connected
            return
        self.running = True
        self._thread = threading.Thread(target=self._write_all, args=(files,), name="animation-export",
                                        daemon=True)
        self._thread.start()
        self._timer.start(0)

    def cancel(self, wait_s: float = 0.0) -> None:
        """Stop: the writer discards every staged file; `cancelled` follows (unless already over).
        `wait_s`: wait that long for the writer to have discarded (the window closing)."""
        self._stop.set()
        if wait_s and self._thread is not None:
            self._thread.join(wait_s)

    # GUI thread: one frame per turn while the queue has room, then watch the writer
    def _turn(self) -> None:
        drew = False
        if not self._stop.is_set() and self._outcome is None and self._drawn < self.total \
                and not self._queue.full():
            snapshot = self.snapshots[self._drawn]
            try:
                image = self._drawer.draw(snapshot)
            except Exception as exc:  # noqa: BLE001 - said as one line; the writer discards
                self._draw_error = f"{type(exc).__name__}: {exc}".splitlines()[0]
                self._stop.set()
            else:
                self._queue.put_nowait((self.names[self._drawn], image, run_title(self.config, snapshot.step)))
                self._drawn += 1
                drew = True
        self.progress.emit(self._written, self.total)
        if self._thread is not None and not self._thread.is_alive():
            self._end()
            return
        self._timer.start(0 if drew else IDLE_TICK_MS)

    def _end(self) -> None:
        self.running = False
        self._drawer.close()
        outcome, value = self._outcome or (("failed", self._draw_error) if self._draw_error else ("cancelled", None))
        if outcome != "finished":
            remove_empty(self._created)
        if outcome == "finished":
            self.finished.emit(value)
        elif outcome == "failed":
            self.failed.emit(value)
        else:
            self.cancelled.emit()

    # writer thread: encode and write each frame; commit after the last, discard on a stop
    def _write_all(self, files: AnimationFiles) -> None:
        with files:
            try:
                while self._written < self.total:
                    if self._stop.is_set():
                        return  # leaving the with block discards every staged file
                    try:
                        name, image, title = self._queue.get(timeout=0.05)
                    except queue.Empty:
                        continue
                    files.add(name, image, title)
                    self._written += 1
                if self._stop.is_set():
                    return
                self._outcome = ("finished", files.commit())
            except Exception as exc:  # noqa: BLE001 - a thread reports everything, as one line
                text = error_text(exc) if isinstance(exc, ExportError) else f"{type(exc).__name__}: {exc}"
                self._outcome = ("failed", text.splitlines()[0] if text else type(exc).__name__)


def _confirm_replace(parent, folder: Path, existing: list[Path]) -> bool:
    """Ask before replacing files already in `folder` (plain text: the names are the user's)."""
    shown = ", ".join(p.name for p in existing[:3]) + (", …" if len(existing) > 3 else "")
    box = QMessageBox(QMessageBox.Icon.Question, translate("window.training_animation", "Replace files?"),
                      translate("window.training_animation", "{count} of the animation's files already exist in "
                                "{folder} ({names}). Replace them?").format(
                          count=len(existing), folder=folder, names=shown),
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


def start_export(view, folder, parent=None) -> AnimationExport | None:
    """Export animation…: every snapshot of the Train tab `view` into `folder`, with progress and
    Cancel; asks before replacing. The AnimationExport (None if nothing was started)."""
    snapshots = list(view.session.snapshots)
    folder = Path(folder)
    if not snapshots:
        view.say(translate("window.training_animation", "not exported: {reason}").format(
            reason=error_text(ExportError.of(NO_SNAPSHOTS))))
        return None
    existing = existing_targets(folder, animation_names(snapshots, gif_available()))
    if existing and not _confirm_replace(parent, folder, existing):
        view.say(translate("window.training_animation", "not exported: the files there are kept"))
        return None
    job = AnimationExport(folder, view.session.config, snapshots, view.probe(), view.make_grid,
                          view.colormap, on_exists="overwrite" if existing else "error", parent=view)
    dialog = QProgressDialog(translate("window.training_animation", "Writing {count} frames to {folder}…").format(
        count=len(snapshots), folder=folder), translate("window.training_animation", "Cancel"), 0, len(snapshots), parent)
    dialog.setWindowTitle(translate("window.training_animation", "Export animation"))
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.canceled.connect(job.cancel)
    job.progress.connect(dialog.setValue)  # (a slot, not a lambda: gone with the dialog if it goes first)
    for signal in (job.finished, job.failed, job.cancelled):
        signal.connect(dialog.hide)  # (not close(): QProgressDialog's closeEvent says canceled)
        signal.connect(dialog.deleteLater)
    job.finished.connect(lambda paths: view.say(_written_text(paths, folder)))
    job.failed.connect(lambda reason: view.say(
        translate("window.training_animation", "not exported: {reason}").format(reason=reason)))
    job.cancelled.connect(lambda: view.say(translate("window.training_animation",
                                                     "animation export cancelled: nothing was written")))
    view.track_export(job)
    job.start()
    return job


def _written_text(paths: list, folder: Path) -> str:
    text = translate("window.training_animation", "exported {count} files to {folder}").format(count=len(paths), folder=folder)
    if not gif_available():
        text += translate("window.training_animation", " (PNG sequence only: Pillow is not installed, no GIF)")
    return text
