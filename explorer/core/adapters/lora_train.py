"""LoRA fine-tuning of a natively run decoder on a few sentences: an own checkpoint or SmolLM2.

    settings = check_settings(TuneSettings(targets=("q_proj", "v_proj"), rank=8, alpha=16), "llama")
    tuner = LoraTuner(model, "one sentence\\nanother one", settings, base_name="/path/to/checkpoint")
    while not tuner.done:
        loss = tuner.step(should_stop)       # one AdamW step on A and B; the loss before it
    tuned = tuner.result()                   # TunedLora: A, B per module, losses; lora_write saves it
    tuned = fine_tune(model, text, settings, base_name, progress, should_stop)   # the same loop

`model` is a core.learned LoadedModel whose weights are the app's own decoder: a checkpoint's
core.checkpoints.decoders.Decoder (GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 2) or the bundled
SmolLM2's core.learned.llama.LlamaWeights. Encoders, models run through transformers and models
that already carry an adapter are refused with one line (`tuning_problem`): an encoder has no
next-token loss, and the other two have no weights of the app's own to add a LoRA to.

The objective: next-token cross-entropy over the sentences (one per line), each tokenized by the
model's own tokenizer exactly as the window reads a text (core.learned.analysis.tokenize), every
predicted token weighted alike; one step sees every sentence (a full batch: a few sentences).

The LoRA: each target module (peft's names: q_proj, v_proj, ... or GPT-2's c_attn, c_proj, c_fc,
matched by peft's rule for a list, the module path or its ending) gets A (r, in), drawn as peft
draws it (kaiming-uniform, a = √5: U(−1/√in, 1/√in)) from a generator seeded with `seed`, and
B (out, r) = 0, so the first step's loss is the base's own. Each step forms W + (α / r)·B·A in a *copy* of the
weights' per-layer dicts (the tensors of the model itself are never written, nor is its dict:
the cached model stays bit-identical, `torch.equal`), runs the model's own forward and lets
autograd carry the loss to A and B, the only tensors the optimiser (AdamW, weight decay 0) sees.
GPT-2's c_attn is the fused q, k, v of a Conv1D (peft: fan_in_fan_out): its update (3d, d) splits
into the q, k and v rows. SmolLM2's q and k rows are in llama.cpp's order (core.adapters.bundled):
the update, made in Hugging Face's order (what peft saves), is permuted the same way.

Speed (2 busy cores, one torch thread as the window's learned runner uses): ~6 s a step on a
135 M-parameter Llama-shaped checkpoint over three sentences (148 predicted tokens), 3-6 s on
SmolLM2 over three short ones; two threads on the shared cores were 4x slower.

Qt-free; torch is imported by the functions that run (importing this module imports none).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from dataclasses import dataclass

from ..cancel import check
from ..config import SEED_MAX, ConfigError, _short
from ..messages import QT_TRANSLATE_NOOP

MAX_RANK = 256
MAX_ALPHA = 65536.0       # as core.training.lora_config: far above any useful α
MAX_STEPS = 1000
MAX_SENTENCES = 64
MAX_TOKENS = 4096         # every sentence's tokens together: a step's forward passes
DEFAULTS = {"gpt2": ("c_attn",)}   # peft's own default targets; every other family: q_proj, v_proj
LLAMA_DEFAULT = ("q_proj", "v_proj")
BUNDLED_REPOS = {"smollm2-135m": "HuggingFaceTB/SmolLM2-135M-Instruct"}  # what peft's model would be

# module path in the family's *ForCausalLM (after the layer's prefix) -> the block keys it makes
LLAMA_MODULES = (("self_attn.q_proj", ("q",)), ("self_attn.k_proj", ("k",)), ("self_attn.v_proj", ("v",)),
                 ("self_attn.o_proj", ("o",)), ("mlp.gate_proj", ("gate",)), ("mlp.up_proj", ("up",)),
                 ("mlp.down_proj", ("down",)))
GPT2_MODULES = (("attn.c_attn", ("q", "k", "v")), ("attn.c_proj", ("o",)), ("mlp.c_fc", ("up",)),
                ("mlp.c_proj", ("down",)))

NOT_A_DECODER = QT_TRANSLATE_NOOP("core", "{name} is an encoder: LoRA fine-tuning here trains on the next-token "
                                  "loss, which only a decoder has")
NOT_NATIVE = QT_TRANSLATE_NOOP("core", "{name} is not run by the app's own forward: LoRA fine-tuning needs it")
ADAPTED = QT_TRANSLATE_NOOP("core", "{name} already carries an adapter: fine-tune its base model instead")
NO_TARGET = QT_TRANSLATE_NOOP("core", "LoRA needs at least one target module; choose among {choices}")
UNKNOWN_TARGET = QT_TRANSLATE_NOOP("core", "{family} has no module {value} to put a LoRA on; choose among "
                                   "{choices}")
TWICE = QT_TRANSLATE_NOOP("core", "a LoRA target is named twice: {value}")
BAD_RANK = QT_TRANSLATE_NOOP("core", "LoRA rank must be a whole number from 1 to {limit}, got {value}")
BAD_ALPHA = QT_TRANSLATE_NOOP("core", "LoRA alpha must be a number above 0 and at most {limit}, got {value}")
BAD_STEPS = QT_TRANSLATE_NOOP("core", "steps must be a whole number from 1 to {limit}, got {value}")
BAD_LR = QT_TRANSLATE_NOOP("core", "learning rate must be a number in (0, 1], got {value}")
BAD_SEED = QT_TRANSLATE_NOOP("core", "seed must be a whole number from 0 to {limit}, got {value}")
NO_SENTENCES = QT_TRANSLATE_NOOP("core", "type a few sentences to fine-tune on, one per line")
MANY_SENTENCES = QT_TRANSLATE_NOOP("core", "{n} sentences: fine-tuning here takes at most {limit}")
ONE_TOKEN = QT_TRANSLATE_NOOP("core", "every sentence is a single token: the next-token loss needs two or more")
MANY_TOKENS = QT_TRANSLATE_NOOP("core", "the sentences are {n} tokens together: fine-tuning here takes at most "
                                "{limit}")


class LoraTuneError(ConfigError):
    """Settings or sentences a LoRA fine-tune cannot use, or a model it cannot tune: one line."""


@dataclass(frozen=True)
class TuneSettings:
    targets: tuple = ()       # peft's target_modules (names); (): the family's default (DEFAULTS)
    rank: int = 8
    alpha: float = 16.0
    steps: int = 20
    lr: float = 5e-3          # measured: SmolLM2 on two sentences, loss 5.2 -> 1.5 in 6 steps
    seed: int = 0

    @property
    def scale(self) -> float:
        """α / r: the factor of B·A in W + (α / r)·B·A."""
        return float(self.alpha) / self.rank

    def replace(self, **changes) -> "TuneSettings":
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Slot:
    """One module a LoRA can go on."""

    module: str                # its path in the family's *ForCausalLM: "model.layers.0.self_attn.q_proj"
    layer: int
    keys: tuple[str, ...]      # the per-layer block keys its update's rows make, in order (c_attn: q, k, v)
    out: int                   # the module's out_features (c_attn: 3·d) ...
    inp: int                   # ... and in_features
    permuted: int = 0          # SmolLM2's q / k: the heads whose rows llama.cpp permuted (0: none)


@dataclass(frozen=True)
class TunedLora:
    """A finished fine-tune: what lora_write saves and the window shows."""

    settings: TuneSettings
    family: str
    modules: tuple[str, ...]          # every adapted module's path, layer by layer
    lora_a: tuple                     # per module (r, in) float32 CPU tensors
    lora_b: tuple                     # per module (out, r)
    losses: tuple[float, ...]         # per step: the loss before that step's update
    final_loss: float                 # after the last step
    tokens: int                       # predicted tokens per step
    sentences: int
    base_name: str | None             # base_model_name_or_path: the checkpoint's folder or repo id
    seconds: float

    @property
    def fan_in_fan_out(self) -> bool:
        """GPT-2's modules are Conv1D (weights stored (in, out)): peft's fan_in_fan_out."""
        return self.family == "gpt2"

    @property
    def trainable_parameters(self) -> int:
        return sum(a.numel() + b.numel() for a, b in zip(self.lora_a, self.lora_b))


# ----- which models, which modules ----------------------------------------------------------------
def family_modules(family: str) -> tuple:
    return GPT2_MODULES if family == "gpt2" else LLAMA_MODULES


def target_names(family: str) -> tuple[str, ...]:
    """The module names a LoRA can target in `family` (the last part of each path)."""
    return tuple(path.rsplit(".", 1)[-1] for path, _ in family_modules(family))


def default_targets(family: str) -> tuple[str, ...]:
    return DEFAULTS.get(family, LLAMA_DEFAULT)


def layer_prefix(family: str, layer: int) -> str:
    return f"transformer.h.{layer}." if family == "gpt2" else f"model.layers.{layer}."


def _matches(module: str, name: str) -> bool:
    """peft's rule for a target_modules list: the whole path, or its ending after a dot."""
    return module == name or module.endswith("." + name)


