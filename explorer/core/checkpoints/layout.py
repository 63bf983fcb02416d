"""What a checkpoint folder holds, checked before a byte of weights is loaded.

    ckpt = open_checkpoint("/path/to/folder")      # a save_pretrained folder
    ckpt = open_checkpoint("ORG/NAME")              # a repo in the local Hugging Face cache (cache.py)
    ckpt.config["model_type"], ckpt.dtype, ckpt.parameters, ckpt.nbytes, ckpt.tensors["...weight"]

Every file is opened through core.files.user_files (regular files only, size caps, never blocks).
The safetensors headers (8-byte little-endian length, then JSON) are parsed here with limits:
header size, dtype names, shapes, offsets inside the file, no overlaps; a file that passes is safe
to hand to safetensors. Pickle checkpoints (pytorch_model.bin, *.pt, *.pth, *.ckpt) are refused
without being opened: unpickling runs code. Every refusal is one CheckpointError line; nothing is
loaded half. Qt-free, torch-free.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path

from ..files.user_files import UserFileError, check_regular, open_user_file, read_user_file
from ..messages import QT_TRANSLATE_NOOP
from .native import CheckpointError

CONFIG = "config.json"
SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
TOKENIZER = "tokenizer.json"
VOCAB = "vocab.txt"
TOKENIZER_CONFIG = "tokenizer_config.json"

MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_INDEX_BYTES = 32 * 1024 * 1024
MAX_HEADER_BYTES = 100 * 1024 * 1024   # safetensors' own limit
MAX_TENSORS = 1_000_000
MAX_RANK = 8
MAX_SHARDS = 10_000

ITEMSIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
            "U8": 1, "BOOL": 1, "U16": 2, "U32": 4, "U64": 8}
FLOATS = ("F32", "F16", "BF16", "F64")
DTYPE_NAMES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "F64": "float64"}
PICKLES = ("pytorch_model.bin", "pytorch_model.bin.index.json")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
ENCODERS = {"bert", "roberta", "xlm-roberta", "distilbert", "electra", "camembert", "deberta",
            "deberta-v2", "albert", "mpnet", "xlm", "modernbert"}
WORDPIECE_TYPES = {"bert", "distilbert", "electra"}

CONVERT_HINT = ("convert it once with transformers: "
                "AutoModel.from_pretrained(dir).save_pretrained(dir, safe_serialization=True)")
NOT_A_FOLDER = QT_TRANSLATE_NOOP("core", "{path} is not a model folder ({reason})")
NO_CONFIG = QT_TRANSLATE_NOOP("core", "{path} has no config.json: not a Hugging Face model folder")
BAD_CONFIG = QT_TRANSLATE_NOOP("core", "{path}: config.json is not valid ({reason})")
PICKLE_ONLY = QT_TRANSLATE_NOOP("core", "{path} holds only pickle weights ({file}), which are never loaded "
                                "(unpickling runs code); {hint}")
NO_WEIGHTS = QT_TRANSLATE_NOOP("core", "{path} has no weights (model.safetensors or model.safetensors.index.json)")
BAD_WEIGHTS = QT_TRANSLATE_NOOP("core", "the weights {path} cannot be read: {reason}")
NO_TOKENIZER = QT_TRANSLATE_NOOP("core", "{path} has no tokenizer.json{extra}")


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of a safetensors file, as its header says (checked)."""

    file: Path
    dtype: str              # safetensors' name: F32, F16, BF16, I64, ...
    shape: tuple[int, ...]
    begin: int              # byte offsets inside the data (after the header)
    end: int

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True, eq=False)
class Checkpoint:
    """A checked checkpoint folder (see the module docstring). Nothing is loaded yet."""

    folder: Path
    name: str                               # the repo id (cache) or the folder's name
    config: dict = field(repr=False)
    weight_files: tuple[Path, ...]
    tokenizer_file: Path | None             # tokenizer.json
    vocab_file: Path | None                 # vocab.txt (BERT WordPiece) when there is no tokenizer.json
    model_type: str
    dtype: str                              # F32, F16 or BF16: the floating tensors' (most bytes)
    parameters: int                         # elements of the floating tensors
    nbytes: int                             # the weight files' bytes on disk
    tensors: dict = field(repr=False)       # name -> TensorInfo
    repo_id: str | None = None              # ORG/NAME when it came from the cache
    revision: str | None = None

    @property
    def dtype_name(self) -> str:
        return DTYPE_NAMES.get(self.dtype, self.dtype)

    @property
    def sizes(self) -> dict:
        return config_sizes(self.config)

    @property
    def kind(self) -> str:
        return config_kind(self.config)

    @property
    def where(self) -> str:
        """What names it on the command line and in the source list: the repo id or the folder."""
        return self.repo_id or str(self.folder)


