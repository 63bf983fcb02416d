"""Fixtures that BUILD tiny random Hugging Face checkpoints at test time (transformers), for the
tests of core.checkpoints and of the sources and commands on top of it.

    folder = tiny_checkpoint("llama")                      # a save_pretrained folder (cached per session)
    folder = tiny_checkpoint("bert", hidden_size=48, sharded=True)
    repo = hf_cache(folder, "org/tiny-llama")             # an HF-cache layout in tmp, HF_HUB_CACHE set
    folder, marker = pickle_only_checkpoint               # pytorch_model.bin that would create `marker`
    attentions = hf_attentions(folder, ids)               # transformers' eager output_attentions (L, H, n, n)

Heads are peaked, not uniform (initializer_range 0.3), so a wrong forward cannot pass a
comparison. The tokenizers are trained with `tokenizers` on a few sentences (English and Korean)
and saved with PreTrainedTokenizerFast.save_pretrained: WordPiece with [CLS] … [SEP] for
BERT-like families, byte-level BPE with <s> … </s> for RoBERTa-like ones, byte-level BPE
(no specials added) for decoders. Every test here gets an empty HF cache and HF_HUB_OFFLINE=1.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path

import pytest

SENTENCES = [
    "the cat sat on the mat and the dog sat on the log",
    "attention heads look at earlier tokens in the sentence",
    "a small model can still show induction heads when tokens repeat",
    "나는 학교에 버스로 갔다",
    "고양이가 매트 위에 앉았다",
    "The quick brown fox jumps over the lazy dog.",
]
VOCAB = 180
WORDPIECE = {"bert", "distilbert", "electra"}
ROBERTA = {"roberta", "xlm-roberta", "camembert"}
ENCODERS = WORDPIECE | ROBERTA

# sizes per family (the config's own names), small enough to build in well under a second
SIZES = {
    "bert": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64),
    "roberta": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                    max_position_embeddings=66),
    "xlm-roberta": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                        max_position_embeddings=66),
    "electra": dict(hidden_size=32, embedding_size=16, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=64, max_position_embeddings=64),
    "distilbert": dict(dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=64),
    "gpt2": dict(n_embd=32, n_layer=2, n_head=4, n_positions=64),
    "llama": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=64),
    "mistral": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=64, max_position_embeddings=64, sliding_window=8),
    "qwen2": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=64, max_position_embeddings=64),
    "qwen3": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  head_dim=16, intermediate_size=64, max_position_embeddings=64),
    "gemma2": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                   head_dim=16, intermediate_size=64, max_position_embeddings=64, sliding_window=8,
                   query_pre_attn_scalar=16),
    "gpt_neox": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                     max_position_embeddings=64),
    "opt": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, ffn_dim=64,
                max_position_embeddings=64, word_embed_proj_dim=32),
}


def train_tokenizer(family: str):
    """(tokenizers.Tokenizer, special tokens for PreTrainedTokenizerFast) for `family`."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    if family in WORDPIECE:
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        tok.train_from_iterator(SENTENCES, trainers.WordPieceTrainer(vocab_size=VOCAB, special_tokens=specials))
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")),
                                                      ("[SEP]", tok.token_to_id("[SEP]"))])
        return tok, dict(unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
                         mask_token="[MASK]")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    if family in ROBERTA:
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(
            vocab_size=VOCAB + 80, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
        return tok, dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
                         mask_token="<mask>", cls_token="<s>", sep_token="</s>")
    specials = ["<|endoftext|>", "<pad>"]
    tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(
        vocab_size=VOCAB + 80, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok, dict(bos_token="<|endoftext|>", eos_token="<|endoftext|>", pad_token="<pad>")


def build_checkpoint(folder: Path, family: str, sharded: bool = False, dtype: str = "float32",
                     tokenizer: bool = True, **sizes) -> Path:
    """A tiny random `family` checkpoint saved with save_pretrained(safe_serialization=True)."""
    import torch
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, PreTrainedTokenizerFast
    torch.manual_seed(0)
    tok, special = train_tokenizer(family)
    vocab = tok.get_vocab_size()
    params = {**SIZES.get(family, {}), **sizes}
    pad = tok.token_to_id(special["pad_token"])
    ids = {"pad_token_id": pad}
    if "bos_token" in special:
        ids.update(bos_token_id=tok.token_to_id(special["bos_token"]), eos_token_id=tok.token_to_id(special["eos_token"]))
    config = AutoConfig.for_model(family, vocab_size=vocab, initializer_range=0.3, **ids, **params)
    auto = AutoModel if family in ENCODERS else AutoModelForCausalLM
    model = auto.from_config(config, attn_implementation="eager").eval()
    if dtype != "float32":
        model = model.to(getattr(torch, dtype))
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True, **({"max_shard_size": "20KB"} if sharded else {}))
    if tokenizer:
        PreTrainedTokenizerFast(tokenizer_object=tok, **special).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    """tiny_checkpoint(family, sharded=False, dtype="float32", **sizes) -> Path, built once per session."""
    built: dict = {}

    def make(family: str, sharded: bool = False, dtype: str = "float32", **sizes) -> Path:
        key = (family, sharded, dtype, tuple(sorted(sizes.items())))
        if key not in built:
            name = f"{family}-{'sharded-' if sharded else ''}{dtype}-{len(built)}"
            built[key] = build_checkpoint(tmp_path_factory.mktemp("ckpt") / name, family, sharded, dtype, **sizes)
        return built[key]
    return make


