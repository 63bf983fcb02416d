"""Reading a file a user names, without trusting it: the one reader for lessons, saved models and
settings (and the model folders and adapters to come).

A path may hold anything: a FIFO (open() waits for a writer forever, holding the interpreter lock
inside the call), a device (/dev/zero reads until memory is gone), a folder, a socket, a symlink
to any of these, or a regular file of gigabytes. `read_user_file` refuses everything but a regular
file before any byte is read, opens without blocking (O_NONBLOCK: a FIFO swapped in after the
check does not wait), checks the opened file again (fstat), and reads at most `max_bytes`.

Every refusal is a `UserFileError`: one line, English by str(), in the UI's language through
app.i18n.error_text (context "files"). Qt-free: core, app, the CLI and the window use it.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path

from ..messages import QT_TRANSLATE_NOOP, TranslatableError

NOT_FOUND = QT_TRANSLATE_NOOP("files", "{path} does not exist")
NOT_REGULAR = QT_TRANSLATE_NOOP("files", "{path} is not a regular file ({kind})")
TOO_LARGE = QT_TRANSLATE_NOOP("files", "{path} is larger than {limit} (it has {size})")
CANNOT_READ = QT_TRANSLATE_NOOP("files", "cannot read {path}: {reason}")
PERMISSION = QT_TRANSLATE_NOOP("files", "permission denied")

_KINDS = ((stat.S_ISDIR, QT_TRANSLATE_NOOP("files", "a folder")),
          (stat.S_ISFIFO, QT_TRANSLATE_NOOP("files", "a FIFO")),
          (stat.S_ISCHR, QT_TRANSLATE_NOOP("files", "a device")),
          (stat.S_ISBLK, QT_TRANSLATE_NOOP("files", "a device")),
          (stat.S_ISSOCK, QT_TRANSLATE_NOOP("files", "a socket")))


class UserFileError(TranslatableError):
    """A file the user named cannot be read as it is: one line naming the path and why."""

    context = "files"


def _size_text(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), QT_TRANSLATE_NOOP("files", "not a file"))


def check_regular(path: str | os.PathLike) -> os.stat_result:
    """The stat of `path` (symlinks followed) if it is a regular file, else UserFileError."""
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UserFileError.of(NOT_FOUND, path=str(path)) from None
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    if not stat.S_ISREG(info.st_mode):
        raise UserFileError.of(NOT_REGULAR, ("kind",), path=str(path), kind=_kind(info.st_mode))
    return info


@contextmanager
def open_user_file(path: str | os.PathLike):
    """(binary handle, fstat) of the regular file at `path`, else UserFileError; for a reader
    that reads only part of a large file (a safetensors header). Never blocks: anything that is
    not a regular file (or a symlink to one) is refused before it is opened, and again after (a
    file swapped in between)."""
    path = Path(path)
    check_regular(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # swapped since the stat
            raise UserFileError.of(NOT_REGULAR, ("kind",), path=str(path), kind=_kind(opened.st_mode))
        yield handle, opened


def read_user_file(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`, at most `max_bytes` of them, else UserFileError.

    Never blocks: a FIFO, a device, a folder or a socket (or a symlink to one) is refused before
    anything is read, and a file larger than `max_bytes` before it is read whole."""
    path = Path(path)
    info = check_regular(path)
    if info.st_size > max_bytes:
        raise _too_large(path, max_bytes, info.st_size)
    with open_user_file(path) as (handle, _opened):
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise _cannot_read(path, exc) from None
    if len(data) > max_bytes:  # grew since the stat
        raise _too_large(path, max_bytes, len(data))
    return data


def _too_large(path: Path, limit: int, size: int) -> UserFileError:
    return UserFileError.of(TOO_LARGE, path=str(path), limit=_size_text(limit), size=_size_text(size))


def _cannot_read(path: Path, exc: OSError) -> UserFileError:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return UserFileError.of(CANNOT_READ, ("reason",), path=str(path), reason=PERMISSION)
    return UserFileError.of(CANNOT_READ, path=str(path), reason=exc.strerror or exc.__class__.__name__)