def tuning_problem(model) -> LoraTuneError | None:
    """Why `model` (a LoadedModel) cannot be fine-tuned here, or None."""
    from .adapted import AdaptedModel
    name = model.spec.name
    if isinstance(model, AdaptedModel) and model.adapter is not None:
        return LoraTuneError.of(ADAPTED, name=name)
    if model.spec.kind != "decoder":
        return LoraTuneError.of(NOT_A_DECODER, name=name)
    if _weights_kind(model.weights) is None:
        return LoraTuneError.of(NOT_NATIVE, name=name)
    return None


def _weights_kind(weights) -> str | None:
    """"decoder" (a checkpoint's Decoder), "bundled" (SmolLM2's LlamaWeights) or None."""
    from ..checkpoints.decoders import Decoder
    from ..learned.llama import LlamaWeights
    if type(weights) is Decoder:
        return "decoder"
    if type(weights) is LlamaWeights:
        return "bundled"
    return None


def model_family(model) -> str:
    weights = model.weights
    return weights.family if _weights_kind(weights) == "decoder" else "llama"


def _blocks(weights) -> list:
    return weights.blocks if _weights_kind(weights) == "decoder" else weights.layers


def lora_slots(model) -> tuple[Slot, ...]:
    """Every module of `model` a LoRA can go on, layer by layer (the shapes are the weights')."""
    family, bundled = model_family(model), _weights_kind(model.weights) == "bundled"
    weights = model.weights
    slots = []
    for i, block in enumerate(_blocks(weights)):
        for path, keys in family_modules(family):
            if any(k not in block for k in keys):
                continue
            out = sum(block[k].shape[0] for k in keys)
            heads = {"q": weights.heads, "k": weights.kv_heads}.get(keys[0], 0) if bundled else 0
            slots.append(Slot(layer_prefix(family, i) + path, i, keys, out, block[keys[0]].shape[1], heads))
    return tuple(slots)


