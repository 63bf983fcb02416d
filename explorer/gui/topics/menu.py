"""The Topics menu: one action per topic; choosing one sets a fitting preset through the app
state and shows the topic's view (added as a tab the first time, switched to afterwards)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QAction

from ...core import PRESETS, AttentionConfig
from ...core.config import COURSE_SENTENCE
from .cross_view import CrossView
from .encoder_view import EncoderView
from .masks_view import MasksView
from .pruning_view import PruningView
from .qkv_view import QKVView
from .runner import shutdown_topic_pool
from .scaling_view import ScalingView
from .texts import TEXTS
from ..plotting.i18n import translate

PAD = "<pad>"
# A leading <pad> with the causal mask leaves query 0 with no open key: the case to explain.
MASKS_CONFIG = AttentionConfig(tokens=(PAD,) + COURSE_SENTENCE + (PAD,), d_model=8, n_heads=2,
                               seed=1, causal=True, padding=frozenset({0, 5}))


@dataclass(frozen=True)
class Topic:
    key: str
    view_class: type
    preset: AttentionConfig  # applied keeping the user's backend, device and dtype


TOPICS: tuple[Topic, ...] = (
    Topic("qkv", QKVView, PRESETS["course-lab3"].config),
    Topic("scaling", ScalingView, PRESETS["saturated-softmax"].config),
    Topic("cross", CrossView, PRESETS["course-lab3"].config),
    Topic("masks", MasksView, MASKS_CONFIG),
    Topic("pruning", PruningView, PRESETS["many-heads"].config),
    Topic("encoder", EncoderView, PRESETS["course-lab3"].config),
)


class TopicsController(QObject):
    """Owns the topic views of one window and the menu actions that open them."""

    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("topics_controller")
        self.window = window
        self.views: dict[str, object] = {}
        self.actions: dict[str, QAction] = {}

    def install(self, menu) -> None:
        for topic in TOPICS:
            text = TEXTS[topic.key]
            action = menu.addAction(text.menu_title)
            action.setObjectName(f"topic_{topic.key}")
            action.setStatusTip(text.summary)
            action.triggered.connect(self._opener(topic))
            self.actions[topic.key] = action

    def _opener(self, topic: Topic) -> Callable:
        return lambda _checked=False: self.show_topic(topic.key)

    def show_topic(self, key: str, apply_preset: bool = True):
        """Apply the topic's preset (unless told not to: a lesson step sets its own config) and
        bring its view to the front; returns the view."""
        topic = next(t for t in TOPICS if t.key == key)
        state = self.window.state
        current = state.config
        if apply_preset:
            state.set_config(topic.preset.replace(backend=current.backend, device=current.device,
                                                  dtype=current.dtype))
        view = self.views.get(key)
        if view is None:
            view = topic.view_class(state)
            view.setObjectName(f"topic_view_{key}")
            self.views[key] = view
        if self.window.tabs.indexOf(view) < 0:  # new, or its tab was closed
            self.window.add_view(translate("topics", TEXTS[key].tab), view, closable=True)
        self.window.tabs.setCurrentWidget(view)
        self.window.status_message(TEXTS[key].title)
        return view


def install_topics_menu(window) -> TopicsController:
    """Fill window.topics_menu with one action per topic."""
    controller = TopicsController(window)
    controller.install(window.topics_menu)
    app = QCoreApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(shutdown_topic_pool)
    return controller
