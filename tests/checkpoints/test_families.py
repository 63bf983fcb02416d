"""The torch-free list of native model types is the builders' table."""

from explorer.core.checkpoints.families import NATIVE_TYPES, builders


def test_the_native_types_are_exactly_the_builders():
    assert set(builders()) == NATIVE_TYPES
