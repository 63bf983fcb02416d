"""A user's own Hugging Face checkpoint (a folder, or a repo of the local cache) as a model source.

    source = source_for_folder("/path/to/folder")     # or CheckpointSource(open_checkpoint("ORG/NAME"))
    for source in cached_sources(): register_source(source)   # the caller registers (the window, the CLI)
    source.analyse("cpu", "the cat sat")               # loads through core.checkpoints.load on first use

Native families (core.checkpoints.families) get every view: generation with the real KV cache
(decoders) and pruning. Any other architecture goes through transformers (when installed): its
attention maps only, so `capabilities` says generation=False and pruning=False, and a view that
needs them says so instead of failing. Qt-free; torch is imported by the runs (and by the family
table, when a source is made).
"""

from __future__ import annotations

from pathlib import Path

from ...core.cancel import Cancelled
from ...core.checkpoints.layout import Checkpoint, open_checkpoint, size_text
from ...core.config import ConfigError
from ..i18n import translate
from .learned import RANDOM_LENGTH, analysis_of, sequence_tokens
from .model_source import Capabilities, ModelSource

ROPE_KEYS = ("rope_theta", "rope_scaling", "rope_parameters", "rotary_dim", "rotary_pct", "rotary_emb_base")


class CheckpointSource(ModelSource):
    """One checkpoint (see the module docstring); nothing is loaded until its first run."""

    def __init__(self, ckpt: Checkpoint):
        from ...core.checkpoints.load import NATIVE, route
        self._ckpt = ckpt
        self._loaded_spec = None
        self.name = ckpt.where
        try:
            self.way, self._problem = route(ckpt), None
        except ConfigError as exc:
            self.way, self._problem = None, exc
        native = self.way == NATIVE
        decoder = ckpt.kind == "decoder"
        rope = decoder and any(key in ckpt.config for key in ROPE_KEYS)
        self.capabilities = Capabilities(pruning=native, generation=native and decoder,
                                         positions="rope" if rope else "learned",
                                         adapters="checkpoint" if native else "through_transformers")

    @property
    def checkpoint(self) -> Checkpoint:
        return self._ckpt

    @property
    def native(self) -> bool:
        from ...core.checkpoints.load import NATIVE
        return self.way == NATIVE

    def spec(self):
        if self._loaded_spec is not None:
            return self._loaded_spec
        from ...core.checkpoints.load import spec_for
        return spec_for(self._ckpt, None, _config_pad(self._ckpt), self.way)

    @property
    def kind(self) -> str:
        return self._ckpt.kind

    def short_name(self) -> str:
        return self._ckpt.repo_id.rsplit("/", 1)[-1] if self._ckpt.repo_id else self._ckpt.folder.name

    def label(self) -> str:
        return f"{self.short_name()} ({self._ckpt.model_type})"

    def title(self) -> str:
        return self.short_name()

    def description(self) -> str:
        sizes = self._ckpt.sizes
        way = (translate("learned.source", "native") if self.native else
               translate("learned.source", "through transformers") if self.way else
               translate("learned.source", "cannot be opened"))
        return " · ".join((self._ckpt.model_type, f"{sizes['layers']}×{sizes['heads']}×{sizes['d_model']}",
                           self._ckpt.dtype_name, size_text(self._ckpt.nbytes), way))

    def problem(self):
        return self._problem

    def load(self, device: str = "cpu", should_stop=None, progress=None):
        """The loaded model (core.checkpoints.load: cached per folder and device)."""
        from ...core.checkpoints.load import load_checkpoint
        if self._problem is not None:
            raise self._problem
        model = load_checkpoint(self._ckpt, device, should_stop, progress)
        self._loaded_spec = model.spec
        if self.native and getattr(model.weights, "native", True) is False:
            from ...core.checkpoints.load import TRANSFORMERS  # no native builder after all
            self.way = TRANSFORMERS
            self.capabilities = Capabilities(pruning=False, generation=False,
                                             positions=self.capabilities.positions,
                                             adapters="through_transformers")
        return model

    def tokens_for(self, model, text, sequence, seed, random_length):
        if sequence == "random" and model.tokenizer.vocab_size < 20000:
            return _random_repeated(model, random_length or RANDOM_LENGTH, seed)
        return sequence_tokens(model, text, sequence, seed, random_length or RANDOM_LENGTH)

    def analyse(self, device, text, sequence="text", seed=0, padding=0, should_stop=None,
                random_length=None):
        """As PretrainedSource.analyse, the model loaded through load_checkpoint."""
        ready = self.loaded_tokens(device, text, sequence, seed, random_length, should_stop)
        if ready is None:
            return None
        model, tokens, load_s = ready
        return analysis_of(model, model.spec, tokens, text, sequence, padding, load_s)

    def prune(self, device, text, sequence, seed, heads, should_stop=None):
        if not self.capabilities.pruning:
            raise ConfigError(f"{self.name}: switching heads off needs the native forward "
                              "(this model goes through transformers)")
        from ...core.learned.pruning import mask_without, prune_effect
        ready = self.loaded_tokens(device, text, sequence, seed, None, should_stop)
        if ready is None:
            return None
        model, tokens, _ = ready
        effect = prune_effect(model, tokens, mask_without(model, sorted(heads)))
        return {**effect, "model": self.name, "heads": tuple(sorted(heads))}

    def generate(self, device, text, k, should_stop=None, fit=False):
        """A native decoder stepped with its real KV cache (core's run_generation through the
        NativeModel's new_cache and step)."""
        if not self.capabilities.generation:
            reason = ("it is an encoder" if self.kind == "encoder" else
                      "generation and the KV cache need the native forward (this model goes through transformers)")
            raise ConfigError(f"{self.name} does not generate: {reason}")
        from .learned_generation import generate_with
        try:
            model = self.load(device, should_stop)
        except Cancelled:
            return None
        return generate_with(model, self.name, text, k, should_stop, fit)


