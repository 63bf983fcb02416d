"""Safe writing: temp file + rename, no silent overwrite, clear errors, nothing left behind."""

import errno
import os

import pytest

from explorer.core.files import output_files as files
from explorer.core.files.output_files import ExportError, ExportExistsError, write_file, write_files


def listing(folder):
    return sorted(p.name for p in folder.iterdir())


def test_writes_bytes_and_leaves_no_temporary(tmp_path):
    paths = write_files(tmp_path, [("a.png", b"one"), ("b.svg", b"two")])
    assert paths == [tmp_path / "a.png", tmp_path / "b.svg"]
    assert (tmp_path / "a.png").read_bytes() == b"one"
    assert listing(tmp_path) == ["a.png", "b.svg"]


def test_written_file_has_normal_permissions(tmp_path):
    path = write_file(tmp_path / "a.png", b"x")
    assert path.stat().st_mode & 0o044  # readable by others (not mkstemp's 0600)


def test_refuses_existing_file_and_writes_nothing(tmp_path):
    (tmp_path / "b.png").write_bytes(b"old")
    with pytest.raises(ExportExistsError, match="b.png already exists"):
        write_files(tmp_path, [("a.png", b"new"), ("b.png", b"new")])
    assert listing(tmp_path) == ["b.png"]
    assert (tmp_path / "b.png").read_bytes() == b"old"


def test_suffix_policy_numbers_new_files(tmp_path):
    (tmp_path / "heads_d8_h2_seed1.png").write_bytes(b"old")
    (tmp_path / "heads_d8_h2_seed1_2.png").write_bytes(b"old")
    paths = write_files(tmp_path, [("heads_d8_h2_seed1.png", b"a"), ("heads_d8_h2_seed1.png", b"b")],
                        on_exists="suffix")
    assert [p.name for p in paths] == ["heads_d8_h2_seed1_3.png", "heads_d8_h2_seed1_4.png"]
    assert (tmp_path / "heads_d8_h2_seed1.png").read_bytes() == b"old"


def test_overwrite_policy_replaces(tmp_path):
    (tmp_path / "a.png").write_bytes(b"old")
    write_files(tmp_path, [("a.png", b"new")], on_exists="overwrite")
    assert (tmp_path / "a.png").read_bytes() == b"new"
    assert listing(tmp_path) == ["a.png"]


def test_same_name_twice_in_a_batch_is_an_error(tmp_path):
    with pytest.raises(ExportError, match="both"):
        write_files(tmp_path, [("a.png", b"1"), ("a.png", b"2")], on_exists="overwrite")
    assert listing(tmp_path) == []


def test_missing_folder(tmp_path):
    with pytest.raises(ExportError, match="does not exist"):
        write_files(tmp_path / "nope", [("a.png", b"x")])


def test_folder_under_a_file_fails_even_as_root(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    with pytest.raises(ExportError, match="cannot write"):
        write_files(blocker / "sub", [("a.png", b"x")])
    with pytest.raises(ExportError, match="not a folder"):
        write_files(blocker, [("a.png", b"x")])


def test_unwritable_folder_via_proc():
    # /proc/self refuses new files even for root: a real permission failure.
    with pytest.raises(ExportError, match="cannot write to /proc"):
        write_files("/proc/self", [("a.png", b"x")])


@pytest.mark.parametrize("name", ["", "  ", "a/b.png", "..", ".", "a\0b", "a\nb", "x" * 300 + ".png"])
def test_invalid_names(tmp_path, name):
    with pytest.raises(ExportError, match="invalid file name"):
        write_files(tmp_path, [(name, b"x")])
    assert listing(tmp_path) == []


def test_disk_full_leaves_nothing_behind(tmp_path, monkeypatch):
    """The second file hits ENOSPC: no temporary and no first file remain."""
    real_fdopen, calls = os.fdopen, []

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            calls.append(data)
            if len(calls) == 2:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.handle.write(data)

        def __getattr__(self, name):
            return getattr(self.handle, name)

    monkeypatch.setattr(files.os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    with pytest.raises(ExportError, match="disk is full"):
        write_files(tmp_path, [("a.png", b"first"), ("b.png", b"second")])
    assert listing(tmp_path) == []


def test_failure_while_committing_removes_new_files(tmp_path, monkeypatch):
    real_link, count = os.link, []

    def link(src, dst):
        count.append(dst)
        if len(count) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_link(src, dst)

    monkeypatch.setattr(files.os, "link", link)
    with pytest.raises(ExportError, match="disk is full"):
        write_files(tmp_path, [("a.png", b"1"), ("b.png", b"2")])
    assert listing(tmp_path) == []


def test_no_hard_links_falls_back_to_rename(tmp_path, monkeypatch):
    refused = []

    def no_link(src, dst):
        refused.append(dst)
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(files.os, "link", no_link)
    (tmp_path / "b.png").write_bytes(b"old")
    assert write_file(tmp_path / "a.png", b"new").read_bytes() == b"new"
    paths = write_files(tmp_path, [("b.png", b"new")], on_exists="suffix")
    assert paths[0].name == "b_2.png"
    assert listing(tmp_path) == ["a.png", "b.png", "b_2.png"]
    assert len(refused) == 2  # both were written by the fallback, not by a link


def test_a_folder_that_refuses_chmod_still_gets_the_file_and_no_temporary(tmp_path, monkeypatch):
    """vfat USB sticks and some network shares answer chmod with EPERM: the mode is cosmetic."""
    refused = []

    def no_chmod(path, mode):
        refused.append(path)
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(files.os, "chmod", no_chmod)
    assert write_file(tmp_path / "a.png", b"x").read_bytes() == b"x"
    assert listing(tmp_path) == ["a.png"]
    assert refused  # the chmod was tried (and refused)


def test_an_interrupt_while_staging_leaves_nothing_behind(tmp_path, monkeypatch):
    real_stage, calls = files._stage, []

    def stage(folder, name, data):
        calls.append(name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_stage(folder, name, data)

    monkeypatch.setattr(files, "_stage", stage)
    with pytest.raises(KeyboardInterrupt):
        write_files(tmp_path, [("a.png", b"1"), ("b.png", b"2")])
    assert listing(tmp_path) == []


def test_an_interrupt_while_committing_leaves_nothing_behind(tmp_path, monkeypatch):
    real_link, count = os.link, []

    def link(src, dst):
        count.append(dst)
        if len(count) == 2:
            raise KeyboardInterrupt
        return real_link(src, dst)

    monkeypatch.setattr(files.os, "link", link)
    with pytest.raises(KeyboardInterrupt):
        write_files(tmp_path, [("a.png", b"1"), ("b.png", b"2")])
    assert listing(tmp_path) == []


def test_streamed_content_is_written_piece_by_piece(tmp_path):
    paths = write_files(tmp_path, [("a.csv", files.Streamed(lambda: (b"x,y\n", b"1,2\n", b"3,4\n")))])
    assert paths[0].read_bytes() == b"x,y\n1,2\n3,4\n"
    assert listing(tmp_path) == ["a.csv"]


def test_a_stream_that_fails_midway_leaves_nothing_behind(tmp_path):
    def pieces():
        yield b"head\n"
        raise ValueError("the figure went away")
    with pytest.raises(ValueError, match="went away"):
        write_files(tmp_path, [("a.png", b"first"), ("b.csv", files.Streamed(pieces))])
    assert listing(tmp_path) == []