# ----- the settings --------------------------------------------------------------------------------
def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def check_targets(targets, family: str) -> tuple[str, ...]:
    """The target names, checked against the family's modules (() gives the default)."""
    choices = target_names(family)
    shown = ", ".join(dict.fromkeys(choices))
    if targets is None or (isinstance(targets, (tuple, list)) and not targets):
        return default_targets(family)
    if isinstance(targets, str) or not isinstance(targets, (tuple, list)) or not any(targets):
        raise LoraTuneError.of(NO_TARGET, choices=shown)  # ("",): nothing chosen (the window's boxes)
    paths = [layer_prefix(family, 0) + path for path, _ in family_modules(family)]
    for name in targets:
        if not isinstance(name, str) or not name or not any(_matches(p, name) for p in paths):
            raise LoraTuneError.of(UNKNOWN_TARGET, family=family, value=_short(name), choices=shown)
    if len(set(targets)) != len(targets):
        raise LoraTuneError.of(TWICE, value=_short(",".join(targets)))
    return tuple(targets)


def parse_targets(text: str, family: str) -> tuple[str, ...]:
    """'q_proj, v_proj' (commas or spaces) -> ('q_proj', 'v_proj'), checked; '' is no target."""
    names = [part for part in str(text).replace(",", " ").split() if part]
    if not names:
        raise LoraTuneError.of(NO_TARGET, choices=", ".join(dict.fromkeys(target_names(family))))
    return check_targets(tuple(names), family)


