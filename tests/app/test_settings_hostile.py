"""Hostile settings paths: whatever sits at the settings path, start-up neither hangs, nor reads
gigabytes, nor destroys it, and exit does not write over it.

Classes: every kind of non-regular file (FIFO, character device, directory, socket), a symlink
to each, a file we did not write, corrupt files one after another, permissions.
"""

import json
import os
import socket
import stat
import threading

import pytest

from explorer.app.settings import (MAX_BACKUPS, Settings, load_settings, save_settings)


def make_fifo(path):
    os.mkfifo(path)


def make_dir(path):
    path.mkdir()


def make_socket(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    return sock  # keep it open while the test runs


def make_dev_zero(path):
    os.symlink("/dev/zero", path)


def make_dev_null(path):
    os.symlink("/dev/null", path)


def make_dev_urandom(path):
    os.symlink("/dev/urandom", path)


NON_REGULAR = {"fifo": make_fifo, "directory": make_dir, "socket": make_socket,
               "/dev/zero": make_dev_zero, "/dev/null": make_dev_null,
               "/dev/urandom": make_dev_urandom}


def load_in_thread(path, seconds=20):
    """load_settings in a thread: a hang fails the test instead of hanging the suite."""
    box = []
    thread = threading.Thread(target=lambda: box.append(load_settings(path)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert box, f"load_settings({path}) did not return within {seconds} s"
    return box[0]


def kind_of(path):
    return stat.S_IFMT(os.lstat(path).st_mode)


@pytest.mark.parametrize("name", ["settings.json", "elsewhere.json"])
@pytest.mark.parametrize("kind", sorted(NON_REGULAR))
@pytest.mark.parametrize("via_symlink", [False, True])
def test_a_non_regular_settings_path_gives_defaults_a_note_and_stays(tmp_path, kind, name,
                                                                      via_symlink):
    target = tmp_path / f"target-{name}"
    keep = NON_REGULAR[kind](target)  # noqa: F841 (a socket must stay open)
    path = tmp_path / name
    if via_symlink:
        os.symlink(target, path)
    else:
        path = target
    before = kind_of(path)
    settings, note = load_in_thread(path)
    assert settings == Settings() and settings.read_only
    assert note and "not be saved" in str(note)
    assert kind_of(path) == before and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {path.name, target.name})  # nothing renamed, nothing added
    with pytest.raises(OSError):  # and even a careless save refuses to replace it
        save_settings(Settings(), target)


def test_a_fifo_does_not_block_even_when_it_appears_after_the_check(tmp_path, monkeypatch):
    """The stat-then-open race: O_NONBLOCK makes the open of a FIFO return at once."""
    path = tmp_path / "settings.json"
    path.write_text("{}")
    real_stat, swapped = os.stat, []

    def swap_then_stat(p, *a, **k):
        result = real_stat(p, *a, **k)
        if os.fspath(p) == os.fspath(path) and not swapped:
            swapped.append(True)
            os.unlink(path)
            os.mkfifo(path)
        return result

    monkeypatch.setattr(os, "stat", swap_then_stat)
    settings, note = load_in_thread(path)
    assert swapped and settings.read_only and note
    assert stat.S_ISFIFO(os.lstat(path).st_mode)


def test_corrupt_files_one_after_another_keep_numbered_backups(tmp_path):
    path = tmp_path / "settings.json"
    originals = [f"{{oops {i}".encode() for i in range(4)]
    for original in originals:
        path.write_bytes(original)
        settings, note = load_settings(path)
        assert settings == Settings() and not settings.read_only and ".bad" in str(note)
        save_settings(settings, path)  # what the app does at exit
    backups = sorted(tmp_path.glob("settings.json.bad*"), key=lambda p: (len(p.name), p.name))
    assert [p.name for p in backups] == ["settings.json.bad", "settings.json.bad2",
                                         "settings.json.bad3", "settings.json.bad4"]
    assert [p.read_bytes() for p in backups] == originals


def test_when_every_backup_name_is_taken_the_file_is_left_alone(tmp_path):
    path = tmp_path / "settings.json"
    for number in range(1, MAX_BACKUPS + 1):
        (tmp_path / f"settings.json.bad{number if number > 1 else ''}").write_text("old")
    path.write_bytes(b"{broken")
    settings, note = load_settings(path)
    assert settings.read_only and "not be saved" in str(note)
    assert path.read_bytes() == b"{broken"


@pytest.mark.parametrize("content", [b"my shopping list\n", b'{"a": 1}', b"[1, 2, 3]", b"\x00\xff",
                                     b'"settings"', b"12", b"{oops"])
def test_a_file_that_is_not_ours_is_left_untouched(tmp_path, content):
    """`gui --settings notes.txt` renamed notes.txt to notes.txt.bad and wrote JSON in its place."""
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    settings, note = load_settings(path)
    assert settings.read_only and "left untouched" in str(note)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"] and path.read_bytes() == content


def test_a_file_we_wrote_under_another_name_is_ours(tmp_path):
    path = tmp_path / "my-settings.json"
    save_settings(Settings(colormap="magma"), path)
    settings, note = load_settings(path)
    assert note is None and not settings.read_only and settings.colormap == "magma"


def test_a_symlink_to_a_real_settings_file_is_followed_and_kept(tmp_path):
    """A dotfiles manager links settings.json into a repository: saving writes through the link."""
    real = tmp_path / "dotfiles" / "attention.json"
    real.parent.mkdir()
    save_settings(Settings(colormap="magma"), real)
    link = tmp_path / "settings.json"
    os.symlink(real, link)
    settings, note = load_settings(link)
    assert settings.colormap == "magma" and note is None
    save_settings(Settings(colormap="plasma"), link)
    assert link.is_symlink() and json.loads(real.read_text())["colormap"] == "plasma"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_left_alone(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0)
    settings, note = load_settings(path)
    assert settings.read_only and note


@pytest.mark.parametrize("content", [b"{" * 100_000, b"[" * 100_000 + b"]" * 100_000,
                                     b'{"config": {"d_model": 1' + b"0" * 5000 + b"}}",
                                     b'{"config": {"tokens": ["a\\u0001b"]}}',
                                     b'{"config": {"tokens": ["\\ud800"]}}',
                                     b'{"config": {"tokens": ["' + b"x" * 500_000 + b'"]}}',
                                     b'{"geometry": "' + b"A" * 900_000 + b'"}',
                                     b'{"config": {"device": "cpu\\n", "backend": "torch"}}',
                                     b"\xef\xbb\xbf{}", b"{}" + b" " * 2_000_000])
def test_hostile_contents_give_defaults_or_a_note_and_never_raise(tmp_path, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    settings, note = load_in_thread(path)
    assert isinstance(settings, Settings)
    assert settings.config.device == "cpu" and all(len(t) <= 100 for t in settings.config.tokens)
