"""Safe writing of exported files (Qt-free).

Every file is written to a temporary file in the destination folder, flushed to disk,
then moved into place, so a reader never sees half a PNG and a failure (disk full,
permission denied) leaves nothing behind. A batch (`write_files`) is all or nothing as
far as the file system allows: every file is staged before the first one is committed.

A file's content is bytes or an iterable of byte pieces (`Streamed`): pieces are written
as they are produced, so a 700 MB CSV never exists whole in memory.

Existing files are never overwritten silently: `on_exists` is "error" (refuse, naming the
file), "suffix" (write `name_2.png`, `name_3.png`, ...) or "overwrite".
"""

from __future__ import annotations

import errno
import os
import tempfile
import unicodedata
from pathlib import Path
from typing import Callable, Iterable, Iterator, Union

from ..core.messages import QT_TRANSLATE_NOOP, TranslatableError

ON_EXISTS = ("error", "suffix", "overwrite")
_MAX_NAME_BYTES = 255
CANNOT_WRITE = QT_TRANSLATE_NOOP("export", "cannot write to {where}: {reason}")
NO_FOLDER = QT_TRANSLATE_NOOP("export", "the folder does not exist")
NOT_A_FOLDER = QT_TRANSLATE_NOOP("export", "not a folder")
_BAD_NAME_CHARS = set('/\\\0') | ({'<', '>', ':', '"', '|', '?', '*'} if os.name == "nt" else set())


class Streamed:
    """File content made piece by piece when it is written (each iteration starts afresh).

    `make` returns an iterable of bytes; `bytes(streamed)` joins it (tests, small files).
    """

    def __init__(self, make: Callable[[], Iterable[bytes]]):
        self._make = make

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._make())

    def __bytes__(self) -> bytes:
        return b"".join(self)


Content = Union[bytes, Streamed]


class ExportError(TranslatableError):
    """An export failed; the message is one line meant for the user (English; made with
    ExportError.of, the window shows it in its language: app.i18n.error_text)."""

    context = "export"


class ExportExistsError(ExportError):
    """The target file exists and overwriting was not allowed."""

    def __init__(self, path: Path):
        super().__init__(f"{path} already exists (use --force to overwrite it)")
        self.path = path


def check_name(name: str) -> str:
    """Return `name` if it is a plain, visible file name (no folder part), else raise ExportError.

    The one check for every export name (CLI --name, the dialog, the defaults): no folder
    separators, no control, format (bidi, zero-width) characters (a name must read as it is), no
    undecodable bytes, not hidden (a leading dot), no spaces around it, at most 255 bytes.
    """
    if not isinstance(name, str) or not name.strip():
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name: the name is empty"))
    shown = repr(name[:60])
    bad = sorted(set(name) & _BAD_NAME_CHARS)
    if bad:
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name {name}: it must not contain {chars}"),
                             name=shown, chars=", ".join(map(repr, bad)))
    odd = next((c for c in name if _invisible(c)), None)
    if odd is not None:
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name {name}: it must not contain "
                                                         "the character {code}"),
                             name=shown, code=f"U+{ord(odd):04X}")
    if name in (".", "..") or name.strip(". ") == "":
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name {name}"), name=shown)
    if name.startswith("."):
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name {name}: a name starting "
                                                         "with a dot is a hidden file"), name=shown)
    if name != name.strip():
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name {name}: it starts or ends "
                                                         "with a space"), name=shown)
    if len(name.encode("utf-8", "surrogatepass")) > _MAX_NAME_BYTES:
        raise ExportError.of(QT_TRANSLATE_NOOP("export", "invalid file name: longer than {limit} bytes"),
                             limit=_MAX_NAME_BYTES)
    return name


def _invisible(ch: str) -> bool:
    """A control character, a lone surrogate or a format character (bidi overrides, zero-width
    spaces, soft hyphens): each hides or reorders what a name says."""
    return unicodedata.category(ch) in ("Cc", "Cs", "Cf")


def make_folders(folder: str | os.PathLike) -> list[Path]:
    """Create `folder` and its missing parents; the folders created, outermost first.

    Stops with an ExportError naming the reason (a file in the way, no permission) and
    removes what it created up to then. ``remove_empty(created)`` undoes a success.
    """
    path = Path(folder).expanduser()
    missing = [p for p in (path, *path.parents) if not p.exists() and not p.is_symlink()]
    created: list[Path] = []
    try:
        for p in reversed(missing):
            p.mkdir()
            created.append(p)
    except OSError as exc:
        remove_empty(created)
        raise _as_export_error(exc, path) from None
    return created


def remove_empty(folders: list[Path]) -> None:
    """Remove the given folders, innermost first, where they are (still) empty."""
    for p in reversed(folders):
        try:
            p.rmdir()
        except OSError:
            pass


def check_folder(folder: str | os.PathLike) -> Path:
    """The folder as a Path if it exists and a file can really be created in it.

    `os.access` says yes to root even on a read-only mount, so this creates and removes
    a probe file instead.
    """
    path = Path(folder)
    if not path.exists():
        raise ExportError.of(CANNOT_WRITE, ("reason",), where=path, reason=NO_FOLDER)
    if not path.is_dir():
        raise ExportError.of(CANNOT_WRITE, ("reason",), where=path, reason=NOT_A_FOLDER)
    try:
        fd, probe = tempfile.mkstemp(prefix=".export-probe-", dir=path)
    except OSError as exc:
        raise _as_export_error(exc, path) from None
    os.close(fd)
    os.unlink(probe)
    return path


