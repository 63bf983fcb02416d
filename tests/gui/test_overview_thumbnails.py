"""The overview's tile layout and composed image (numpy), without a model."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.gui.learned.thumbnails import MASKED_RGB, compose, fit_layout, sample

LUT = np.stack([np.arange(256)] * 3, axis=1).astype(np.uint8)  # grey: value v -> (v, v, v)


@settings(max_examples=60, deadline=None)
@given(layers=st.integers(1, 32), heads=st.integers(1, 16), width=st.integers(200, 2000),
       height=st.integers(150, 1200))
def test_every_tile_fits_and_is_found_where_it_is_drawn(layers, heads, width, height):
    lay = fit_layout(layers, heads, width, height, label_h=12)
    seen = set()
    for layer in range(layers):
        for head in range(heads):
            x, y = lay.origin(layer, head)
            assert lay.hit(x, y) == (layer, head)
            assert lay.hit(x + lay.tile - 1, y + lay.tile - 1) == (layer, head)
            seen.add((x, y))
    assert len(seen) == layers * heads  # no two tiles overlap
    w, h = lay.size()
    assert lay.hit(w + 5, 0) is None and lay.hit(-1, -1) is None


def test_thirty_layers_by_nine_heads_wrap_into_bands_on_a_4_3_page():
    lay = fit_layout(30, 9, 690, 570, label_h=12)
    assert lay.bands >= 2 and lay.tile >= 20


def test_compose_puts_each_heads_sampled_weights_in_its_tile():
    rng = np.random.default_rng(0)
    a = rng.random((3, 4, 10, 10)).astype(np.float32)  # (layers, heads, n, n)
    for by_layer_rows in (True, False):
        lay = fit_layout(3, 4, 400, 300, label_h=0)
        lay = lay.__class__(**{**lay.__dict__, "by_layer_rows": by_layer_rows, "bands": 2})
        image = compose(a, lay, LUT, causal=False)
        small = sample(a, lay.tile)
        for layer, head in ((0, 0), (2, 3), (1, 2)):
            x, y = lay.origin(layer, head)
            tile = image[y:y + lay.tile, x - lay.left:x - lay.left + lay.tile, 0]
            np.testing.assert_array_equal(tile, np.clip(small[layer, head] * 255 + 0.5, 0, 255).astype(np.uint8))


def test_a_decoders_future_is_grey():
    a = np.tril(np.ones((1, 1, 8, 8), np.float32))
    lay = fit_layout(1, 1, 200, 200, label_h=0)
    image = compose(a, lay, LUT, causal=True)
    x, y = lay.origin(0, 0)
    assert tuple(image[y, x - lay.left + lay.tile - 1]) == MASKED_RGB   # top-right: a future key
    assert tuple(image[y + lay.tile - 1, x - lay.left]) == (255, 255, 255)  # bottom-left: weight 1