def _config_pad(ckpt: Checkpoint) -> int:
    pad = ckpt.config.get("pad_token_id")
    return pad if type(pad) is int and pad >= 0 else 0


def _random_repeated(model, length: int, seed: int):
    """core.learned.sequences.random_repeated for a vocabulary smaller than its id range: ids from
    the upper nine tenths of the vocabulary (special tokens sit at its start)."""
    import numpy as np
    from ...core.config import SEED_MAX
    from ...core.learned.analysis import check_length
    from ...core.learned.sequences import MAX_SEGMENT
    if not 2 <= length <= MAX_SEGMENT:
        raise ConfigError(f"random tokens: length 2..{MAX_SEGMENT}, not {length}")
    if not 0 <= seed <= SEED_MAX:
        raise ConfigError(f"the seed must be 0..{SEED_MAX}, not {seed}")
    vocab = model.tokenizer.vocab_size
    ids = np.random.default_rng(seed).integers(max(1, vocab // 10), vocab, size=length).tolist() * 2
    if not model.is_decoder:
        first, last = model.tokenizer.special_ids()
        ids = [first, *ids, last]
    check_length(model, len(ids))
    return model.tokenizer.encode_ids(ids)


def source_for_folder(path) -> CheckpointSource:
    """The source of a folder (or a cached repo id); CheckpointError (one line) when it cannot be opened."""
    return CheckpointSource(open_checkpoint(path if isinstance(path, str) else str(Path(path))))


def cached_sources() -> tuple[CheckpointSource, ...]:
    """One source per model of the local Hugging Face cache that opens (the others are left out)."""
    from ...core.checkpoints.cache import cached_models
    from ...core.checkpoints.layout import open_folder
    out = []
    for entry in cached_models():
        try:
            out.append(CheckpointSource(open_folder(entry.folder, entry.repo_id, entry.repo_id, entry.revision)))
        except ConfigError:
            continue
    return tuple(out)
