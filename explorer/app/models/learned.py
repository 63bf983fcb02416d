"""What the window shows of a pretrained model: one analysis of a sentence, and one layer of it.

An `Analysis` is what a model source's run gives (app.sources: `source.analyse`, on the background
runner; it loads the model the first time: seconds): the model's tokens for the sentence as typed,
the sentence repeated, or random tokens repeated, every layer's attention and every head's role. `LayerPicture` is one layer of an `Analysis` in the shape the
heads grid draws (weights (heads, n, n), tokens, mask, per-row stats), so the grid that draws the
random model draws a pretrained layer as it is, and says what a cell is (`describe_cell`).
Qt-free; torch is imported only inside the job (through core.learned).
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass

import numpy as np

from ...core.config import ConfigError
from ...core.learned import HeadRole, ModelSpec, find_repeat, score_heads
from ...core.stats import row_entropy
from ..i18n import QT_TRANSLATE_NOOP, translate

SEQUENCES = ("text", "repeat", "random")   # the sentence; the sentence twice; random tokens twice
RANDOM_LENGTH = 20                         # tokens in each copy of "random tokens repeated"
ROLE_SHORT = {"previous-token": QT_TRANSLATE_NOOP("app.learned", "prev"), "next-token": QT_TRANSLATE_NOOP("app.learned", "next"),
              "first-token": QT_TRANSLATE_NOOP("app.learned", "first"), "induction": QT_TRANSLATE_NOOP("app.learned", "ind"),
              "broad": QT_TRANSLATE_NOOP("app.learned", "broad"), "mixed": QT_TRANSLATE_NOOP("app.learned", "mix")}  # titles, tiles
_ROLE_MARKS = (QT_TRANSLATE_NOOP("app.learned", "previous-token"), QT_TRANSLATE_NOOP("app.learned", "next-token"),
               QT_TRANSLATE_NOOP("app.learned", "first-token"), QT_TRANSLATE_NOOP("app.learned", "induction"),
               QT_TRANSLATE_NOOP("app.learned", "broad"), QT_TRANSLATE_NOOP("app.learned", "mixed"))  # role names (lupdate)


def role_name(role: str) -> str:
    """A role's name in the UI language ('induction' -> '유도')."""
    return translate("app.learned", role) if role in ROLE_SHORT else role


def role_short(role: str) -> str:
    """A role's short label in the UI language ('ind')."""
    return translate("app.learned", ROLE_SHORT[role])


@dataclass(frozen=True)
class Analysis:
    """One forward pass of a pretrained model over one token sequence, every layer."""

    spec: ModelSpec
    device: str
    sequence: str                   # one of SEQUENCES
    text: str
    ids: tuple[int, ...]
    labels: tuple[str, ...]         # readable pieces (axis labels)
    attentions: np.ndarray          # (layers, heads, n, n) float32, rows are queries
    roles: tuple[HeadRole, ...]     # layer-major: roles[layer * heads + head]
    repeat: tuple[int, int] | None  # (start, L) of the repeated span, when there is one
    next_top: tuple | None          # decoder: ((label, p, id), ...) likeliest next tokens
    loss: float | None              # decoder: mean next-token loss, nats
    load_s: float                   # time to get the model (≈ 0 once loaded)
    run_s: float                    # tokenize + forward + roles
    padding: int = 0                # padding tokens at the end (masked as keys; in ids and labels)
    pieces: tuple[str, ...] = ()    # the tokenizer's own pieces (labels are their readable form)

    @property
    def n_real(self) -> int:
        """Tokens before the padding."""
        return len(self.ids) - self.padding

    @property
    def n_tokens(self) -> int:
        return len(self.ids)

    def role(self, layer: int, head: int) -> HeadRole:
        return self.roles[layer * self.spec.heads + head]

    def role_grid(self) -> tuple[np.ndarray, np.ndarray]:
        """(role names (layers, heads) object array, scores (layers, heads) float)."""
        shape = (self.spec.layers, self.spec.heads)
        names = np.array([r.role for r in self.roles], dtype=object).reshape(shape)
        scores = np.array([r.score for r in self.roles], dtype=np.float64).reshape(shape)
        return names, scores


@dataclass(frozen=True)
class LayerStats:
    entropy: np.ndarray   # (h, n) nats per query row
    argmax: np.ndarray    # (h, n) most-attended key per query


