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


def _live_pixmaps() -> int:
    import gc
    from PySide6.QtGui import QPixmap
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is QPixmap)


def test_items_keep_no_atlas_the_cache_let_go(qapp, empty_atlases):
    """An item painted once (then hidden: a closed topic, a tab not shown) must not keep its
    atlas after the cache drops it: the cache's bound is then all the labels' pixmaps hold.
    Items that kept their last atlas held ~1,200 pixmaps beyond the bound in the soak."""
    import numpy as np
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QGraphicsScene
    before = _live_pixmaps()
    scene = QGraphicsScene()
    items = []
    for size in (9, 11, 13):  # three label sizes: three atlases
        item = cti.CellTextItem()
        item.set_font(ui_font(10), max_px=size)
        item.set_cells(np.full((2, 2), 0.5), np.zeros((2, 2), bool), np.ones((2, 2), bool))
        item.setScale(80)  # cells of 80 px: the label's size is max_px
        scene.addItem(item)
        items.append(item)
    image = QImage(400, 400, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    scene.render(painter)
    painter.end()
    assert len(cti._ATLASES) == 3 and _live_pixmaps() - before >= 3 * 202  # they were drawn
    cti._ATLASES.clear()
    assert _live_pixmaps() - before == 0
