"""What survives a restart: the last config, window geometry, colormap, show-values, presentation,
the UI language.

Stored as one JSON object in ``settings.json`` inside the settings folder:

- ``$ATTENTION_EXPLORER_SETTINGS_DIR`` when set (tests point it at a temporary folder);
- else the per-user config folder: ``QStandardPaths`` GenericConfigLocation / ``attention-explorer``
  (``~/.config/attention-explorer`` on Linux), or that path itself when Qt reports nothing.

``load_settings`` never raises: a missing file gives the defaults silently; garbage bytes, wrong
JSON types or an invalid config give the defaults for the bad part plus a note for the status bar.
``save_settings`` writes atomically (temp file in the same folder, then ``os.replace``), so a crash
mid-write never leaves half a file. JSON only: nothing is ever unpickled or executed.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..core import AttentionConfig, ConfigError
from .i18n import LANGUAGES

SETTINGS_ENV = "ATTENTION_EXPLORER_SETTINGS_DIR"
FILE_NAME = "settings.json"
APP_DIR_NAME = "attention-explorer"
FORMAT_VERSION = 1
MAX_BYTES = 1_000_000  # a settings file is a few hundred bytes; anything huge is not ours
SHOW_VALUES_MODES = ("auto", "on", "off")


@dataclass
class Settings:
    """Plain values; the window turns them into widgets and back."""

    config: AttentionConfig = field(default_factory=AttentionConfig)
    geometry: str = ""        # base64 of QMainWindow.saveGeometry()
    window_state: str = ""    # base64 of QMainWindow.saveState() (dock placement)
    colormap: str = "viridis"
    show_values: str = "auto"
    presentation: bool = False
    language: str = ""        # "en" / "ko"; "" = not chosen yet: the system locale decides

    def to_dict(self) -> dict:
        return {
            "version": FORMAT_VERSION,
            "config": self.config.to_dict(),
            "geometry": self.geometry,
            "window_state": self.window_state,
            "colormap": self.colormap,
            "show_values": self.show_values,
            "presentation": self.presentation,
            "language": self.language,
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


_MISSING = object()


def _read_json(path: Path) -> tuple[object, str | None]:
    """(parsed JSON, or _MISSING with a note). A missing file is not worth a note."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return _MISSING, f"settings file {path} is too large; using defaults"
        text = path.read_text(encoding="utf-8-sig")  # a BOM from a Windows editor is fine
    except FileNotFoundError:
        return _MISSING, None
    except (OSError, UnicodeDecodeError) as exc:
        return _MISSING, f"could not read settings ({exc.__class__.__name__}); using defaults"
    try:
        return json.loads(text), None
    except (ValueError, RecursionError):  # JSONDecodeError, or an int over 4300 digits
        return _MISSING, f"settings file {path.name} is not valid JSON; using defaults"


def _keep_aside(path: Path, note: str) -> str:
    """Rename an unreadable settings file to NAME.bad so saving defaults at exit cannot destroy it."""
    backup = path.with_name(path.name + ".bad")
    if not path.is_file():  # e.g. a folder in its place: leave it alone
        return note
    try:
        os.replace(path, backup)
    except OSError:
        return note
    return f"{note} (the old file is kept as {backup.name})"


def settings_from_dict(data: object) -> tuple[Settings, list[str]]:
    """Settings from parsed JSON, field by field; the problems found (empty when clean)."""
    defaults = Settings()
    if not isinstance(data, dict):
        return defaults, ["settings file does not hold a JSON object; using defaults"]
    problems: list[str] = []
    out = Settings()
    if "config" in data:
        try:
            out.config = AttentionConfig.from_dict(data["config"])
        except (ConfigError, TypeError, ValueError) as exc:
            problems.append(f"saved config ignored ({exc})")
    for name in ("geometry", "window_state"):
        value = data.get(name, "")
        if isinstance(value, str) and _is_base64(value):
            setattr(out, name, value)
        else:
            problems.append(f"saved {name} ignored")
    colormap = data.get("colormap", defaults.colormap)
    if isinstance(colormap, str) and colormap:
        out.colormap = colormap
    else:
        problems.append("saved colormap ignored")
    show = data.get("show_values", defaults.show_values)
    if show in SHOW_VALUES_MODES:
        out.show_values = show
    else:
        problems.append("saved show-values mode ignored")
    presentation = data.get("presentation", defaults.presentation)
    if isinstance(presentation, bool):
        out.presentation = presentation
    else:
        problems.append("saved presentation flag ignored")
    language = data.get("language", defaults.language)
    if language in ("", *LANGUAGES):
        out.language = language
    else:
        problems.append("saved language ignored")
    return out, problems


def load_settings(path: str | os.PathLike | None = None) -> tuple[Settings, str | None]:
    """(settings, note for the status bar or None). Never raises."""
    path = Path(path) if path is not None else default_settings_path()
    data, note = _read_json(path)
    if data is _MISSING or not isinstance(data, dict):
        if note is None and data is _MISSING:  # no file yet: nothing to say
            return Settings(), None
        return Settings(), _keep_aside(path, note or "settings file does not hold a JSON object; "
                                                     "using defaults")
    try:
        settings, problems = settings_from_dict(data)
    except Exception as exc:  # noqa: BLE001 - last resort: a settings file must never stop start-up
        return Settings(), f"settings ignored ({exc.__class__.__name__}); using defaults"
    if problems:
        return settings, "Settings: " + "; ".join(problems)
    return settings, None


def save_settings(settings: Settings, path: str | os.PathLike | None = None) -> None:
    """Write atomically. Raises OSError when the folder cannot be written (callers show a note)."""
    path = Path(path) if path is not None else default_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.to_dict(), ensure_ascii=False, indent=2)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
