"""Course topics as views (Q/K/V, √d_head, cross-attention, masks, head pruning, encoder block),
reachable from the Topics menu: `install_topics_menu(window)`."""

from .menu import TOPICS, TopicsController, install_topics_menu

__all__ = ["TOPICS", "TopicsController", "install_topics_menu"]