def check_settings(settings: TuneSettings, family: str) -> TuneSettings:
    """`settings` with its targets filled in, or LoraTuneError (one line) for the first bad value."""
    if not _whole(settings.rank) or not 1 <= settings.rank <= MAX_RANK:
        raise LoraTuneError.of(BAD_RANK, limit=MAX_RANK, value=_short(settings.rank))
    if not _number(settings.alpha) or not 0 < settings.alpha <= MAX_ALPHA:
        raise LoraTuneError.of(BAD_ALPHA, limit=f"{MAX_ALPHA:g}", value=_short(settings.alpha))
    if not _whole(settings.steps) or not 1 <= settings.steps <= MAX_STEPS:
        raise LoraTuneError.of(BAD_STEPS, limit=MAX_STEPS, value=_short(settings.steps))
    if not _number(settings.lr) or not 0 < settings.lr <= 1:
        raise LoraTuneError.of(BAD_LR, value=_short(settings.lr))
    if not _whole(settings.seed) or not 0 <= settings.seed <= SEED_MAX:
        raise LoraTuneError.of(BAD_SEED, limit=SEED_MAX, value=_short(settings.seed))
    return settings.replace(targets=check_targets(settings.targets, family), alpha=float(settings.alpha),
                            rank=int(settings.rank), steps=int(settings.steps), lr=float(settings.lr))


def split_sentences(text: str) -> list[str]:
    """The non-empty lines of `text`, stripped; LoraTuneError for none or too many."""
    lines = [line.strip() for line in str(text).splitlines()]
    found = [line for line in lines if line]
    if not found:
        raise LoraTuneError.of(NO_SENTENCES)
    if len(found) > MAX_SENTENCES:
        raise LoraTuneError.of(MANY_SENTENCES, n=len(found), limit=MAX_SENTENCES)
    return found


def sentence_ids(model, text: str) -> list[list[int]]:
    """Each sentence's ids as the model reads it (a sentence of one token predicts nothing: left out)."""
    from ..learned.analysis import tokenize
    sequences = [list(tokenize(model, s).ids) for s in split_sentences(text)]
    total = sum(len(ids) for ids in sequences)
    if total > MAX_TOKENS:
        raise LoraTuneError.of(MANY_TOKENS, n=total, limit=MAX_TOKENS)
    kept = [ids for ids in sequences if len(ids) >= 2]
    if not kept:
        raise LoraTuneError.of(ONE_TOKEN)
    return kept


