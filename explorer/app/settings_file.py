"""Reading a settings file without trusting it, and keeping an unusable one aside (app.settings).

A settings path may hold anything: a FIFO (open() would wait forever), /dev/zero (read() would fill
memory), a folder, a file of someone else's, garbage bytes. `read_json` reads at most MAX_BYTES of a
regular file and never blocks; what must be left exactly as it is raises `NotOurs`. `keep_aside`
moves an unusable settings file to the first free NAME.bad, NAME.bad2, ... The notes are
`SettingsNote`s: English str(), shown in the UI's language by app.i18n.error_text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..core.files import user_files
from ..core.messages import QT_TRANSLATE_NOOP, TranslatableError
from ..core.files.user_files import UserFileError, read_user_file

MAX_BYTES = 1_000_000  # a settings file is a few hundred bytes; anything huge is not ours

MISSING = object()
MAX_BACKUPS = 20  # settings.json.bad, settings.json.bad2 ... settings.json.bad20


class SettingsNote(TranslatableError):
    """What load_settings has to say about the file: returned, not raised. str() is English; the
    window shows it in its language (app.i18n.error_text, context "settings")."""

    context = "settings"


class NotOurs(SettingsNote):
    """The path holds something that must be left exactly as it is (and never saved over)."""


def _not_regular(path: Path) -> NotOurs:
    return NotOurs.of(QT_TRANSLATE_NOOP("settings", "settings path {path} is not a regular file"),
                      path=str(path))


def _read_text(path: Path) -> str | None:
    """The file's text (None when there is no file), read by the one reader of users' files
    (core.user_files): never blocks and never reads more than MAX_BYTES. A FIFO, a device
    (/dev/zero), a directory or a socket in its place, or a symlink to one (a dotfiles link to a
    real file is fine), raises NotOurs before any read; ValueError for a file too large or not
    UTF-8; NotOurs for one that cannot be read."""
    try:
        data = read_user_file(path, MAX_BYTES)
    except UserFileError as exc:
        if exc.template == user_files.NOT_FOUND:
            return None
        if exc.template == user_files.NOT_REGULAR:
            raise _not_regular(path) from None
        if exc.template == user_files.TOO_LARGE:
            raise ValueError("too large") from None
        raise NotOurs.of(QT_TRANSLATE_NOOP("settings", "could not read settings ({error})"),
                         error=exc) from None
    return data.decode("utf-8-sig")  # a BOM from a Windows editor is fine


def read_json(path: Path) -> tuple[object, SettingsNote | None]:
    """(parsed JSON, or MISSING with a note). A missing file is not worth a note.

    Raises NotOurs for a path that is not a regular file or cannot be read (left alone)."""
    try:
        text = _read_text(path)
    except ValueError as exc:
        if isinstance(exc, UnicodeDecodeError):
            return MISSING, SettingsNote.of(QT_TRANSLATE_NOOP(
                "settings", "settings file {name} is not UTF-8 text; using defaults"), name=path.name)
        return MISSING, SettingsNote.of(QT_TRANSLATE_NOOP(
            "settings", "settings file {path} is too large; using defaults"), path=str(path))
    if text is None:
        return MISSING, None
    try:
        return json.loads(text), None
    except (ValueError, RecursionError):  # JSONDecodeError, or an int over 4300 digits
        return MISSING, SettingsNote.of(QT_TRANSLATE_NOOP(
            "settings", "settings file {name} is not valid JSON; using defaults"), name=path.name)


def keep_aside(path: Path, note: SettingsNote) -> SettingsNote:
    """Move an unusable settings file to the first free NAME.bad, NAME.bad2, ... so saving
    defaults at exit destroys neither it nor an older backup. NotOurs when that is impossible."""
    for number in range(1, MAX_BACKUPS + 1):
        backup = path.with_name(f"{path.name}.bad{number if number > 1 else ''}")
        try:
            os.link(path, backup)  # atomic "create unless it exists"
        except FileExistsError:
            continue
        except OSError:  # no hard links here (vfat, some shares): check, then rename
            if os.path.lexists(backup):
                continue
            try:
                os.replace(path, backup)
            except OSError:
                break
            return _kept(note, backup)
        try:
            os.unlink(path)
        except OSError:
            os.unlink(backup)
            break
        return _kept(note, backup)
    raise NotOurs.of(QT_TRANSLATE_NOOP("settings", "{note}; the file could not be kept aside"), note=note)


def _kept(note: SettingsNote, backup: Path) -> SettingsNote:
    return SettingsNote.of(QT_TRANSLATE_NOOP("settings", "{note} (the old file is kept as {backup})"),
                           note=note, backup=backup.name)


def not_an_object() -> SettingsNote:
    return SettingsNote.of(QT_TRANSLATE_NOOP(
        "settings", "settings file does not hold a JSON object; using defaults"))
