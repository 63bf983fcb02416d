"""The local Hugging Face cache, read as files: never the network, never huggingface_hub.

    cache_root()          # $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
    cached_models()       # (CachedModel(repo_id, folder, revision), ...) sorted by repo id
    snapshot_of("ORG/NAME")  # (snapshots/<revision>/, revision), or CheckpointError

A repo ORG/NAME lives in `models--ORG--NAME/`: `refs/main` holds the revision, and
`snapshots/<revision>/` the files (symlinks into `blobs/` in a real cache: followed, and the
target must be a regular file; layout.py checks each file it opens). Qt-free, torch-free.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..files.user_files import UserFileError, check_regular, read_user_file
from ..messages import QT_TRANSLATE_NOOP
from .native import CheckpointError

PREFIX = "models--"
_REVISION = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,95}(/[A-Za-z0-9][A-Za-z0-9_.\-]{0,95})?")
NOT_CACHED = QT_TRANSLATE_NOOP("core", "{repo} is not in the Hugging Face cache ({root}): {reason}; the app "
                               "never downloads (open the model's folder, or copy it into the cache)")


@dataclass(frozen=True)
class CachedModel:
    repo_id: str
    folder: Path      # snapshots/<revision>/
    revision: str


def cache_root() -> Path:
    hub = os.environ.get("HF_HUB_CACHE")
    if hub:
        return Path(hub).expanduser()
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home).expanduser() / "hub"
    return Path("~/.cache/huggingface/hub").expanduser()


def is_repo_id(text: str) -> bool:
    return bool(_REPO_ID.fullmatch(text)) and "--" not in text and ".." not in text


def repo_folder(repo_id: str, root: Path | None = None) -> Path:
    return (root or cache_root()) / (PREFIX + repo_id.replace("/", "--"))


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def _snapshot(repo: Path) -> tuple[Path, str] | str:
    """(snapshot folder, revision), or why there is none (a short reason)."""
    ref = repo / "refs" / "main"
    try:
        text = read_user_file(ref, 1024).decode("ascii", "replace").strip()
    except UserFileError:
        return "no refs/main"
    if not _REVISION.fullmatch(text) or text in (".", ".."):
        return "refs/main does not hold a revision"
    folder = repo / "snapshots" / text
    if not _is_dir(folder):
        return f"snapshot {text[:12]} is missing"
    try:
        check_regular(folder / "config.json")
    except UserFileError:
        return f"snapshot {text[:12]} has no config.json"
    return folder, text


def cached_models(root: Path | None = None) -> tuple[CachedModel, ...]:
    """The cache's model repos with refs/main -> snapshots/<rev>/config.json, by repo id."""
    root = root or cache_root()
    try:
        names = os.listdir(root)
    except OSError:
        return ()
    out = []
    for name in sorted(names):
        if not name.startswith(PREFIX) or not _is_dir(root / name):
            continue
        repo_id = name[len(PREFIX):].replace("--", "/", 1)
        if not is_repo_id(repo_id):
            continue
        found = _snapshot(root / name)
        if isinstance(found, tuple):
            out.append(CachedModel(repo_id, *found))
    return tuple(sorted(out, key=lambda m: m.repo_id.lower()))


def snapshot_of(repo_id: str, root: Path | None = None) -> tuple[Path, str]:
    """The snapshot folder and revision of `repo_id` in the cache; CheckpointError if absent."""
    root = root or cache_root()
    if not is_repo_id(repo_id):
        raise CheckpointError.of(QT_TRANSLATE_NOOP("core", "{value} is neither a folder nor a repo id (ORG/NAME)"),
                                 value=repr(repo_id))
    repo = repo_folder(repo_id, root)
    if not _is_dir(repo):
        raise CheckpointError.of(NOT_CACHED, repo=repo_id, root=str(root), reason="not downloaded")
    found = _snapshot(repo)
    if isinstance(found, str):
        raise CheckpointError.of(NOT_CACHED, repo=repo_id, root=str(root), reason=found)
    return found
