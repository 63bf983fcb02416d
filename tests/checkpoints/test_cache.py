"""core.checkpoints.cache: the local Hugging Face cache read as files (never the network)."""

import os
from pathlib import Path

import pytest

from explorer.core.checkpoints.cache import cache_root, cached_models, snapshot_of
from explorer.core.checkpoints.layout import open_checkpoint
from explorer.core.checkpoints.native import CheckpointError


def test_the_cache_root_follows_hf_hub_cache_then_hf_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "a"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "b"))
    assert cache_root() == tmp_path / "a"
    monkeypatch.delenv("HF_HUB_CACHE")
    assert cache_root() == tmp_path / "b" / "hub"
    monkeypatch.delenv("HF_HOME")
    assert cache_root() == Path("~/.cache/huggingface/hub").expanduser()


def test_a_cached_repo_opens_by_its_id_offline(tiny_checkpoint, hf_cache):
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    snapshot = hf_cache(tiny_checkpoint("llama"), "org/tiny-llama")
    assert (snapshot / "config.json").is_symlink()
    ckpt = open_checkpoint("org/tiny-llama")
    assert (ckpt.name, ckpt.repo_id, ckpt.folder) == ("org/tiny-llama", "org/tiny-llama", snapshot)
    assert ckpt.revision.startswith("0123") and ckpt.model_type == "llama"
    assert ckpt.parameters == open_checkpoint(tiny_checkpoint("llama")).parameters


def test_the_listing_has_the_repos_with_a_main_revision_only(tiny_checkpoint, hf_cache):
    hf_cache(tiny_checkpoint("llama"), "org/tiny-llama")
    hf_cache(tiny_checkpoint("bert"), "tiny-bert")  # a repo id without an organisation
    broken = hf_cache(tiny_checkpoint("bert"), "org/no-ref")
    (broken.parent.parent / "refs" / "main").unlink()
    fifo = hf_cache(tiny_checkpoint("bert"), "org/fifo-config")
    (fifo / "config.json").unlink()
    os.mkfifo(fifo / "config.json")
    assert [m.repo_id for m in cached_models()] == ["org/tiny-llama", "tiny-bert"]


def test_a_repo_not_in_the_cache_is_one_line(hf_cache, tiny_checkpoint):
    hf_cache(tiny_checkpoint("bert"), "org/no-ref")
    for repo, why in (("org/absent", "not downloaded"), ("org/no-ref", "no refs/main")):
        if repo == "org/no-ref":
            (cache_root() / "models--org--no-ref" / "refs" / "main").unlink()
        with pytest.raises(CheckpointError) as err:
            open_checkpoint(repo)
        text = str(err.value)
        assert "\n" not in text and f"{repo} is not in the Hugging Face cache ({cache_root()}): {why}" in text
        assert "never downloads" in text


def test_a_revision_that_escapes_the_snapshots_is_refused(hf_cache, tiny_checkpoint):
    snapshot = hf_cache(tiny_checkpoint("bert"), "org/escape")
    (snapshot.parent.parent / "refs" / "main").write_text("../../../etc")
    with pytest.raises(CheckpointError, match="refs/main does not hold a revision"):
        snapshot_of("org/escape")
