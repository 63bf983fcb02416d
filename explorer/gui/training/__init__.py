"""The Train tab: a tiny transformer trained in the window, its heads watched as they learn."""

from .view import TrainView

__all__ = ["TrainView"]
