"""The one reader of users' files: regular files only, never blocking, size capped first."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from explorer.core.files.user_files import UserFileError, read_user_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


def read_in_thread(path, max_bytes=1000):
    """read_user_file in a thread: (result or exception, finished within 10 s)."""
    out = []
    worker = threading.Thread(target=lambda: out.append(_call(path, max_bytes)), daemon=True)
    worker.start()
    worker.join(10)
    return (out[0] if out else None), not worker.is_alive()


def _call(path, max_bytes):
    try:
        return read_user_file(path, max_bytes)
    except Exception as exc:  # noqa: BLE001 - handed to the test to inspect
        return exc


def test_a_regular_file_is_read_whole(tmp_path):
    path = tmp_path / "a.toml"
    path.write_bytes(b"x" * 1000)
    assert read_user_file(path, 1000) == b"x" * 1000


def test_a_fifo_is_refused_at_once_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "lesson.toml"
    os.mkfifo(fifo)
    result, finished = read_in_thread(fifo)
    assert finished, "read_user_file waited on a FIFO"
    assert isinstance(result, UserFileError) and str(result) == f"{fifo} is not a regular file (a FIFO)"


def test_a_symlink_to_a_fifo_is_refused_too(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "model.safetensors"
    link.symlink_to(fifo)
    result, finished = read_in_thread(link)
    assert finished and isinstance(result, UserFileError) and "a FIFO" in str(result)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_before_any_read():
    result, finished = read_in_thread("/dev/zero", 10**12)  # no cap would help: it never ends
    assert finished and isinstance(result, UserFileError)
    assert str(result) == "/dev/zero is not a regular file (a device)"


def test_a_folder_and_a_socket_are_not_regular_files(tmp_path):
    with pytest.raises(UserFileError, match="a folder"):
        read_user_file(tmp_path, 1000)
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(UserFileError, match="a socket"):
            read_user_file(path, 1000)


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "big.toml"
    path.write_bytes(b"x" * 1001)
    opened = []
    monkeypatch.setattr(os, "open", lambda *a, **k: opened.append(a) or (_ for _ in ()).throw(AssertionError))
    with pytest.raises(UserFileError) as caught:
        read_user_file(path, 1000)
    assert str(caught.value) == f"{path} is larger than 1 KB (it has 1 KB)" and not opened


def test_a_file_that_grows_after_the_check_is_still_capped(tmp_path, monkeypatch):
    import explorer.core.files.user_files as user_files
    small, path = tmp_path / "small", tmp_path / "growing"
    small.write_bytes(b"z")
    path.write_bytes(b"x" * 5000)
    monkeypatch.setattr(user_files, "check_regular", lambda p: os.stat(small))  # it had 1 byte
    with pytest.raises(UserFileError, match="is larger than 1 KB"):
        read_user_file(path, 1000)


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(UserFileError) as caught:
        read_user_file(tmp_path / "nope.toml", 1000)
    assert str(caught.value) == f"{tmp_path / 'nope.toml'} does not exist"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_says_permission_denied(tmp_path):
    path = tmp_path / "secret"
    path.write_bytes(b"x")
    path.chmod(0)
    with pytest.raises(UserFileError, match="cannot read .*: permission denied"):
        read_user_file(path, 1000)


def test_the_refusal_is_shown_in_korean(tmp_path):
    from explorer.app.i18n import error_text
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    with pytest.raises(UserFileError) as caught:
        read_user_file(fifo, 10)
    text = error_text(caught.value, "ko")
    assert str(fifo) in text and text != str(caught.value) and "FIFO" in text
