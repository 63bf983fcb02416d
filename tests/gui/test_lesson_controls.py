"""Lessons name controls; each view declares the controls it owns (LESSON_CONTROLS and
lesson_controls()), so the lesson wiring keeps no second map of the UI (issue 22)."""

from __future__ import annotations

import collections

from PySide6.QtWidgets import QWidget

from explorer.app.lessons import CONTROLS
from explorer.gui.controls.panel import ControlPanel
from explorer.gui.insight.inside_view import InsideView
from explorer.gui.kv.panel import KVPanel
from explorer.gui.learned.source import ModelSourceControl
from explorer.gui.pe.panel import PEPanel
from explorer.gui.topics.cross_view import CrossView
from explorer.gui.topics.encoder_view import EncoderView
from explorer.gui.topics.peft import PeftView
from explorer.gui.topics.masks_view import MasksView
from explorer.gui.topics.pruning_view import PruningView
from explorer.gui.topics.qkv_view import QKVView
from explorer.gui.topics.scaling_view import ScalingView
from explorer.gui.training.view import TrainView

VIEWS = (ControlPanel, ModelSourceControl, KVPanel, PEPanel, QKVView, ScalingView, CrossView,
         MasksView, PruningView, EncoderView, PeftView, TrainView, InsideView)


def test_every_lesson_control_is_declared_by_exactly_one_view():
    owners = collections.defaultdict(list)
    for view in VIEWS:
        for name in view.LESSON_CONTROLS:
            owners[name].append(view.__name__)
    assert sorted(owners) == sorted(CONTROLS)
    assert {name: found for name, found in owners.items() if len(found) != 1} == {}


def test_the_lesson_wiring_finds_each_named_control_in_the_window(make_window):
    window = make_window()
    lessons = window.install_lessons()
    window.install_learned()  # the Inside attention tab comes with the model views
    for topic in {"qkv", "scaling", "cross", "masks", "pruning", "encoder", "peft"}:
        window.topics_controller.show_topic(topic, apply_preset=False)
    found = {name: lessons.control_widget(name) for name in CONTROLS}
    missing = [name for name, widget in found.items() if not isinstance(widget, QWidget)]
    assert missing == []
    outside = [name for name, widget in found.items() if not window.isAncestorOf(widget)]
    assert outside == []
    assert lessons.control_widget("no_such_control") is None


def test_a_closed_topic_has_no_control_to_highlight(make_window):
    window = make_window()
    lessons = window.install_lessons()
    assert "qkv" not in window.topics_controller.views
    assert lessons.control_widget("qkv_head") is None
