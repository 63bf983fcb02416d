"""The shared label atlases stay within MAX_ATLAS_BYTES of real memory, however many sizes.

Each atlas is 202 small pixmaps (101 labels in two colours), and Qt keeps a raster paint
engine (~3.4 KB) with every pixmap drawn on: counted by pixels only, the cache kept hundreds
of small atlases (every cell size, presentation size and export scale makes one) while the
real memory grew to several times the bound (issue 21's soak).
"""

import pytest

from PySide6.QtGui import QFont

from explorer.app.heap import malloc_info
from explorer.gui.plotting import cell_text_item as cti
from explorer.gui.plotting.fonts import ui_font


def _in_use_mb() -> float:
    info = malloc_info()
    return (info.uordblks + info.hblkhd) / 2**20


@pytest.fixture
def empty_atlases():
    kept = dict(cti._ATLASES)
    cti._ATLASES.clear()
    yield
    cti._ATLASES.clear()
    cti._ATLASES.update(kept)


def test_many_small_atlases_stay_within_the_bound(qapp, empty_atlases):
    if malloc_info() is None:
        pytest.skip("needs glibc's mallinfo2")
    font = ui_font(10)
    before = _in_use_mb()
    for px in range(6, 10):
        for step in range(30):  # 120 sizes: cell sizes, presentation, export scales
            cti.shared_atlas(QFont(font), px, 1.0 + step / 64)
    grown = _in_use_mb() - before
    bound = cti.MAX_ATLAS_BYTES / 2**20
    assert sum(map(cti._atlas_bytes, cti._ATLASES.values())) <= cti.MAX_ATLAS_BYTES
    assert grown < 1.5 * bound, f"{len(cti._ATLASES)} atlases hold {grown:.0f} MB (bound {bound:.0f} MB)"