def _error(template: str, **params) -> CheckpointError:
    return CheckpointError.of(template, **params)


def open_checkpoint(where: str | os.PathLike) -> Checkpoint:
    """A folder path, or a repo id ORG/NAME found in the local Hugging Face cache (never the
    network). CheckpointError (one line) for anything that cannot be opened."""
    text = os.fspath(where)
    if not text:
        raise _error(NOT_A_FOLDER, path=repr(text), reason="empty path")
    path = Path(text).expanduser()
    from .cache import is_repo_id, snapshot_of
    if os.path.lexists(path) or not is_repo_id(text):
        return open_folder(path)
    folder, revision = snapshot_of(text)  # CheckpointError when not in the cache
    return open_folder(folder, name=text, repo_id=text, revision=revision)


def open_folder(folder: Path, name: str | None = None, repo_id: str | None = None,
                revision: str | None = None) -> Checkpoint:
    folder = Path(folder)
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        raise _error(NOT_A_FOLDER, path=str(folder), reason="it does not exist") from None
    except OSError as exc:
        raise _error(NOT_A_FOLDER, path=str(folder), reason=exc.strerror or "cannot read it") from None
    if not stat.S_ISDIR(info.st_mode):
        raise _error(NOT_A_FOLDER, path=str(folder), reason="not a folder")
    config = read_config(folder)
    weight_files, tensors = _weights(folder)
    model_type = config["model_type"]
    tokenizer_file, vocab_file = _tokenizer_files(folder, model_type)
    dtype, parameters = _dtype_and_count(folder, tensors)
    nbytes = sum(os.stat(f).st_size for f in weight_files)
    return Checkpoint(folder, name or folder.name, config, weight_files, tokenizer_file, vocab_file,
                      model_type, dtype, parameters, nbytes, tensors, repo_id, revision)


def read_json(path: Path, limit: int, what: str):
    """The JSON in `path` (safe reader, size cap); CheckpointError naming `what` and why."""
    try:
        data = read_user_file(path, limit)
    except UserFileError as exc:
        raise CheckpointError(str(exc)) from None
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise CheckpointError(f"{path.parent}: {what} is not valid JSON ({reason})") from None


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice")
        out[key] = value
    return out


def read_config(folder: Path) -> dict:
    path = folder / CONFIG
    if not path.exists() and not path.is_symlink():
        if any(p.exists() for p in _pickles(folder)):
            raise _pickle_error(folder)
        raise _error(NO_CONFIG, path=str(folder))
    config = read_json(path, MAX_CONFIG_BYTES, CONFIG)
    if not isinstance(config, dict):
        raise _error(BAD_CONFIG, path=str(folder), reason="not a JSON object")
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not re.fullmatch(r"[A-Za-z0-9_\-.]{1,64}", model_type):
        raise _error(BAD_CONFIG, path=str(folder), reason="no model_type")
    return config


def _pickles(folder: Path) -> list[Path]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if n in PICKLES or n.endswith(PICKLE_SUFFIXES)]


def _pickle_error(folder: Path) -> CheckpointError:
    found = _pickles(folder)
    return _error(PICKLE_ONLY, path=str(folder), file=found[0].name if found else "pytorch_model.bin",
                  hint=CONVERT_HINT)


