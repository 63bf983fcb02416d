"""core.checkpoints.tokenizer: the ids fed to the model are exactly what tokenizer.json encodes."""

import json

import pytest

from explorer.core.checkpoints.layout import open_checkpoint
from explorer.core.checkpoints.native import CheckpointError
from explorer.core.checkpoints.tokenizer import checkpoint_tokenizer

TEXTS = ("the cat sat on the mat", "나는 학교에 갔다", "The quick brown fox.")


@pytest.mark.parametrize("family", ["bert", "roberta", "llama"])
def test_ids_are_tokenizer_json_ids_with_its_specials(tiny_checkpoint, family):
    from tokenizers import Tokenizer
    folder = tiny_checkpoint(family)
    reference = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok = checkpoint_tokenizer(open_checkpoint(folder))
    for text in TEXTS:
        tokens = tok(text)
        assert list(tokens.ids) == reference.encode(text).ids
        assert tok.encode_ids(tokens.ids) == tokens
    first = tok("the cat").ids
    if family == "bert":
        assert tok.special_ids() == (first[0], first[-1]) == (reference.token_to_id("[CLS]"), reference.token_to_id("[SEP]"))
    if family == "roberta":
        assert tok.special_ids() == (0, 2) == (first[0], first[-1])


def test_labels_are_readable(tiny_checkpoint):
    llama = checkpoint_tokenizer(open_checkpoint(tiny_checkpoint("llama")))
    tokens = llama("the cat sat")
    assert any(p.startswith("Ġ") for p in tokens.pieces) and not any("Ġ" in label for label in tokens.labels)
    assert "".join(tokens.labels).replace("▁", " ") == "the cat sat"
    korean = llama("나는")  # bytes that are not whole characters are shown as hex, as the bundled models do
    assert all(label == "나는" or label.startswith("<") or label in "나는" for label in korean.labels)
    assert llama.decode(korean.ids) == "나는" and llama.byte_level
    bert = checkpoint_tokenizer(open_checkpoint(tiny_checkpoint("bert")))
    labels = bert("나는 학교에").labels
    assert not any(0x1100 <= ord(ch) <= 0x11FF for label in labels for ch in label)  # jamo shown as letters


def test_the_pad_id_comes_from_the_config(tiny_checkpoint):
    for family in ("bert", "llama"):
        folder = tiny_checkpoint(family)
        config = json.loads((folder / "config.json").read_text())
        assert checkpoint_tokenizer(open_checkpoint(folder)).pad_id == config["pad_token_id"]


def test_a_bert_folder_with_vocab_txt_only_tokenizes_as_transformers(tiny_checkpoint, copy_checkpoint):
    from transformers import BertTokenizer
    folder = copy_checkpoint(tiny_checkpoint("bert"))
    vocab = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    (folder / "vocab.txt").write_text("".join(p + "\n" for p, _ in sorted(vocab.items(), key=lambda kv: kv[1])))
    (folder / "tokenizer.json").unlink()
    ckpt = open_checkpoint(folder)
    assert ckpt.tokenizer_file is None and ckpt.vocab_file == folder / "vocab.txt"
    tok = checkpoint_tokenizer(ckpt)
    reference = BertTokenizer(str(folder / "vocab.txt"))
    for text in TEXTS:
        assert list(tok(text).ids) == reference(text)["input_ids"]


def test_a_tokenizer_json_that_does_not_parse_is_one_line_and_nothing_is_loaded(tiny_checkpoint, copy_checkpoint):
    from explorer.core.checkpoints import load
    folder = copy_checkpoint(tiny_checkpoint("bert"))
    for broken in ('{"model": ', '{"model": {"type": "Nonsense"}}', "[]"):
        (folder / "tokenizer.json").write_text(broken)
        with pytest.raises(CheckpointError) as err:
            load.load_checkpoint(folder)
        assert "tokenizer.json does not parse" in str(err.value) and "\n" not in str(err.value)
    assert not any(key[0] == str(folder.resolve()) for key in load._CACHE)


def test_a_folder_without_any_tokenizer_is_refused(tiny_checkpoint, copy_checkpoint):
    folder = copy_checkpoint(tiny_checkpoint("llama"))
    (folder / "tokenizer.json").unlink()
    with pytest.raises(CheckpointError, match="has no tokenizer.json"):
        open_checkpoint(folder)