@dataclass(frozen=True)
class LayerPicture:
    """One layer of an Analysis, drawable by the heads grid like an AttentionResult."""

    analysis: Analysis
    layer: int
    weights: np.ndarray     # (h, n, n)
    mask: np.ndarray        # (n, n) bool: True = may attend (causal for a decoder)
    empty_rows: np.ndarray  # (n,) bool, all False: every query sees at least itself
    stats: LayerStats

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.analysis.labels

    @property
    def n_heads(self) -> int:
        return self.weights.shape[0]

    def head_title(self, head: int) -> str:
        """'head 2 · prev 1.00': the head and its role (the heads grid's panel title)."""
        role = self.analysis.role(self.layer, head)
        return translate("app.learned", "head {head}  ·  {role} {score}").format(
            head=head, role=role_short(role.role), score=f"{role.score:.2f}")

    def describe_cell(self, head: int, query: int, key: int) -> str:
        tokens = self.tokens
        where = translate("app.learned", "L{layer} head {head}: {query} → {key}").format(
            layer=self.layer, head=head, query=tokens[query], key=tokens[key])
        if key >= self.analysis.n_real:
            return translate("app.learned", "{where}: masked (a padding token)").format(where=where)
        if not self.mask[query, key]:
            return translate("app.learned", "{where}: masked (a decoder cannot look ahead)").format(where=where)
        role = self.analysis.role(self.layer, head)
        return translate("app.learned", "{where}, weight {weight}  ·  {role} {score}").format(
            where=where, weight=f"{float(self.weights[head, query, key]):.3f}", role=role_name(role.role),
            score=f"{role.score:.2f}")


def analysis_of(model, spec: ModelSpec, tokens, text: str, sequence: str, padding: int = 0,
                load_s: float = 0.0) -> Analysis:
    """One forward pass of a loaded model (core.learned LoadedModel: bundled or own checkpoint) over
    `tokens`, its heads' roles scored on the real tokens only (padding appended and masked as keys):
    the Analysis every natively run source gives."""
    from ...core.learned.analysis import run
    start = time.perf_counter()
    result = run(model, tokens, padding=padding)
    n = len(tokens.ids)
    repeat = find_repeat(tokens.ids)
    roles = score_heads(result.attentions[:, :, :n, :n], causal=model.is_decoder, repeat=repeat)
    return Analysis(spec, str(model.device), sequence, text, result.tokens.ids, result.tokens.labels,
                    result.attentions, tuple(roles), repeat, result.next_top, result.loss, load_s,
                    time.perf_counter() - start, padding, tuple(result.tokens.pieces))


def layer_picture(analysis: Analysis, layer: int) -> LayerPicture:
    weights = analysis.attentions[layer]  # (h, n, n)
    n = weights.shape[-1]
    mask = np.tril(np.ones((n, n), bool)) if analysis.spec.kind == "decoder" else np.ones((n, n), bool)
    mask[:, analysis.n_real:] = False  # padding keys: masked for every query
    stats = LayerStats(entropy=row_entropy(weights), argmax=weights.argmax(axis=-1))
    return LayerPicture(analysis, layer, weights, mask, np.zeros(n, bool), stats)


def sequence_tokens(model, text: str, sequence: str, seed: int = 0, random_length: int = RANDOM_LENGTH):
    """The Tokens the model reads: the text, the text's tokens twice, or random tokens twice."""
    from ...core.learned.analysis import check_length, tokenize
    from ...core.learned.sequences import random_repeated
    if sequence not in SEQUENCES:
        raise ConfigError(f"sequence must be one of {', '.join(SEQUENCES)}, not {sequence!r}")
    if sequence == "random":
        return random_repeated(model, random_length, seed)
    tokens = tokenize(model, text)
    if sequence == "text":
        return tokens
    ids = list(tokens.ids)
    if not model.is_decoder:  # [CLS] a b [SEP] -> [CLS] a b a b [SEP]
        ids = [ids[0], *ids[1:-1], *ids[1:-1], ids[-1]]
    else:
        ids = ids * 2
    check_length(model, len(ids))
    return model.tokenizer.encode_ids(ids)


# ----- the model trained in this session (the Train tab) as one more source -------------------
TRAINED = "trained"
_trained: tuple | None = None  # (ModelSpec, CPU copy, TrainConfig, {device: copy on it}) registered last
_copies_lock = threading.Lock()