def unique_path(folder: Path, name: str, taken: set[Path] = frozenset()) -> Path:
    """`folder/name` or, if that exists (or is in `taken`), name_2, name_3, ... before the extension."""
    stem, ext = _split_ext(name)
    candidate, number = folder / name, 1
    while candidate.exists() or candidate in taken:
        number += 1
        candidate = folder / f"{stem}_{number}{ext}"
    return candidate


def write_file(path: str | os.PathLike, data: Content, on_exists: str = "error") -> Path:
    """Write one file safely; returns the path actually written (see `write_files`)."""
    path = Path(path)
    return write_files(path.parent, [(path.name, data)], on_exists)[0]


def write_files(folder: str | os.PathLike, items: list[tuple[str, Content]],
                on_exists: str = "error") -> list[Path]:
    """Write every (name, data) into `folder`; return the paths written, in order.

    Raises ExportError (ExportExistsError for an existing file with on_exists="error")
    before anything is written when a check fails, and removes its temporary and newly
    created files when a write fails.
    """
    if on_exists not in ON_EXISTS:
        raise ValueError(f"on_exists must be one of {ON_EXISTS}, got {on_exists!r}")
    folder = check_folder(folder)
    targets = _targets(folder, [check_name(name) for name, _ in items], on_exists)
    staged: list[str] = []
    try:
        for (_, data), target in zip(items, targets):
            staged.append(_stage(folder, target.name, data))
    except BaseException as exc:  # Ctrl+C too: no staged file may stay behind
        _remove_all(staged)
        if isinstance(exc, OSError):
            raise _as_export_error(exc, folder) from None
        raise
    return _commit(staged, targets, on_exists)


def _targets(folder: Path, names: list[str], on_exists: str) -> list[Path]:
    targets: list[Path] = []
    for name in names:
        target = folder / name
        if on_exists == "suffix":
            target = unique_path(folder, name, set(targets))
        elif target in targets:
            raise ExportError.of(QT_TRANSLATE_NOOP("export", "two exported files would both be called {name}"),
                                 name=name)
        elif on_exists == "error" and (target.exists() or target.is_symlink()):
            raise ExportExistsError(target)
        targets.append(target)
    return targets


def _stage(folder: Path, name: str, data: Content) -> str:
    """Write `data` (bytes or streamed pieces) to a new temporary file next to the target;
    return its path. An error while the pieces are made removes the file too."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name[:40]}.", suffix=".part", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in ((data,) if isinstance(data, (bytes, bytearray, memoryview)) else data):
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        _remove_all([tmp])
        raise
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)
    except OSError:  # vfat, some network shares: no modes to set; the file is fine as it is
        pass
    return tmp


def _commit(staged: list[str], targets: list[Path], on_exists: str) -> list[Path]:
    """Move the staged files into place; undo the new ones if a move fails."""
    done: list[Path] = []
    try:
        for tmp, target in zip(staged, targets):
            if on_exists == "overwrite":
                os.replace(tmp, target)
            else:
                _move_no_clobber(tmp, target)
            done.append(target)
    except BaseException as exc:
        _remove_all(staged[len(done):])
        if on_exists != "overwrite":
            _remove_all([str(p) for p in done])
        if not isinstance(exc, OSError):
            raise
        if isinstance(exc, FileExistsError):
            raise ExportExistsError(targets[len(done)]) from None
        raise _as_export_error(exc, targets[len(done)]) from None
    return done


def _move_no_clobber(tmp: str, target: Path) -> None:
    """Rename `tmp` to `target`, failing with FileExistsError if target appeared meanwhile.

    A hard link is the atomic "create unless it exists"; where the file system has no
    hard links, fall back to check-then-replace.
    """
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if target.exists():
            raise FileExistsError(errno.EEXIST, "exists", str(target)) from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def _as_export_error(exc: OSError, where: Path) -> ExportError:
    """One readable line for an OSError raised while writing to `where`."""
    reasons = {
        errno.ENOSPC: QT_TRANSLATE_NOOP("export", "the disk is full (no space left on device)"),
        errno.EDQUOT: QT_TRANSLATE_NOOP("export", "the disk quota is exceeded"),
        errno.EACCES: QT_TRANSLATE_NOOP("export", "permission denied"),
        errno.EPERM: QT_TRANSLATE_NOOP("export", "permission denied"),
        errno.EROFS: QT_TRANSLATE_NOOP("export", "the file system is read-only"),
        errno.ENOENT: NO_FOLDER,
        errno.ENOTDIR: QT_TRANSLATE_NOOP("export", "a part of the path is not a folder"),
        errno.ENAMETOOLONG: QT_TRANSLATE_NOOP("export", "the file name is too long"),
        errno.EINVAL: QT_TRANSLATE_NOOP("export", "the file name is not valid on this file system"),
    }
    reason = reasons.get(exc.errno, exc.strerror or str(exc))  # (the system's own: English)
    return ExportError.of(CANNOT_WRITE, ("reason",), where=where, reason=reason)


def _remove_all(paths: list[str]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


def _split_ext(name: str) -> tuple[str, str]:
    stem, dot, ext = name.rpartition(".")
    return (stem, dot + ext) if stem else (name, "")


def _read_umask() -> int:
    mask = os.umask(0o022)  # the only way to read it; done once, at import
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # temporary files are 0600; finished ones get the usual mode
