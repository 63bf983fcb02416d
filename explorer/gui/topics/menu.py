"""The Topics menu: one action per topic; choosing one sets a fitting preset through the app
state and shows the topic's view (added as a tab the first time, switched to afterwards).

The views' modules (and the topic maths under them, core.topics and app.topics) are imported
when a topic is first opened, not at start-up: the menu needs only the titles in texts.py, and
the first picture comes ~40 ms sooner without them (issue 9/10, start-up)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Callable

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QAction

from ...core import PRESETS, AttentionConfig
from ...core.config import COURSE_SENTENCE
from .runner import shutdown_topic_pool
from .texts import TEXTS
from ..plotting.i18n import on_language_change, translate

PAD = "<pad>"
# A leading <pad> with the causal mask leaves query 0 with no open key: the case to explain.
MASKS_CONFIG = AttentionConfig(tokens=(PAD,) + COURSE_SENTENCE + (PAD,), d_model=8, n_heads=2,
                               seed=1, causal=True, padding=frozenset({0, 5}))


@dataclass(frozen=True)
class Topic:
    key: str
    view_path: str           # "module:Class" inside this package, imported on first use
    preset: AttentionConfig  # applied keeping the user's backend, device and dtype

    @property
    def view_class(self) -> type:
        module, name = self.view_path.split(":")
        return getattr(import_module(f"{__package__}.{module}"), name)


TOPICS: tuple[Topic, ...] = (
    Topic("qkv", "qkv_view:QKVView", PRESETS["course-lab3"].config),
    Topic("scaling", "scaling_view:ScalingView", PRESETS["saturated-softmax"].config),
    Topic("cross", "cross_view:CrossView", PRESETS["course-lab3"].config),
    Topic("masks", "masks_view:MasksView", MASKS_CONFIG),
    Topic("pruning", "pruning_view:PruningView", PRESETS["many-heads"].config),
    Topic("encoder", "encoder_view:EncoderView", PRESETS["course-lab3"].config),
    Topic("peft", "peft.view:PeftView", PRESETS["course-lab3"].config),  # a package: the folder is full
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
            action = menu.addAction("")
            action.setObjectName(f"topic_{topic.key}")
            action.triggered.connect(self._opener(topic))
            self.actions[topic.key] = action
        self.retranslate()
        on_language_change(menu, self.retranslate)

    def retranslate(self) -> None:
        """The actions' and the views' tabs' texts in the UI language."""
        for key, action in self.actions.items():
            action.setText(TEXTS[key].menu_title)
            action.setStatusTip(TEXTS[key].summary)
        tabs = self.window.tabs
        for key, view in self.views.items():
            if tabs.indexOf(view) >= 0:
                tabs.setTabText(tabs.indexOf(view), translate("topics", TEXTS[key].tab))

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
