"""Safe writing of exported files (Qt-free).

Every file is written to a temporary file in the destination folder, flushed to disk,
then moved into place, so a reader never sees half a PNG and a failure (disk full,
permission denied) leaves nothing behind. A batch (`write_files`) is all or nothing as
far as the file system allows: every file is staged before the first one is committed.

A file's content is bytes or an iterable of byte pieces (`Streamed`): pieces are written
as they are produced, so a 700 MB CSV never exists whole in memory.

Existing files are never overwritten silently: `on_exists` is "error" (refuse, naming the
file), "suffix" (write `name_2.png`, `name_3.png`, ...) or "overwrite". Whatever `on_exists`
says, a target that exists and is not a regular file (a symlink, a FIFO, a device, a folder, a
socket: `os.lstat`, links not followed) is refused with an ExportError: as root,
"overwrite" onto /dev/null would otherwise replace the machine's /dev/null.

`Batch` is the same writer for files made one by one over a long run (the Train tab's animation:
frames streamed to disk as they are drawn, a GIF growing beside them): the names are checked
when it is made, each file is staged as it comes, and `commit` moves them all into place.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import unicodedata
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Union

from ..messages import QT_TRANSLATE_NOOP, TranslatableError

ON_EXISTS = ("error", "suffix", "overwrite")
_MAX_NAME_BYTES = 255
CANNOT_WRITE = QT_TRANSLATE_NOOP("export", "cannot write to {where}: {reason}")
NO_FOLDER = QT_TRANSLATE_NOOP("export", "the folder does not exist")
NOT_A_FOLDER = QT_TRANSLATE_NOOP("export", "not a folder")
NOT_REGULAR = QT_TRANSLATE_NOOP("export", "{path} is not a regular file ({kind}); it is never replaced")
_KINDS = ((stat.S_ISLNK, QT_TRANSLATE_NOOP("export", "a symbolic link")),
          (stat.S_ISDIR, QT_TRANSLATE_NOOP("export", "a folder")),
          (stat.S_ISFIFO, QT_TRANSLATE_NOOP("export", "a FIFO")),
          (stat.S_ISCHR, QT_TRANSLATE_NOOP("export", "a device")),
          (stat.S_ISBLK, QT_TRANSLATE_NOOP("export", "a device")),
          (stat.S_ISSOCK, QT_TRANSLATE_NOOP("export", "a socket")))
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
    while os.path.lexists(candidate) or candidate in taken:  # a dangling symlink is taken too
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
    with Batch(folder, [name for name, _ in items], on_exists) as batch:
        for name, data in items:
            batch.write(name, data)
        return batch.commit()


def check_targets(folder: str | os.PathLike, names: list[str], on_exists: str = "error") -> list[Path]:
    """The paths `names` would be written to in `folder`, or the ExportError writing them would
    raise first (the folder, the names, an existing or non-regular target). Writes nothing
    that stays: a caller about to spend minutes (training) checks first."""
    if on_exists not in ON_EXISTS:
        raise ValueError(f"on_exists must be one of {ON_EXISTS}, got {on_exists!r}")
    folder = check_folder(folder)
    return _targets(folder, [check_name(name) for name in names], on_exists)


def existing_targets(folder: str | os.PathLike, names: list[str]) -> list[Path]:
    """The files among `folder/name` that exist already (to ask before replacing them)."""
    return [Path(folder) / name for name in names if os.path.lexists(Path(folder) / name)]


class Batch:
    """Files staged one at a time into `folder`, then committed together: all or nothing.

    Every name is checked when the batch is made (`check_targets`), before a byte is written.
    `write(name, data)` stages one file; `open(name)` gives a binary handle on a staged file
    to write into over time. `commit()` moves every staged file into place and returns their
    paths (in the order of `names`); leaving the `with` block without a commit, or any failure,
    removes every staged file.
    """

    def __init__(self, folder: str | os.PathLike, names: list[str], on_exists: str = "error"):
        self.targets = check_targets(folder, names, on_exists)
        self.folder = Path(folder)
        self.on_exists = on_exists
        self._names = list(names)
        self._staged: list[str | None] = [None] * len(names)
        self._handles: dict[int, BinaryIO] = {}
        self._done = False

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, *exc) -> None:
        if not self._done:
            self.discard()

    def _slot(self, name: str) -> int:
        """The first not yet staged item called `name`."""
        for index, (item, staged) in enumerate(zip(self._names, self._staged)):
            if item == name and staged is None and index not in self._handles:
                return index
        raise ValueError(f"{name!r} is not a name of this batch, or it is staged already")

    def write(self, name: str, data: Content) -> None:
        """Stage the file `name` (bytes or Streamed)."""
        index = self._slot(name)
        self._staged[index] = self.guard(lambda: _stage(self.folder, self.targets[index].name, data))

    def open(self, name: str) -> BinaryIO:
        """A binary handle on the staged file `name`; `commit` flushes and closes it."""
        index = self._slot(name)
        fd, tmp = self.guard(lambda: _new_part(self.folder, self.targets[index].name))
        self._staged[index] = tmp
        self._handles[index] = os.fdopen(fd, "wb")
        return self._handles[index]

    def commit(self) -> list[Path]:
        """Move every staged file into place; ExportError (nothing left) if one is missing or fails."""
        for index, handle in list(self._handles.items()):
            self.guard(lambda: _close_part(handle, self._staged[index]))
            del self._handles[index]
        if None in self._staged:
            self.discard()
            raise ValueError(f"{self._names[self._staged.index(None)]!r} was never written")
        self._done = True
        return _commit(list(self._staged), self.targets, self.on_exists)

    def discard(self) -> None:
        """Remove every staged file (the batch is over)."""
        self._done = True
        for handle in self._handles.values():
            try:
                handle.close()
            except OSError:
                pass
        self._handles.clear()
        _remove_all([tmp for tmp in self._staged if tmp is not None])
        self._staged = [None] * len(self._staged)

    def guard(self, action):
        """`action()`; any failure (Ctrl+C too) removes every staged file, an OSError is an ExportError."""
        try:
            return action()
        except BaseException as exc:
            self.discard()
            if isinstance(exc, OSError):
                raise _as_export_error(exc, self.folder) from None
            raise


def _targets(folder: Path, names: list[str], on_exists: str) -> list[Path]:
    targets: list[Path] = []
    for name in names:
        target = folder / name
        check_replaceable(target)  # in every mode: a FIFO where the file goes is said, not written around
        if on_exists == "suffix":
            target = unique_path(folder, name, set(targets))
        elif target in targets:
            raise ExportError.of(QT_TRANSLATE_NOOP("export", "two exported files would both be called {name}"),
                                 name=name)
        elif on_exists == "error" and os.path.lexists(target):
            raise ExportExistsError(target)
        targets.append(target)
    return targets


def check_replaceable(target: Path) -> None:
    """ExportError if `target` exists and is anything but a regular file (links not followed)."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _as_export_error(exc, target) from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), QT_TRANSLATE_NOOP("export", "not a file"))
        raise ExportError.of(NOT_REGULAR, ("kind",), path=str(target), kind=kind)


