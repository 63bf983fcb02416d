"""Before Qt opens a window: say in one line what a fresh Linux machine is missing.

A fresh Debian/Ubuntu laptop lacks the X11 libraries Qt's ``xcb`` platform plugin links against
(libxcb-cursor0, libxcb-icccm4, …). Qt then prints a paragraph and aborts the process
(SIGABRT, exit 134), which a newcomer cannot act on. ``display_problem()`` finds that out first,
without importing Qt: it asks the dynamic loader (``ldd`` on the plugin, the same search Qt's
``dlopen`` does) which of the plugin's libraries are not found, probes the one Qt opens by
itself at run time (libxcb-cursor), and names the Debian packages that provide them.

Only the X11 path is checked: other platforms (offscreen, wayland, vnc, …), macOS and Windows
bring what they need with the PySide6 wheel.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

# Debian/Ubuntu package for each library Qt's xcb plugin needs that a minimal system may lack.
DEBIAN_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}
RUNTIME_OPENED = ("libxcb-cursor.so.0",)  # dlopen'ed by Qt itself, absent from ldd's list


def xcb_plugin() -> Path | None:
    """PySide6's xcb platform plugin, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        plugin = Path(folder) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def parse_ldd(output: str) -> list[str]:
    """The sonames ``ldd`` reports as 'not found', once each, in order."""
    missing: list[str] = []
    for line in output.splitlines():
        name, arrow, where = line.strip().partition("=>")
        if arrow and where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(plugin: Path) -> list[str]:
    """Libraries the plugin needs that the loader cannot find ([] when ldd is unavailable)."""
    try:
        done = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=10)
        missing = parse_ldd(done.stdout)
    except (OSError, subprocess.SubprocessError):
        missing = []
    return missing + [lib for lib in RUNTIME_OPENED if lib not in missing and not loadable(lib)]


def fix_line(missing: list[str]) -> str:
    """One line naming what is missing and the apt command that installs it."""
    packages = sorted({DEBIAN_PACKAGES.get(lib, lib) for lib in missing})
    return ("attention-explorer: cannot open a window: Qt's X11 (xcb) plugin needs "
            f"{', '.join(missing)}. On Debian/Ubuntu: sudo apt-get install {' '.join(packages)}")


def uses_xcb(environ: dict[str, str]) -> bool:
    """Whether Qt will try its xcb plugin (Linux, no other platform chosen)."""
    platform = environ.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip()
    if platform == "" and environ.get("WAYLAND_DISPLAY"):
        return False  # a Wayland session: Qt tries its wayland plugin first
    return sys.platform.startswith("linux") and platform in ("", "xcb")


def display_problem(environ: dict[str, str] | None = None) -> str | None:
    """A one-line explanation when Qt could not open a window here, else None."""
    environ = os.environ if environ is None else environ
    if not uses_xcb(environ):
        return None
    plugin = xcb_plugin()
    if plugin is not None:
        missing = missing_libraries(plugin)
        if missing:
            return fix_line(missing)
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
        return ("attention-explorer: cannot open a window: no display (DISPLAY is not set). "
                "Run it in a desktop session, or export figures with "
                "'attention-explorer export' (no window needed)")
    return None