def _weights(folder: Path) -> tuple[tuple[Path, ...], dict]:
    single, index = folder / SINGLE, folder / INDEX
    if single.exists() or single.is_symlink():
        return (single,), read_header(single)
    if index.exists() or index.is_symlink():
        return _sharded(folder, index)
    if _pickles(folder):
        raise _pickle_error(folder)
    raise _error(NO_WEIGHTS, path=str(folder))


def _sharded(folder: Path, index: Path) -> tuple[tuple[Path, ...], dict]:
    doc = read_json(index, MAX_INDEX_BYTES, INDEX)
    weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise _error(BAD_WEIGHTS, path=str(folder), reason=f"{INDEX} has no weight_map")
    shards: dict[str, list[str]] = {}
    for tensor, file in weight_map.items():
        if not isinstance(file, str) or not re.fullmatch(r"[\w.\-]{1,200}\.safetensors", file) or file.startswith("."):
            raise _error(BAD_WEIGHTS, path=str(folder), reason=f"{INDEX} names a shard {file!r} that is not a "
                                                                 "plain .safetensors file name in the folder")
        shards.setdefault(file, []).append(tensor)
    if len(shards) > MAX_SHARDS:
        raise _error(BAD_WEIGHTS, path=str(folder), reason=f"{INDEX} names {len(shards)} shards")
    tensors: dict[str, TensorInfo] = {}
    files = []
    for file in sorted(shards):
        path = folder / file
        if not path.exists() and not path.is_symlink():
            raise _error(BAD_WEIGHTS, path=str(folder), reason=f"the shard {file} listed in {INDEX} is missing")
        header = read_header(path)
        missing = [t for t in shards[file] if t not in header]
        if missing:
            raise _error(BAD_WEIGHTS, path=str(folder),
                         reason=f"{INDEX} puts {missing[0]} in {file}, which does not hold it")
        for t in shards[file]:
            tensors[t] = header[t]
        files.append(path)
    return tuple(files), tensors


def read_header(path: Path) -> dict[str, TensorInfo]:
    """The checked header of a safetensors file: name -> TensorInfo (metadata left out).
    CheckpointError when truncated, too large, or when a dtype, shape or offset does not fit."""
    where = f"{path.parent}: {path.name}"

    def bad(reason: str) -> CheckpointError:
        return CheckpointError(f"{where} is not a valid safetensors file ({reason})")

    try:
        with open_user_file(path) as (handle, opened):  # the one safe reader: regular files only
            size = opened.st_size
            if size < 8:
                raise bad(f"{size} bytes: truncated")
            (length,) = struct.unpack("<Q", handle.read(8))
            if length > MAX_HEADER_BYTES:
                raise bad(f"its header claims {length} bytes, more than {MAX_HEADER_BYTES}")
            if 8 + length > size:
                raise bad(f"its header claims {length} bytes, the file has {size}: truncated")
            raw = handle.read(length)
    except UserFileError as exc:
        raise CheckpointError(str(exc)) from None
    if len(raw) != length:
        raise bad("truncated while reading")
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise bad(f"its header is not JSON: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not isinstance(metadata, dict):
        raise bad("__metadata__ is not an object")
    if len(header) > MAX_TENSORS:
        raise bad(f"{len(header)} tensors")
    data_size = size - 8 - length
    out: dict[str, TensorInfo] = {}
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) - {"dtype", "shape", "data_offsets"} \
                or len(entry) != 3:
            raise bad(f"tensor {name!r} is not dtype, shape and data_offsets")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in ITEMSIZE:
            raise bad(f"tensor {name!r} has dtype {dtype!r}" + (
                "" if not isinstance(dtype, str) else " (readable: " + ", ".join(ITEMSIZE) + ")"))
        if not isinstance(shape, list) or len(shape) > MAX_RANK or not all(
                type(d) is int and 0 <= d < 2 ** 40 for d in shape):
            raise bad(f"tensor {name!r} has shape {str(shape)[:60]}")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(
                type(o) is int and o >= 0 for o in offsets):
            raise bad(f"tensor {name!r} has data_offsets {str(offsets)[:60]}")
        begin, end = offsets
        if end < begin or end > data_size:
            raise bad(f"tensor {name!r} lies at bytes {begin}..{end}, outside the file's {data_size} bytes of data")
        if end - begin != math.prod(shape) * ITEMSIZE[dtype]:
            raise bad(f"tensor {name!r}: shape {tuple(shape)} of {dtype} needs "
                      f"{math.prod(shape) * ITEMSIZE[dtype]} bytes, its offsets give {end - begin}")
        out[name] = TensorInfo(path, dtype, tuple(shape), begin, end)
    spans = sorted((t.begin, t.end, n) for n, t in out.items() if t.end > t.begin)
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise bad(f"tensors {n0!r} and {n1!r} overlap")
    return out


