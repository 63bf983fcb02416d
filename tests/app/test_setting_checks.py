"""Settings are validated in one place (issue 22): app.settings' table of checks is what the
settings file, the view state and the topic settings all call; SHOW_VALUES_MODES is defined once."""

from __future__ import annotations

import pytest

from explorer.app import settings
from explorer.app.course import state, topic_settings
from explorer.app.settings import SETTINGS_CHECKS, SHOW_VALUES_MODES, Settings, check_setting, settings_from_dict

VALID = {"geometry": "AAAA", "window_state": "", "colormap": "magma", "show_values": "off",
         "presentation": True, "topics": {"qkv_head": 1}, "training": {}, "language": "ko",
         "recent_models": ("/home/me/my-bert", "org/name")}
INVALID = {"geometry": "not base64!", "window_state": 7, "colormap": "", "show_values": "sometimes",
           "presentation": "yes", "topics": [], "training": "x", "language": "klingon",
           "recent_models": ["a\nb"]}


def test_the_table_covers_every_saved_field_but_the_config():
    saved = set(Settings().to_dict()) - {"version", "config"}
    assert set(SETTINGS_CHECKS) == saved == set(VALID) == set(INVALID)


@pytest.mark.parametrize("name", sorted(SETTINGS_CHECKS))
def test_check_setting_takes_the_valid_and_names_the_field_it_refuses(name):
    assert check_setting(name, VALID[name]) == VALID[name]
    with pytest.raises(ValueError, match=name):
        check_setting(name, INVALID[name])


def test_the_settings_file_ignores_exactly_what_the_checks_refuse():
    loaded, problems = settings_from_dict(dict(VALID))
    assert problems == [] and all(getattr(loaded, name) == value for name, value in VALID.items())
    loaded, problems = settings_from_dict(dict(INVALID))
    assert len(problems) == len(INVALID)
    assert {name: getattr(loaded, name) for name in INVALID} == {name: getattr(Settings(), name) for name in INVALID}


def test_show_values_modes_are_defined_once_and_the_view_state_uses_the_same_check():
    assert state.SHOW_VALUES_MODES is SHOW_VALUES_MODES
    view = state.ViewState()
    for mode in SHOW_VALUES_MODES:
        view.show_values = mode
        assert view.show_values == mode
    with pytest.raises(ValueError, match="show_values"):
        view.show_values = INVALID["show_values"]
    with pytest.raises(ValueError):
        view.show_values = True  # never a mode by accident


def test_topic_settings_use_the_shared_checks():
    assert topic_settings.one_of is settings.one_of and topic_settings.flag is settings.flag
    topics = topic_settings.TopicSettings()
    with pytest.raises(ValueError):
        topics.scaling_init = "nonsense"
    with pytest.raises(ValueError):
        topics.cross_pad_is_padding = 1
    assert topics.update_from_dict({"scaling_init": "nonsense"})  # a note, the default kept
    assert topics.scaling_init == topic_settings.TopicSettings().scaling_init
