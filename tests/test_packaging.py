"""pyproject.toml ships every package and the bundled fonts (a wheel once had no fonts)."""

import fnmatch
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

REPO = Path(__file__).resolve().parents[1]


def setuptools_table() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_under_explorer_is_listed():
    listed = set(setuptools_table()["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "explorer").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_fonts_and_their_licence_are_package_data_of_explorer_resources():
    table = setuptools_table()
    assert table["package-dir"]["explorer.resources"] == "resources"
    assert {"explorer.resources", "explorer.resources.fonts"} <= set(table["packages"])
    patterns = table["package-data"]["explorer.resources.fonts"]
    shipped = {p.name for p in (REPO / "resources" / "fonts").iterdir()
               if any(fnmatch.fnmatch(p.name, pattern) for pattern in patterns)}
    assert {"NanumGothic.ttf", "NanumGothicBold.ttf", "OFL-NanumGothic.txt",
            "ExplorerSans-Regular.ttf", "ExplorerSans-Bold.ttf", "OFL-NotoSans.txt"} <= shipped
    from explorer.gui.plotting.fonts import FONT_FILES
    assert set(FONT_FILES) <= shipped  # every file the app registers is in the wheel


def test_the_window_icon_is_package_data_and_loads():
    import fnmatch as fn
    table = setuptools_table()
    assert "explorer.resources.icons" in table["packages"]
    patterns = table["package-data"]["explorer.resources.icons"]
    assert any(fn.fnmatch("attention-explorer.png", p) for p in patterns)
    from PySide6.QtWidgets import QApplication
    QApplication.instance() or QApplication([])
    from explorer.gui.plotting.resources import app_icon
    icon = app_icon()
    assert not icon.isNull() and icon.availableSizes()[0].width() == 256
