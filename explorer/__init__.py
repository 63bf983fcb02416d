"""Attention Explorer: see multi-head attention while you change it."""

__version__ = "0.1.0"