def _dtype_and_count(folder: Path, tensors: dict) -> tuple[str, int]:
    by_dtype: dict[str, int] = {}
    parameters = 0
    for t in tensors.values():
        if t.dtype in ("F64", "F32", "F16", "BF16"):
            by_dtype[t.dtype] = by_dtype.get(t.dtype, 0) + (t.end - t.begin)
            parameters += t.numel
    if not by_dtype:
        raise _error(BAD_WEIGHTS, path=str(folder), reason="no floating-point tensors in the weights")
    return max(by_dtype, key=by_dtype.get), parameters


def _tokenizer_files(folder: Path, model_type: str) -> tuple[Path | None, Path | None]:
    tok, vocab = folder / TOKENIZER, folder / VOCAB
    if tok.exists() or tok.is_symlink():
        _check(tok)
        return tok, None
    if (vocab.exists() or vocab.is_symlink()) and model_type in WORDPIECE_TYPES:
        _check(vocab)
        return None, vocab
    extra = (" or vocab.txt" if model_type in WORDPIECE_TYPES else
             " (save the tokenizer with transformers' save_pretrained to write one)")
    raise _error(NO_TOKENIZER, path=str(folder), extra=extra)


def _check(path: Path) -> None:
    try:
        check_regular(path)
    except UserFileError as exc:
        raise CheckpointError(str(exc)) from None


# ----- the config's sizes, whatever the family calls them ------------------------------------------
_NAMES = {"layers": ("num_hidden_layers", "n_layer", "n_layers", "num_layers"),
          "heads": ("num_attention_heads", "n_head", "n_heads", "num_heads"),
          "d_model": ("hidden_size", "n_embd", "dim", "d_model"),
          "max_positions": ("max_position_embeddings", "n_positions", "n_ctx", "max_seq_len"),
          "ffn": ("intermediate_size", "n_inner", "hidden_dim", "ffn_dim")}


def config_sizes(config: dict) -> dict:
    """layers, heads, kv_heads, d_model, d_head, ffn, max_positions from a config.json (0 when absent)."""
    cfg = config.get("text_config") if isinstance(config.get("text_config"), dict) else config

    def first(key):
        for name in _NAMES[key]:
            value = cfg.get(name)
            if type(value) is int and value > 0:
                return value
        return 0

    sizes = {key: first(key) for key in _NAMES}
    kv = cfg.get("num_key_value_heads")
    sizes["kv_heads"] = kv if type(kv) is int and kv > 0 else sizes["heads"]
    head_dim = cfg.get("head_dim")
    sizes["d_head"] = head_dim if type(head_dim) is int and head_dim > 0 else (
        sizes["d_model"] // sizes["heads"] if sizes["heads"] else 0)
    if not sizes["ffn"] and sizes["d_model"]:
        sizes["ffn"] = 4 * sizes["d_model"]
    if config.get("model_type") in ("roberta", "xlm-roberta", "camembert") and sizes["max_positions"] > 2:
        sizes["max_positions"] -= 2  # positions start after the padding index
    return sizes


def config_kind(config: dict) -> str:
    """"encoder" for the BERT-like families (unless the config says is_decoder), else "decoder"."""
    if config.get("model_type") in ENCODERS and not config.get("is_decoder"):
        return "encoder"
    return "decoder"


def size_text(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"
