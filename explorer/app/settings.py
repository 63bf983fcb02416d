"""What survives a restart: the last config, window geometry, colormap, show-values, presentation,
the topic views' settings (``app.topic_settings``), the UI language.

Stored as one JSON object in ``settings.json`` inside the settings folder:

- ``$ATTENTION_EXPLORER_SETTINGS_DIR`` when set (tests point it at a temporary folder);
- else the per-user config folder: ``QStandardPaths`` GenericConfigLocation / ``attention-explorer``
  (``~/.config/attention-explorer`` on Linux), or that path itself when Qt reports nothing.

``load_settings`` never raises and never blocks: a missing file gives the defaults silently;
garbage bytes, wrong JSON types or an invalid config give the defaults for the bad part plus a note
for the status bar (a SettingsNote: English, shown in the UI's language by app.i18n.error_text).
An unusable ``settings.json`` is kept aside as ``settings.json.bad``, ``.bad2``, ... (never overwriting an older one). Anything that is not ours to touch -- a FIFO, a
device, a folder or a socket at the path (or a symlink to one), an unreadable file, or a file under
another name (``--settings notes.txt``) that is not a settings file we wrote -- is read at most
MAX_BYTES of, left exactly as it is, and marked ``read_only`` so the app does not save over it.
``save_settings`` writes through the one output writer (core.output_files: temp file in the same
folder, then moved into place), so a crash mid-write never leaves half a file; through a symlink it
writes the file linked to. JSON only:
nothing is ever unpickled or executed.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..core import AttentionConfig, ConfigError
from ..core.messages import QT_TRANSLATE_NOOP
from ..core.files.output_files import ExportError, write_file
from .i18n import LANGUAGES
from .settings_file import (MAX_BACKUPS, MAX_BYTES, MISSING, NotOurs, SettingsNote,  # noqa: F401 (API)
                            keep_aside, not_an_object, read_json)

SETTINGS_ENV = "ATTENTION_EXPLORER_SETTINGS_DIR"
FILE_NAME = "settings.json"
APP_DIR_NAME = "attention-explorer"
FORMAT_VERSION = 1
# the show-values modes (the combo shows them translated: marked here, where they are defined)
SHOW_VALUES_MODES = (QT_TRANSLATE_NOOP("controls.options", "auto"), QT_TRANSLATE_NOOP("controls.options", "on"),
                     QT_TRANSLATE_NOOP("controls.options", "off"))


@dataclass
class Settings:
    """Plain values; the window turns them into widgets and back."""

    config: AttentionConfig = field(default_factory=AttentionConfig)
    geometry: str = ""        # base64 of QMainWindow.saveGeometry()
    window_state: str = ""    # base64 of QMainWindow.saveState() (dock placement)
    colormap: str = "viridis"
    show_values: str = "auto"
    presentation: bool = False
    topics: dict = field(default_factory=dict)  # TopicSettings.to_dict(); checked on restore
    # not saved: the file this came from must be left alone (see load_settings)
    read_only: bool = field(default=False, compare=False)
    language: str = ""        # "en" / "ko"; "" = not chosen yet: the system locale decides
    # the Train tab's choices (task, size, seed, lr, steps); checked when the tab is built,
    # after the first paint (core.training is not imported at start-up)
    training: dict = field(default_factory=dict)
    # model folders (or cached repo ids) opened lately, newest first: Model source lists them
    recent_models: tuple = ()

    def to_dict(self) -> dict:
        return {
            "version": FORMAT_VERSION,
            "config": self.config.to_dict(),
            "geometry": self.geometry,
            "window_state": self.window_state,
            "colormap": self.colormap,
            "show_values": self.show_values,
            "presentation": self.presentation,
            "topics": self.topics,
            "language": self.language,
            "training": self.training,
            "recent_models": list(self.recent_models),
        }


def settings_dir() -> Path:
    """The folder settings live in (not created here)."""
    override = os.environ.get(SETTINGS_ENV)
    if override:
        return Path(override)
    return config_home() / APP_DIR_NAME


def config_home() -> Path:
    """Where Qt's QStandardPaths.GenericConfigLocation points (the folder settings always used),
    worked out without Qt: %LOCALAPPDATA% on Windows, ~/Library/Preferences on macOS, else
    $XDG_CONFIG_HOME when it is an absolute path, else ~/.config."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Preferences"
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(xdg) if os.path.isabs(xdg) else Path.home() / ".config"


def default_settings_path() -> Path:
    return settings_dir() / FILE_NAME


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return False
    return True


# ----- what each setting may be: the one table (settings.json, ViewState, TopicSettings) -----
def one_of(*choices):
    """A check that `value` is one of `choices` (returns it; ValueError otherwise)."""
    def check(value):
        if isinstance(value, bool) or value not in choices:  # (True == 1: never a choice by accident)
            raise ValueError(f"must be one of {choices}, got {value!r}")
        return value
    return check


def flag(value):
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {value!r}")
    return value


def base64_text(value):
    if not isinstance(value, str) or not _is_base64(value):
        raise ValueError("must be base64 text")
    return value


def name_text(value):
    if not isinstance(value, str) or not value:
        raise ValueError(f"must be a non-empty name, got {value!r}")
    return value


MAX_RECENT_MODELS = 8


def recent_list(value):
    """Up to MAX_RECENT_MODELS folder paths or repo ids (strings, no control characters)."""
    if (not isinstance(value, (list, tuple)) or len(value) > MAX_RECENT_MODELS
            or not all(isinstance(v, str) and 0 < len(v) < 4096 and v.isprintable() for v in value)):
        raise ValueError(f"must be a list of at most {MAX_RECENT_MODELS} paths")
    return tuple(value)