def _stage(folder: Path, name: str, data: Content) -> str:
    """Write `data` (bytes or streamed pieces) to a new temporary file next to the target;
    return its path. An error while the pieces are made removes the file too."""
    fd, tmp = _new_part(folder, name)
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in ((data,) if isinstance(data, (bytes, bytearray, memoryview)) else data):
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        _remove_all([tmp])
        raise
    _set_mode(tmp)
    return tmp


def _new_part(folder: Path, name: str) -> tuple[int, str]:
    """(fd, path) of a new, empty temporary file next to the target `name` (mode 0600 until done)."""
    return tempfile.mkstemp(prefix=f".{name[:40]}.", suffix=".part", dir=folder)


def _close_part(handle: BinaryIO, tmp: str) -> None:
    """Flush a staged file written through `Batch.open` to disk, close it, give it its mode."""
    try:
        handle.flush()
        os.fsync(handle.fileno())
    finally:
        handle.close()
    _set_mode(tmp)


def _set_mode(tmp: str) -> None:
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)
    except OSError:  # vfat, some network shares: no modes to set; the file is fine as it is
        pass


def _commit(staged: list[str], targets: list[Path], on_exists: str) -> list[Path]:
    """Move the staged files into place; undo the new ones if a move fails."""
    done: list[Path] = []
    try:
        for tmp, target in zip(staged, targets):
            if on_exists == "overwrite":
                check_replaceable(target)  # again: it may have been swapped since the check
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
