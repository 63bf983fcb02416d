"""Topic settings as Qt-free state: checked fields, jobs built from them, and settings.json."""

import numpy as np
import pytest

from explorer.app.settings import Settings, load_settings, save_settings
from explorer.app.course.topic_settings import TopicSettings
from explorer.app.course.topics import (compute_cross, compute_encoder, compute_pruning, compute_scaling,
                                 cross_job, encoder_job, pruning_job, scaling_job)
from explorer.core import AttentionConfig, forward


class Recorder:
    def __init__(self, settings, name):
        self.values = []
        getattr(settings, name + "_changed").connect(self.values.append)


def test_a_field_emits_once_per_real_change():
    topics = TopicSettings()
    seen = Recorder(topics, "encoder_activation")
    topics.encoder_activation = "relu"
    topics.encoder_activation = "relu"
    topics.encoder_activation = "gelu"
    assert seen.values == ["relu", "gelu"]


@pytest.mark.parametrize("name, bad", [("scaling_init", "xavier"), ("encoder_d_ff", -1),
                                       ("encoder_d_ff", True), ("qkv_head", -2),
                                       ("pruning_mask", [1, 0]), ("cross_pad_is_padding", 1),
                                       ("cross_text", None)])
def test_a_bad_value_is_refused_and_the_old_one_kept(name, bad):
    topics = TopicSettings()
    before = getattr(topics, name)
    with pytest.raises(ValueError):
        setattr(topics, name, bad)
    assert getattr(topics, name) == before


def test_jobs_read_the_state_not_a_widget():
    result = forward(AttentionConfig())
    topics = TopicSettings(encoder_norm_first=True, encoder_activation="relu",
                           encoder_d_ff=12, scaling_init="course",
                           cross_text="a <pad> b", cross_pad_is_padding=True,
                           pruning_mask=(True, False))
    assert encoder_job(result, topics) == (compute_encoder, result.config, True, "relu", 12)
    assert scaling_job(result, topics) == (compute_scaling, result, "course")
    assert cross_job(result, topics) == (compute_cross, result.config, ("a", "<pad>", "b"),
                                               frozenset({1}))
    fn, res, mask, importance = pruning_job(result, topics)
    assert fn is compute_pruning and res is result and importance is None
    np.testing.assert_array_equal(mask, [True, False])
    topics.cross_pad_is_padding = False
    assert cross_job(result, topics)[3] == frozenset()


def test_a_mask_for_another_head_count_keeps_every_head():
    result = forward(AttentionConfig(d_model=12, n_heads=3))
    topics = TopicSettings(pruning_mask=(False, True))
    np.testing.assert_array_equal(pruning_job(result, topics)[2], [True, True, True])


def test_topic_settings_survive_settings_json(tmp_path):
    topics = TopicSettings(scaling_measure="entropy", encoder_d_ff=7, qkv_head=1, masks_head=3,
                           pruning_mask=(True, False, True), cross_text="나는 <pad>")
    path = tmp_path / "settings.json"
    save_settings(Settings(topics=topics.to_dict()), path)
    loaded, note = load_settings(path)
    assert note is None
    restored = TopicSettings()
    assert restored.update_from_dict(loaded.topics) == []
    assert restored.to_dict() == topics.to_dict()


def test_bad_saved_topic_settings_are_skipped_field_by_field():
    topics = TopicSettings()
    problems = topics.update_from_dict({"qkv_head": "two", "encoder_activation": "relu",
                                        "pruning_mask": "all"})
    assert topics.encoder_activation == "relu" and topics.qkv_head == 0
    assert topics.pruning_mask is None
    assert [str(p) for p in problems] == ["saved topic setting pruning_mask ignored",
                                         "saved topic setting qkv_head ignored"]
    assert [str(p) for p in TopicSettings().update_from_dict([1, 2])] == ["saved topic settings ignored"]
