"""The one output writer never replaces anything but a regular file (issue 21, row 3).

A FIFO, a device, a folder or a symlink where an output would go is refused in every on_exists
mode with one ExportError line, and stays as it was: as root, `--force` onto /dev/null used to
replace the machine's /dev/null. `Batch` (files staged one at a time, committed together) keeps
the writer's promises: names checked first, all or nothing, mode from the umask.
"""

from __future__ import annotations

import os
import stat

import pytest

from explorer.core.files import output_files as files
from explorer.core.files.output_files import Batch, ExportError, ExportExistsError, check_targets, write_file, write_files

MODES = ("error", "suffix", "overwrite")


def listing(folder):
    return sorted(p.name for p in folder.iterdir())


def _fifo(path):
    os.mkfifo(path)
    return path


def _symlink_to_file(path):
    real = path.parent / "real.txt"
    real.write_bytes(b"keep me")
    path.symlink_to(real)
    return path


def _dangling_symlink(path):
    path.symlink_to(path.parent / "nowhere")
    return path


def _folder(path):
    path.mkdir()
    return path


def _char_device(path):
    """A character device like /dev/null (1, 3), made only where the test may (root, mknod)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


MAKERS = {"fifo": _fifo, "symlink": _symlink_to_file, "dangling": _dangling_symlink,
          "folder": _folder, "device": _char_device}
KINDS = {"fifo": "a FIFO", "symlink": "a symbolic link", "dangling": "a symbolic link",
         "folder": "a folder", "device": "a device"}


def _state(path):
    """What must not change: the lstat type, and where a symlink points."""
    info = os.lstat(path)
    return stat.S_IFMT(info.st_mode), (os.readlink(path) if stat.S_ISLNK(info.st_mode) else None)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_non_regular_target_is_refused_in_every_mode_and_stays(tmp_path, kind, mode):
    target = MAKERS[kind](tmp_path / "m.safetensors")
    before, names = _state(target), listing(tmp_path)
    with pytest.raises(ExportError) as info:
        write_file(target, b"model", on_exists=mode)
    message = str(info.value)
    assert not isinstance(info.value, ExportExistsError)  # --force would not help: not "already exists"
    assert message == f"{target} is not a regular file ({KINDS[kind]}); it is never replaced"
    assert "\n" not in message
    assert _state(target) == before and listing(tmp_path) == names  # untouched, no temporary left
    if kind == "symlink":
        assert (tmp_path / "real.txt").read_bytes() == b"keep me"


def test_the_refusal_comes_before_anything_is_written_in_a_batch(tmp_path):
    _fifo(tmp_path / "b.png")
    with pytest.raises(ExportError, match="not a regular file"):
        write_files(tmp_path, [("a.png", b"1"), ("b.png", b"2")], on_exists="overwrite")
    assert listing(tmp_path) == ["b.png"] and stat.S_ISFIFO(os.lstat(tmp_path / "b.png").st_mode)
    with pytest.raises(ExportError, match="not a regular file"):
        check_targets(tmp_path, ["a.png", "b.png"], "overwrite")


def test_a_target_swapped_for_a_fifo_after_the_check_is_still_not_replaced(tmp_path, monkeypatch):
    """The check runs again just before the rename (overwrite mode)."""
    target = tmp_path / "a.png"
    target.write_bytes(b"old")
    real_stage = files._stage

    def stage_then_swap(folder, name, data):
        tmp = real_stage(folder, name, data)
        target.unlink()
        os.mkfifo(target)
        return tmp

    monkeypatch.setattr(files, "_stage", stage_then_swap)
    with pytest.raises(ExportError, match="a FIFO"):
        write_file(target, b"new", on_exists="overwrite")
    assert stat.S_ISFIFO(os.lstat(target).st_mode) and listing(tmp_path) == ["a.png"]


def test_suffix_mode_skips_a_dangling_symlink_among_the_numbered_names(tmp_path):
    (tmp_path / "a.png").write_bytes(b"old")
    _dangling_symlink(tmp_path / "a_2.png")
    assert write_file(tmp_path / "a.png", b"new", on_exists="suffix").name == "a_3.png"


def test_a_batch_streams_files_and_commits_all_or_nothing(tmp_path):
    old = os.umask(0o027)
    try:
        with Batch(tmp_path, ["a.png", "b.gif"]) as batch:
            handle = batch.open("b.gif")
            for piece in (b"GIF", b"89a", b";"):
                handle.write(piece)
            batch.write("a.png", b"png")
            assert not (tmp_path / "a.png").exists() and not (tmp_path / "b.gif").exists()  # not yet
            paths = batch.commit()
    finally:
        os.umask(old)
    assert paths == [tmp_path / "a.png", tmp_path / "b.gif"]
    assert (tmp_path / "b.gif").read_bytes() == b"GIF89a;"
    assert stat.S_IMODE(os.stat(tmp_path / "a.png").st_mode) == 0o666 & ~files._UMASK
    with Batch(tmp_path, ["c.png", "d.png"], "error") as batch:
        batch.write("c.png", b"c")
        # leaving without a commit (a cancel, an exception): nothing staged stays
    assert listing(tmp_path) == ["a.png", "b.gif"]


def test_a_batch_checks_every_name_before_writing(tmp_path):
    (tmp_path / "b.png").write_bytes(b"old")
    with pytest.raises(ExportExistsError):
        Batch(tmp_path, ["a.png", "b.png"])
    with pytest.raises(ExportError, match="invalid file name"):
        Batch(tmp_path, ["a.png", ".hidden"])
    assert listing(tmp_path) == ["b.png"]


def test_an_interrupt_in_a_batch_leaves_nothing_behind(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with Batch(tmp_path, ["a.png", "b.png"]) as batch:
            batch.write("a.png", b"1")
            batch.open("b.png").write(b"half")
            raise KeyboardInterrupt
    assert listing(tmp_path) == []
