"""The PEFT topic's settings (app.course.topic_settings peft_* fields) and its job."""

import pytest

from explorer.app.course import topic_settings
from explorer.app.course.topic_settings import TopicSettings
from explorer.app.course.topics import compute_peft, peft_config, peft_job
from explorer.app.settings import Settings, load_settings, save_settings
from explorer.core import AttentionConfig, Cancelled, forward
from explorer.core.topics import peft


def test_the_app_offers_the_cores_choices():
    assert topic_settings.PEFT_METHODS == peft.PEFT_METHODS
    assert topic_settings.PEFT_TARGETS == peft.LORA_TARGETS
    assert topic_settings.PEFT_B_INITS == peft.B_INITS


def test_the_job_reads_the_state_and_keeps_r_within_d_model():
    result = forward(AttentionConfig(d_model=8, n_heads=2))
    topics = TopicSettings(peft_method="lora", peft_target="k", peft_rank=64, peft_alpha=16,
                           peft_rslora=True, peft_b_init="trained", peft_steps=3, peft_seed=9,
                           peft_layers=12, peft_head=1)
    fn, config = peft_job(result, topics)
    assert fn is compute_peft
    assert config == peft.PeftConfig(result.config, method="lora", target="k", rank=8, alpha=16,
                                     rslora=True, b_init="trained", steps=3, adapter_seed=9,
                                     ia3_strength=0.5, virtual=2, layers=12)
    assert compute_peft(config).lora.losses  # trained


def test_a_stale_job_returns_nothing():
    config = peft_config(forward(AttentionConfig()), TopicSettings(peft_b_init="trained"))
    assert compute_peft(config, should_stop=lambda: True) is None
    with pytest.raises(Cancelled):
        peft.peft_topic(config, should_stop=lambda: True)


@pytest.mark.parametrize("name, bad", [("peft_method", "dora"), ("peft_target", "W_Q"),
                                       ("peft_rank", -1), ("peft_rank", 2.5), ("peft_rslora", 1),
                                       ("peft_ia3_strength", 5.0), ("peft_ia3_strength", True),
                                       ("peft_virtual", "2"), ("peft_b_init", None)])
def test_a_bad_value_is_refused_and_the_old_one_kept(name, bad):
    topics = TopicSettings()
    before = getattr(topics, name)
    with pytest.raises(ValueError):
        setattr(topics, name, bad)
    assert getattr(topics, name) == before


def test_peft_settings_survive_settings_json(tmp_path):
    topics = TopicSettings(peft_method="prefix", peft_virtual=3, peft_rank=4, peft_ia3_strength=0.25,
                           peft_layers=32, peft_rslora=True)
    path = tmp_path / "settings.json"
    save_settings(Settings(topics=topics.to_dict()), path)
    loaded, note = load_settings(path)
    assert note is None
    restored = TopicSettings()
    assert restored.update_from_dict(loaded.topics) == []
    assert restored.to_dict() == topics.to_dict()
    problems = restored.update_from_dict({"peft_rank": "four", "peft_method": "ia3"})
    assert len(problems) == 1 and restored.peft_method == "ia3" and restored.peft_rank == 4