@pytest.fixture
def copy_checkpoint(tmp_path):
    """copy_checkpoint(folder) -> a fresh copy in tmp_path (to break one file of it)."""
    def copy(folder: Path, name: str = "copy") -> Path:
        return Path(shutil.copytree(folder, tmp_path / name))
    return copy


@pytest.fixture(autouse=True)
def _empty_hf_cache(tmp_path_factory, monkeypatch):
    """No test here reads the user's cache or the network: an empty cache, offline."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.mktemp("hf-cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("HF_HOME", raising=False)


@pytest.fixture
def hf_cache(tmp_path, monkeypatch):
    """hf_cache(folder, "org/name") -> the snapshot folder of a real-looking cache in tmp_path
    (refs/main, snapshots/<hash>/ with symlinks into blobs/); HF_HUB_CACHE points at it."""
    root = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(root))

    def add(folder: Path, repo_id: str, revision: str = "0123456789abcdef0123456789abcdef01234567") -> Path:
        repo = root / ("models--" + repo_id.replace("/", "--"))
        snapshot = repo / "snapshots" / revision
        (repo / "blobs").mkdir(parents=True, exist_ok=True)
        snapshot.mkdir(parents=True, exist_ok=True)
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(revision)
        for i, file in enumerate(sorted(Path(folder).iterdir())):
            blob = repo / "blobs" / f"blob{i:04d}{file.name.encode().hex()[:16]}"
            shutil.copyfile(file, blob)
            os.symlink(os.path.relpath(blob, snapshot), snapshot / file.name)
        return snapshot
    return add


class _LeavesAFile:
    """Unpickling this creates a file: proof that nobody unpickled it."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture
def pickle_only_checkpoint(tmp_path):
    """(folder, marker): config.json and a pytorch_model.bin whose pickle would create `marker`."""
    folder, marker = tmp_path / "pickled", tmp_path / "unpickled.txt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 32,
                                                    "num_hidden_layers": 2, "num_attention_heads": 4}))
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(_LeavesAFile(str(marker))))
    return folder, marker


@pytest.fixture(scope="session")
def hf_attentions():
    """hf_attentions(folder, ids) -> transformers' eager output_attentions as numpy (layers, heads, n, n)."""
    def attentions(folder: Path, ids: list[int]):
        import torch
        from transformers import AutoModel
        model = AutoModel.from_pretrained(folder, local_files_only=True, use_safetensors=True,
                                          attn_implementation="eager").eval()
        with torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_attentions=True)
        return torch.stack([a[0] for a in out.attentions]).numpy()
    return attentions
