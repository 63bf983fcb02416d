"""Settings: JSON round trip in the temp settings dir; anything broken falls back, never raises."""

import json
import os

import pytest

from explorer.core import AttentionConfig
from explorer.app import settings as settings_mod
from explorer.app.settings import (Settings, default_settings_path, load_settings, save_settings,
                                   settings_dir)


def test_settings_dir_honours_the_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv(settings_mod.SETTINGS_ENV, str(tmp_path))
    assert settings_dir() == tmp_path
    assert default_settings_path() == tmp_path / "settings.json"


def test_default_dir_is_per_user_when_unset(monkeypatch):
    monkeypatch.delenv(settings_mod.SETTINGS_ENV)
    assert settings_dir().name == "attention-explorer"


def test_missing_file_gives_defaults_without_a_note():
    settings, note = load_settings()
    assert settings == Settings() and note is None


def test_round_trip():
    config = AttentionConfig(tokens=("a", "b", "c"), d_model=12, n_heads=3, seed=2**32 - 1,
                             causal=True, padding=frozenset({2}), positional=True,
                             backend="torch", device="cuda:1", dtype="float32")
    original = Settings(config=config, geometry="AAEC", window_state="", colormap="magma",
                        show_values="off", presentation=True)
    save_settings(original)
    loaded, note = load_settings()
    assert note is None
    assert loaded == original


def test_write_is_atomic_and_leaves_no_temp_files():
    save_settings(Settings())
    save_settings(Settings(colormap="plasma"))
    files = sorted(p.name for p in settings_dir().iterdir())
    assert files == ["settings.json"]


def test_failed_write_keeps_the_old_file(monkeypatch):
    save_settings(Settings(colormap="plasma"))

    def broken_replace(src, dst):
        raise OSError("disk full")

    with monkeypatch.context() as patched, pytest.raises(OSError):
        patched.setattr(os, "replace", broken_replace)
        save_settings(Settings(colormap="magma"))
    assert load_settings()[0].colormap == "plasma"
    assert sorted(p.name for p in settings_dir().iterdir()) == ["settings.json"]


def _write(data: bytes):
    path = default_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("data", [
    b"\x00\xff\xfe garbage \x80",
    b"{not json",
    b"[1, 2, 3]",
    b"null",
    b'"a string"',
    b"[" * 100_000,
])
def test_garbage_falls_back_to_defaults_with_a_note(data):
    _write(data)
    settings, note = load_settings()
    assert settings == Settings()
    assert note


@pytest.mark.parametrize("config, reason", [
    ({"tokens": ["a"], "d_model": 8, "n_heads": 3}, "divisible"),
    ({"d_model": "eight"}, "whole number"),
    ({"tokens": []}, "empty"),
    ({"padding": [7]}, "padding"),
    ({"padding": 5}, "invalid"),
    ({"tokens": None}, "invalid"),
    ("not a dict", "JSON object"),
    ({"seed": 1.5}, "whole number"),
])
def test_invalid_config_keeps_the_default_config_and_the_other_fields(config, reason):
    _write(json.dumps({"config": config, "colormap": "magma"}).encode())
    settings, note = load_settings()
    assert settings.config == AttentionConfig()
    assert settings.colormap == "magma"
    assert note and reason in str(note)


@pytest.mark.parametrize("field, value", [
    ("geometry", 12), ("geometry", "not base64 !!"), ("window_state", ["x"]),
    ("colormap", 3), ("colormap", ""), ("show_values", "sometimes"),
    ("presentation", "yes"), ("presentation", 1),
])
def test_wrong_field_types_fall_back_per_field(field, value):
    _write(json.dumps({field: value, "show_values": "on"} if field != "show_values"
                      else {field: value}).encode())
    settings, note = load_settings()
    assert getattr(settings, field) == getattr(Settings(), field)
    assert note and field.replace("_", " ").split()[0] in str(note).replace("-", " ")


def test_an_unparsable_file_is_kept_aside_so_saving_defaults_cannot_destroy_it():
    original = b'{"config": {"tokens": ["my", "own", "sentence"], oops'
    path = _write(original)
    settings, note = load_settings()
    assert settings == Settings() and "settings.json.bad" in str(note)
    save_settings(settings)  # what the app does at exit
    assert (path.parent / "settings.json.bad").read_bytes() == original
    assert load_settings() == (Settings(), None)


def test_unreadable_file_gives_defaults(tmp_path):
    folder = tmp_path / "settings.json"
    folder.mkdir()  # a directory where the file should be: reading fails
    settings, note = load_settings(folder)
    assert settings == Settings() and note


def test_explicit_path_is_used(tmp_path):
    path = tmp_path / "elsewhere" / "my.json"
    save_settings(Settings(show_values="on"), path)
    assert load_settings(path)[0].show_values == "on"
    assert not default_settings_path().exists()


def test_huge_file_is_refused():
    _write(b" " * (settings_mod.MAX_BYTES + 1))
    settings, note = load_settings()
    assert settings == Settings() and "too large" in str(note)


@pytest.mark.parametrize("data", [
    b'{"config": {"d_model": ' + b"9" * 5000 + b"}}",  # json.loads: ValueError, not JSONDecodeError
    b"9" * 5000,
])
def test_a_number_too_long_for_python_falls_back_with_a_note(data):
    _write(data)
    settings, note = load_settings()
    assert settings == Settings() and note


@pytest.mark.parametrize("config", [
    {"padding": [float("inf")]}, {"padding": [float("nan")]}, {"padding": [[1]]},
    {"d_model": float("inf")}, {"seed": float("-inf")}, {"tokens": [["a", ["b"]]] * 3, "n_heads": []},
    {"backend": {"nested": [1, {"x": None}]}}, {"tokens": {"a": 1}, "padding": {"b": 2}},
])
def test_hostile_config_values_never_raise(config):
    _write(json.dumps({"config": config, "colormap": "magma"}).encode())  # NaN/Infinity allowed
    settings, note = load_settings()
    assert settings.config == AttentionConfig() and settings.colormap == "magma"
    assert note and len(str(note)) < 300


def test_a_byte_order_mark_from_a_windows_editor_is_accepted():
    _write("\ufeff".encode() + json.dumps({"colormap": "magma"}).encode())
    settings, note = load_settings()
    assert settings.colormap == "magma" and note is None