# ----- the fine-tune -------------------------------------------------------------------------------
class LoraTuner:
    """One fine-tune, step by step (the module docstring). Not thread-safe: one thread steps it."""

    def __init__(self, model, text: str, settings: TuneSettings, base_name: str | None = None):
        import torch
        problem = tuning_problem(model)
        if problem is not None:
            raise problem
        self.family = model_family(model)
        self.settings = s = check_settings(settings, self.family)
        self.sequences = sentence_ids(model, text)
        self.slots = tuple(slot for slot in lora_slots(model) if any(_matches(slot.module, t) for t in s.targets))
        limit = min(min(slot.out, slot.inp) for slot in self.slots)
        if s.rank > limit:
            raise LoraTuneError.of(BAD_RANK, limit=limit, value=s.rank)
        self.model, self.base_name = model, base_name
        self._shadow = _shadow(model.weights)
        device = model.weights.device
        generator = torch.Generator().manual_seed(s.seed)
        self.lora_a = [_draw_a(s.rank, slot.inp, generator).to(device).requires_grad_() for slot in self.slots]
        self.lora_b = [torch.zeros(slot.out, s.rank, device=device, requires_grad=True) for slot in self.slots]
        self._optimizer = torch.optim.AdamW([*self.lora_a, *self.lora_b], lr=s.lr, weight_decay=0.0)
        self.tokens = sum(len(ids) - 1 for ids in self.sequences)
        self.losses: list[float] = []
        self.seconds = 0.0

    @property
    def done(self) -> bool:
        return len(self.losses) >= self.settings.steps

    def step(self, should_stop=None) -> float:
        """One AdamW step on A and B over every sentence; the loss before it. Each sentence's
        share of the loss is back-propagated as soon as it is computed (the gradients add up to
        the whole loss's), so `should_stop` is polled between sentences and once more before the
        update: Cancelled then, with A and B as they were."""
        start = time.perf_counter()
        self._optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for ids in self.sequences:
            check(should_stop, "LoRA fine-tuning")
            self._install()  # the graph of W + (α / r)·B·A is freed by each backward: made again
            part = self._sentence_loss(ids) / self.tokens
            part.backward()
            total += float(part.detach())
        check(should_stop, "LoRA fine-tuning")
        self._optimizer.step()
        self.losses.append(total)
        self.seconds += time.perf_counter() - start
        return total

    def loss_now(self) -> float:
        """The mean next-token loss of the adapted model as A and B are now (no step)."""
        import torch
        with torch.no_grad():
            self._install()
            return sum(float(self._sentence_loss(ids)) for ids in self.sequences) / self.tokens

    def _sentence_loss(self, ids: list[int]):
        """The summed next-token cross-entropy of one sentence (n − 1 predictions)."""
        import torch
        import torch.nn.functional as F
        logits = self._shadow.forward(ids)["logits"]  # (n, vocab)
        target = torch.as_tensor(ids[1:], dtype=torch.long, device=logits.device)
        return F.cross_entropy(logits[:-1], target, reduction="sum")

    def _install(self) -> None:
        """W + (α / r)·B·A into the shadow's per-layer dicts, from the model's own W."""
        from .bundled import permute
        blocks, base = _blocks(self._shadow), _blocks(self.model.weights)
        scale = self.settings.scale
        for slot, a, b in zip(self.slots, self.lora_a, self.lora_b):
            delta = (b @ a) * scale  # (out, r) @ (r, in) -> (out, in), in Hugging Face's row order
            row = 0
            for key in slot.keys:
                w = base[slot.layer][key]  # (rows, in)
                part = delta[row:row + w.shape[0]]
                if slot.permuted:
                    part = permute(part, slot.permuted)
                blocks[slot.layer][key] = w + part
                row += w.shape[0]

    def result(self) -> TunedLora:
        """The fine-tune as it is now (A, B copied to the CPU), its loss after the last step."""
        final = self.loss_now()
        return TunedLora(
            self.settings, self.family, tuple(slot.module for slot in self.slots),
            tuple(a.detach().float().cpu().clone() for a in self.lora_a),
            tuple(b.detach().float().cpu().clone() for b in self.lora_b),
            tuple(self.losses), final, self.tokens, len(self.sequences), self.base_name, self.seconds)


def _draw_a(rank: int, inp: int, generator):
    """A (r, in) as peft draws it (kaiming_uniform_, a = √5): U(−1/√in, 1/√in)."""
    import torch
    bound = 1.0 / math.sqrt(inp)
    return torch.empty(rank, inp).uniform_(-bound, bound, generator=generator)


def _shadow(weights):
    """A copy of the weights whose per-layer dicts are new (their tensors the model's own)."""
    if _weights_kind(weights) == "decoder":
        return dataclasses.replace(weights, blocks=[dict(block) for block in weights.blocks])
    return dataclasses.replace(weights, layers=[dict(block) for block in weights.layers])


def fine_tune(model, text: str, settings: TuneSettings, base_name: str | None = None, progress=None,
              should_stop=None) -> TunedLora:
    """Every step of a LoraTuner; progress(step, steps, loss) after each; Cancelled on should_stop."""
    tuner = LoraTuner(model, text, settings, base_name)
    while not tuner.done:
        loss = tuner.step(should_stop)
        if progress is not None:
            progress(len(tuner.losses), tuner.settings.steps, loss)
    return tuner.result()


def base_name_of(model, where: str | None = None) -> str | None:
    """base_model_name_or_path for an adapter of `model`: `where` (a checkpoint's folder or repo
    id), or the bundled model's Hugging Face repo."""
    return where if where is not None else BUNDLED_REPOS.get(model.spec.name)
