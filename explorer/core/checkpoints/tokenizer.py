"""A checkpoint's own tokenizer: tokenizer.json through `tokenizers`, or a BERT vocab.txt.

    tok = checkpoint_tokenizer(ckpt)
    tok("the cat")          # Tokens(ids, pieces, labels): ids exactly Tokenizer.from_file(...).encode(text).ids
    tok.encode_ids(ids); tok.decode(ids); tok.piece(i); tok.special_ids(); tok.pad_id; tok.vocab_size

The ids fed to the model are what tokenizer.json encodes, its post-processor's special tokens
included; truncation and padding are switched off (the length is checked against the model's
limit by the caller). A folder of the BERT family without tokenizer.json gets the WordPiece that
transformers builds from vocab.txt ([CLS] … [SEP], lower-cased unless tokenizer_config.json says
do_lower_case false). Labels: byte-level pieces (Ġ) decoded, SentencePiece (▁) and WordPiece (##)
pieces kept as the model sees them, Hangul recomposed (core.learned.labels).
"""

from __future__ import annotations

import json

from ..files.user_files import UserFileError, read_user_file
from ..learned.labels import readable_byte_piece, readable_hangul
from ..learned.tokenization import Tokens
from .layout import TOKENIZER_CONFIG, Checkpoint, read_json
from .native import CheckpointError

MAX_TOKENIZER_BYTES = 64 * 1024 * 1024
MAX_VOCAB_BYTES = 16 * 1024 * 1024


class CheckpointTokenizer:
    def __init__(self, tokenizer, byte_level: bool, pad_id: int, name: str = ""):
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tok = tokenizer
        self.byte_level = byte_level
        self.pad_id = pad_id
        self.name = name
        self._label = readable_byte_piece if byte_level else readable_hangul

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def labels(self, pieces) -> tuple[str, ...]:
        return tuple(self._label(p) for p in pieces)

    def __call__(self, text: str) -> Tokens:
        enc = self._tok.encode(text)
        return Tokens(tuple(enc.ids), tuple(enc.tokens), self.labels(enc.tokens))

    def encode_ids(self, ids) -> Tokens:
        ids = tuple(int(i) for i in ids)
        pieces = tuple(self.piece(i) for i in ids)
        return Tokens(ids, pieces, self.labels(pieces))

    def piece(self, token_id: int) -> str:
        piece = self._tok.id_to_token(int(token_id))
        return f"<{int(token_id)}>" if piece is None else piece

    def decode(self, ids) -> str:
        return self._tok.decode([int(i) for i in ids])

    def special_ids(self) -> tuple[int, int]:
        """What wraps an encoder's sentence ([CLS] … [SEP], <s> … </s>)."""
        around = self._tok.encode("").ids
        if len(around) == 2:
            return around[0], around[1]
        for first, last in (("[CLS]", "[SEP]"), ("<s>", "</s>"), ("<cls>", "<sep>")):
            a, b = self._tok.token_to_id(first), self._tok.token_to_id(last)
            if a is not None and b is not None:
                return a, b
        raise CheckpointError(f"{self.name}: its tokenizer has no tokens that wrap a sentence")


def checkpoint_tokenizer(ckpt: Checkpoint) -> CheckpointTokenizer:
    """The tokenizer of a checked checkpoint; CheckpointError (one line) when it does not parse."""
    if ckpt.tokenizer_file is not None:
        return _from_json(ckpt)
    if ckpt.vocab_file is not None:
        return _from_vocab(ckpt)
    raise CheckpointError(f"{ckpt.folder} has no tokenizer.json")


def _from_json(ckpt: Checkpoint) -> CheckpointTokenizer:
    from tokenizers import Tokenizer
    path = ckpt.tokenizer_file
    try:
        raw = read_user_file(path, MAX_TOKENIZER_BYTES)
    except UserFileError as exc:
        raise CheckpointError(str(exc)) from None
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text)
        if not isinstance(doc, dict) or not isinstance(doc.get("model"), dict):
            raise ValueError("no model in it")
        tok = Tokenizer.from_str(text)
    except Exception as exc:  # noqa: BLE001 - tokenizers raises its own Exception type
        reason = str(exc).splitlines()[0][:200] if str(exc) else exc.__class__.__name__
        raise CheckpointError(f"{ckpt.folder}: tokenizer.json does not parse ({reason})") from None
    return CheckpointTokenizer(tok, _is_byte_level(doc), _pad_id(ckpt, tok, doc), ckpt.name)


def _is_byte_level(doc: dict) -> bool:
    def has(part) -> bool:
        if not isinstance(part, dict):
            return False
        if part.get("type") == "ByteLevel":
            return True
        return any(has(p) for p in part.get("pretokenizers", part.get("decoders", part.get("processors", []))) or [])
    return has(doc.get("pre_tokenizer")) or has(doc.get("decoder"))


def _pad_id(ckpt: Checkpoint, tok, doc: dict | None) -> int:
    pad = ckpt.config.get("pad_token_id")
    if type(pad) is int and pad >= 0:
        return pad
    padding = (doc or {}).get("padding")
    if isinstance(padding, dict) and type(padding.get("pad_id")) is int:
        return padding["pad_id"]
    for token in ("[PAD]", "<pad>", "<|pad|>", "<|endoftext|>", "</s>", "<eos>"):
        found = tok.token_to_id(token)
        if found is not None:
            return found
    eos = ckpt.config.get("eos_token_id")
    if type(eos) is int and eos >= 0:
        return eos
    return 0  # padding keys are masked: any id will do


def _from_vocab(ckpt: Checkpoint) -> CheckpointTokenizer:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    try:
        lines = read_user_file(ckpt.vocab_file, MAX_VOCAB_BYTES).decode("utf-8").splitlines()
    except UserFileError as exc:
        raise CheckpointError(str(exc)) from None
    except UnicodeDecodeError:
        raise CheckpointError(f"{ckpt.folder}: vocab.txt is not UTF-8") from None
    vocab: dict[str, int] = {}
    for line in lines:
        piece = line.rstrip("\r\n")
        if piece and piece not in vocab:
            vocab[piece] = len(vocab)
    missing = [t for t in ("[CLS]", "[SEP]", "[UNK]") if t not in vocab]
    if missing:
        raise CheckpointError(f"{ckpt.folder}: vocab.txt has no {missing[0]} (not a BERT WordPiece vocabulary)")
    lower = True
    config_path = ckpt.folder / TOKENIZER_CONFIG
    if config_path.exists():
        settings = read_json(config_path, 4 * 1024 * 1024, TOKENIZER_CONFIG)
        if isinstance(settings, dict) and isinstance(settings.get("do_lower_case"), bool):
            lower = settings["do_lower_case"]
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                strip_accents=None, lowercase=lower)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.add_special_tokens([t for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]") if t in vocab])
    return CheckpointTokenizer(tok, False, _pad_id(ckpt, tok, None), ckpt.name)