def json_object(value):
    if not isinstance(value, dict):
        raise ValueError(f"must be an object, got {type(value).__name__}")
    return value  # field by field where it is used (TopicSettings, the Train tab)


# saved field -> its check (a check returns the value, or raises ValueError saying why). The
# colormap's names are the window's (plotting.colormaps): the window maps an unknown one to
# its default; here it must be a name.
SETTINGS_CHECKS = {
    "geometry": base64_text,
    "window_state": base64_text,
    "colormap": name_text,
    "show_values": one_of(*SHOW_VALUES_MODES),
    "presentation": flag,
    "topics": json_object,
    "training": json_object,
    "language": one_of("", *LANGUAGES),  # "": not chosen yet, the system locale decides
    "recent_models": recent_list,
}


def check_setting(name: str, value):
    """`value` when it is valid for the setting `name` (SETTINGS_CHECKS); ValueError saying why."""
    try:
        return SETTINGS_CHECKS[name](value)
    except ValueError as exc:
        raise ValueError(f"{name} {exc}") from None


# what each saved field's problem says (one message each, so every language can word it)
IGNORED = {
    "geometry": QT_TRANSLATE_NOOP("settings", "saved window geometry ignored"),
    "window_state": QT_TRANSLATE_NOOP("settings", "saved window layout ignored"),
    "colormap": QT_TRANSLATE_NOOP("settings", "saved colormap ignored"),
    "show_values": QT_TRANSLATE_NOOP("settings", "saved show-values mode ignored"),
    "presentation": QT_TRANSLATE_NOOP("settings", "saved presentation flag ignored"),
    "topics": QT_TRANSLATE_NOOP("settings", "saved topic settings ignored"),
    "training": QT_TRANSLATE_NOOP("settings", "saved training settings ignored"),
    "language": QT_TRANSLATE_NOOP("settings", "saved language ignored"),
    "recent_models": QT_TRANSLATE_NOOP("settings", "saved recent model folders ignored"),
}


def ignored(name: str) -> SettingsNote:
    """The note for a saved field that was not usable (a name of IGNORED)."""
    return SettingsNote.of(IGNORED[name])


def _looks_ours(path: Path, data: object) -> bool:
    """A file named like ours (settings.json) is ours to repair; any other file given with
    --settings must hold a settings object we wrote (with "version") or we never touch it."""
    return path.name == FILE_NAME or (isinstance(data, dict) and "version" in data)


def settings_from_dict(data: object) -> tuple[Settings, list[SettingsNote]]:
    """Settings from parsed JSON, field by field; the problems found (empty when clean)."""
    defaults = Settings()
    if not isinstance(data, dict):
        return defaults, [not_an_object()]
    problems: list[SettingsNote] = []
    out = Settings()
    if "config" in data:
        try:
            out.config = AttentionConfig.from_dict(data["config"])
        except (ConfigError, TypeError, ValueError) as exc:
            problems.append(SettingsNote.of(QT_TRANSLATE_NOOP("settings", "saved config ignored ({error})"),
                                            error=exc))
    for name in SETTINGS_CHECKS:  # (topics: field by field in TopicSettings.update_from_dict)
        try:
            setattr(out, name, check_setting(name, data.get(name, getattr(defaults, name))))
        except ValueError:
            problems.append(ignored(name))
    return out, problems


def load_settings(path: str | os.PathLike | None = None) -> tuple[Settings, SettingsNote | None]:
    """(settings, note for the status bar or None). Never raises, never blocks.

    ``settings.read_only`` is True when the path must be left as it is (not a regular file,
    unreadable, or not a settings file of ours under another name): the caller must not save.
    """
    path = Path(path) if path is not None else default_settings_path()
    try:
        data, note = read_json(path)
        if data is MISSING and note is None:  # no file yet: nothing to say
            return Settings(), None
        if not _looks_ours(path, data):
            raise NotOurs.of(QT_TRANSLATE_NOOP("settings", "{name} is not an attention-explorer settings file"),
                             name=path.name)
        if data is MISSING or not isinstance(data, dict):
            return Settings(), keep_aside(path, note or not_an_object())
    except NotOurs as exc:
        return Settings(read_only=True), SettingsNote.of(QT_TRANSLATE_NOOP(
            "settings", "{reason}: left untouched, using defaults; settings will not be saved"), reason=exc)
    try:
        settings, problems = settings_from_dict(data)
    except Exception as exc:  # noqa: BLE001 - last resort: a settings file must never stop start-up
        return Settings(), SettingsNote.of(QT_TRANSLATE_NOOP(
            "settings", "settings ignored ({error}); using defaults"), error=exc.__class__.__name__)
    if problems:
        return settings, SettingsNote.of(QT_TRANSLATE_NOOP("settings", "Settings: {problems}"),
                                         problems=tuple(problems))
    return settings, None


def save_settings(settings: Settings, path: str | os.PathLike | None = None) -> None:
    """Write through the one output writer (core.output_files: a temporary file moved into place,
    mode from the umask; a FIFO, a device or a folder at the path is never replaced). Through a
    dotfiles symlink it writes the file linked to. Raises OSError (one line) when it cannot write."""
    path = Path(path) if path is not None else default_settings_path()
    if path.is_symlink():  # a dotfiles link: write the file it points to, keep the link
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.to_dict(), ensure_ascii=False, indent=2)
    try:
        write_file(path, text.encode("utf-8"), on_exists="overwrite")
    except ExportError as exc:
        raise OSError(str(exc)) from exc
