"""Topic controls and the app state's TopicSettings stay in step both ways, without ping-pong:
a state change moves the widget and the computation; a widget edit moves the state."""

import pytest

from explorer.app.observable import Event
from explorer.app.course.state import ViewState
from explorer.app.course.topic_settings import TopicSettings
from explorer.core import AttentionConfig, forward
from explorer.core.topics import EncoderConfig, encoder_block
from explorer.gui.topics.cross_view import CrossView
from explorer.gui.topics.encoder_view import EncoderView
from explorer.gui.topics.masks_view import MasksView
from explorer.gui.topics.pruning_view import PruningView
from explorer.gui.topics.qkv_view import QKVView
from explorer.gui.topics.scaling_view import ScalingView
from numeric import assert_close
from topic_support import encoder_rule, redraw, show_view


class State:
    """The part of AppState a topic view reads (no compute worker: the tests feed results)."""

    def __init__(self, topics=None):
        self.result_changed = Event()
        self.view = ViewState()
        self.result = None
        self.topics = topics if topics is not None else TopicSettings()


def count(topics, name):
    seen = []
    getattr(topics, name + "_changed").connect(seen.append)
    return seen


def test_state_drives_the_encoder_widgets_and_its_computation(qtbot):
    state = State()
    result = forward(AttentionConfig())
    view = show_view(qtbot, EncoderView, result, state=state)
    seen = count(state.topics, "encoder_norm_first")
    redraw(qtbot, view, lambda: setattr(state.topics, "encoder_norm_first", True))
    assert view.norm_combo.currentData() is True and seen == [True]  # no echo from the combo
    assert view.block.config.norm_first
    expected = encoder_block(EncoderConfig(result.config, norm_first=True))
    assert_close(view.stage_plots["output"].matrix(), expected.output, **encoder_rule(expected))
    redraw(qtbot, view, lambda: setattr(state.topics, "encoder_d_ff", 5))
    assert not view.auto_ff.isChecked() and view.ff_spin.isEnabled() and view.ff_spin.value() == 5
    assert view.block.config.ffn_width == 5
    redraw(qtbot, view, lambda: setattr(state.topics, "encoder_d_ff", None))
    assert view.auto_ff.isChecked() and view.ff_spin.value() == 32 and not view.ff_spin.isEnabled()


def test_encoder_widgets_write_the_state_once(qtbot):
    state = State()
    view = show_view(qtbot, EncoderView, forward(AttentionConfig()), state=state)
    acts, d_ffs = count(state.topics, "encoder_activation"), count(state.topics, "encoder_d_ff")
    redraw(qtbot, view, lambda: view.act_combo.setCurrentIndex(1))
    redraw(qtbot, view, lambda: view.auto_ff.setChecked(False))
    redraw(qtbot, view, lambda: view.ff_spin.setValue(9))
    assert acts == ["relu"] and d_ffs == [32, 9]
    assert state.topics.encoder_activation == "relu" and state.topics.encoder_d_ff == 9


def test_scaling_combos_follow_and_write_the_state(qtbot):
    state = State()
    view = show_view(qtbot, ScalingView, forward(AttentionConfig()), state=state)
    inits = count(state.topics, "scaling_init")
    redraw(qtbot, view, lambda: setattr(state.topics, "scaling_init", "course"))
    assert view.init.currentData() == "course" and inits == ["course"]
    state.topics.scaling_measure = "entropy"  # a redraw only, no recompute
    assert view.measure.currentData() == "entropy"
    assert view.sweep_plot.getAxis("left").labelText == "mean entropy (nats)"
    view.measure.setCurrentIndex(view.measure.findData("max_weight"))
    assert state.topics.scaling_measure == "max_weight"


def test_cross_sentence_and_padding_are_state(qtbot):
    state = State()
    view = show_view(qtbot, CrossView, forward(AttentionConfig()), state=state)
    texts = count(state.topics, "cross_text")
    redraw(qtbot, view, lambda: setattr(state.topics, "cross_text", "a b <pad>"))
    assert view.encoder_edit.text() == "a b <pad>" and texts == ["a b <pad>"]
    assert view.cross.encoder_tokens == ("a", "b", "<pad>") and not view.cross.mask[:, 2].any()
    redraw(qtbot, view, lambda: view.pad_box.setChecked(False))
    assert state.topics.cross_pad_is_padding is False and view.cross.mask[:, 2].all()
    view.encoder_edit.setText("x y")
    redraw(qtbot, view, view.encoder_edit.editingFinished.emit)
    assert state.topics.cross_text == "x y" and texts == ["a b <pad>", "x y"]


def test_pruning_mask_is_state(qtbot):
    state = State()
    view = show_view(qtbot, PruningView, forward(AttentionConfig(d_model=12, n_heads=3)),
                     state=state)
    masks = count(state.topics, "pruning_mask")
    redraw(qtbot, view, lambda: setattr(state.topics, "pruning_mask", (True, False, True)))
    assert view.head_mask().tolist() == [True, False, True]
    assert view.data.pruned.head_mask.tolist() == [True, False, True]
    redraw(qtbot, view, lambda: view.boxes[0].setChecked(False))
    assert state.topics.pruning_mask == (False, False, True)
    assert masks == [(True, False, True), (False, False, True)]


@pytest.mark.parametrize("view_class, name", [(QKVView, "qkv_head"), (MasksView, "masks_head")])
def test_head_spins_are_state(qtbot, view_class, name):
    state = State(TopicSettings(**{name: 1}))  # e.g. restored from settings.json
    view = show_view(qtbot, view_class, forward(AttentionConfig()), state=state)
    assert view.head_spin.value() == 1
    heads = count(state.topics, name)
    view.head_spin.setValue(0)
    assert getattr(state.topics, name) == 0 and heads == [0]
    setattr(state.topics, name, 1)
    assert view.head_spin.value() == 1 and heads == [0, 1]
    title = (view.plots["Q_head"] if view_class is QKVView else view.plots["weights"]).title
    assert "head 1" in title


def test_the_window_saves_the_topic_settings(make_window):
    window = make_window()
    window.state.topics.encoder_activation = "relu"
    window.state.topics.pruning_mask = (False, True)
    saved = window.settings_snapshot().to_dict()["topics"]
    assert saved["encoder_activation"] == "relu" and saved["pruning_mask"] == [False, True]