def register_trained(model, config, steps: int) -> ModelSpec:
    """Make a copy of `model` (a TinyTransformer, read only while no training chunk runs) the
    "trained" source. Main thread; the copy is never trained, so jobs may read it on any thread.
    The copy is kept on the CPU; `trained_model(device)` moves a further copy to the device the
    window's switch chose (the trainer's own device may be another)."""
    global _trained
    clone = copy.deepcopy(model).to("cpu").eval()
    spec = ModelSpec(TRAINED, "decoder", config.n_layers, config.n_heads, config.n_heads,
                     config.d_model, config.seq_len, "", "", "", (), "", 0.0,
                     f"{config.task}, {steps} steps, vocabulary {config.vocab}")
    _trained = (spec, clone, config, {"cpu": clone})
    return spec


def forget_trained() -> None:
    """No trained source (tests: the registry is per process)."""
    global _trained
    _trained = None


def trained_spec() -> ModelSpec | None:
    """The registered trained model's spec, or None before a model was trained or loaded."""
    return None if _trained is None else _trained[0]


def trained_model(device: str = "cpu"):
    """(spec, model copy on `device`, TrainConfig) of the trained source; ConfigError before there
    is one, DeviceUnavailableError for a CUDA device that is not there (as load_model for the
    pretrained models: the job's error becomes the window's message). Any thread."""
    from ...core.backends import resolve_torch_device
    registered = _trained  # one read: a newer registration does not change this job's model
    if registered is None:
        raise ConfigError.of(QT_TRANSLATE_NOOP("core", "no trained model yet: train or load one in the Train tab"))
    spec, clone, config, copies = registered
    where = str(resolve_torch_device(device))  # "cpu", "cuda:0"
    with _copies_lock:
        if where not in copies:  # nn.Module.to moves in place: move a copy, keep the CPU one
            copies[where] = copy.deepcopy(clone).to(where).eval()
        return spec, copies[where], config


def analyse_trained(device: str, text: str, sequence: str, seed: int) -> Analysis:
    from ...core.training.source import run, trained_ids
    start = time.perf_counter()
    spec, model, config = trained_model(device)
    loaded = time.perf_counter()
    ids = trained_ids(text, sequence, seed, config.vocab, config.seq_len)
    out = run(model, ids)
    repeat = find_repeat(tuple(ids))
    roles = score_heads(out["attentions"], causal=True, repeat=repeat)
    return Analysis(spec, str(next(model.parameters()).device), sequence, text, tuple(ids),
                    tuple(str(i) for i in ids), out["attentions"], tuple(roles), repeat, out["next_top"],
                    out["loss"], loaded - start, time.perf_counter() - loaded)


def prune_trained(device: str, text: str, sequence: str, seed: int, heads: frozenset) -> dict:
    from ...core.training.source import run, trained_ids
    spec, model, config = trained_model(device)
    ids = trained_ids(text, sequence, seed, config.vocab, config.seq_len)
    mask = np.ones((spec.layers, spec.heads), np.float32)  # (layers, heads)
    for layer, head in heads:
        mask[layer, head] = 0.0
    base, pruned = run(model, ids), run(model, ids, mask)
    return {"heads_off": len(heads), "loss": base["loss"], "loss_pruned": pruned["loss"],
            "next_top": base["next_top"], "next_top_pruned": pruned["next_top"]}


def effect_text(effect: dict) -> str:
    """One line: '2 heads off (L17H4, L18H6): loss 2.41 → 3.10 nats (+0.69); next: …'."""
    heads = ", ".join(f"L{layer}H{head}" for layer, head in effect["heads"][:6])
    more = translate("app.learned", " +{n} more").format(n=len(effect['heads']) - 6) if len(effect["heads"]) > 6 else ""
    off = (translate("app.learned", "{n} head off ({heads}): ") if effect["heads_off"] == 1
           else translate("app.learned", "{n} heads off ({heads}): "))
    text = off.format(n=effect["heads_off"], heads=heads + more)
    if "loss" in effect and effect["loss"] is not None:
        change = effect["loss_pruned"] - effect["loss"]
        (a, pa, _), (b, pb, _) = effect["next_top"][0], effect["next_top_pruned"][0]
        return text + translate("app.learned", "loss {loss} → {pruned} nats ({change}); next token {a} {pa} → {b} {pb}").format(
            loss=f"{effect['loss']:.2f}", pruned=f"{effect['loss_pruned']:.2f}", change=f"{change:+.2f}",
            a=a, pa=f"{pa:.2f}", b=b, pb=f"{pb:.2f}")
    if "sentence_cosine" in effect:
        return text + translate("app.learned", "sentence vector's cosine to the unpruned one {cos}").format(
            cos=f"{effect['sentence_cosine']:.4f}")
    return text
