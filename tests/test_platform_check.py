"""The start-up check that names missing X11 libraries instead of letting Qt abort."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import platform_check as pc

REPO = Path(__file__).resolve().parents[1]

LDD_SAMPLE = """\
\tlinux-vdso.so.1 (0x00007ffc)
\tlibQt6XcbQpa.so.6 => /x/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
"""


def test_parse_ldd_lists_each_missing_library_once():
    assert pc.parse_ldd(LDD_SAMPLE) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert pc.parse_ldd("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_fix_line_is_one_line_with_the_apt_packages():
    line = pc.fix_line(["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libweird.so.3"])
    assert "\n" not in line
    assert "sudo apt-get install libweird.so.3 libxcb-cursor0 libxcb-icccm4" in line
    assert "libxcb-cursor.so.0" in line


@pytest.mark.parametrize("env, expected", [
    ({"QT_QPA_PLATFORM": "offscreen"}, False),
    ({"QT_QPA_PLATFORM": "wayland"}, False),
    ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, False),
    ({"QT_QPA_PLATFORM": "xcb"}, True),
    ({}, True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "xcb"}, True),
])
def test_only_the_x11_path_is_checked(env, expected, monkeypatch):
    monkeypatch.setattr(pc.sys, "platform", "linux")
    assert pc.uses_xcb(env) is expected
    if not expected:
        assert pc.display_problem(env) is None


def test_reported_libraries_really_fail_to_load():
    """Oracle: the dynamic loader itself (ctypes) agrees with every library the check names."""
    plugin = pc.xcb_plugin()
    assert plugin is not None and plugin.is_file()
    missing = pc.missing_libraries(plugin)
    for lib in missing:
        assert not pc.loadable(lib), lib
    assert ("libxcb-cursor.so.0" in missing) is (not pc.loadable("libxcb-cursor.so.0"))


def _plugin_needing(tmp_path: Path, fake_soname: bytes) -> Path:
    """A copy of the real xcb plugin whose dependency on libxcb-shape names a missing library."""
    data = pc.xcb_plugin().read_bytes()
    real = b"libxcb-shape.so.0"
    assert real in data and len(fake_soname) == len(real)
    copy = tmp_path / "libqxcb.so"
    copy.write_bytes(data.replace(real, fake_soname))
    return copy


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd (libc-bin)")
def test_a_missing_library_gives_the_fix_line(tmp_path, monkeypatch):
    fake = _plugin_needing(tmp_path, b"libxcb-shapX.so.0")
    monkeypatch.setattr(pc, "xcb_plugin", lambda: fake)
    line = pc.display_problem({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"})
    assert line is not None and "libxcb-shapX.so.0" in line and "apt-get install" in line


def test_app_without_display_says_so_and_exits_1_instead_of_aborting(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="xcb", ATTENTION_EXPLORER_SETTINGS_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "explorer"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attention-explorer: cannot open a window")
