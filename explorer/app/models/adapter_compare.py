"""An adapted source against its base, for the window: heads, pictures, next tokens, the KV trace.

    c = compare_heads(source, "cpu", adapted_analysis, seed)   # a job: the base's analysis too
    c.difference(layer)          # (heads, v + n, v + n): layer of adapter_source.difference, adapted − base
    c.peak                       # (layers, heads): max |difference| of each head
    c.top_heads(5)               # ((layer, head, peak), ...) the heads the adapter changed most
    c.picture("base" | "adapted" | "difference", layer)         # what the heads grid draws
    n = compare_next_tokens(source, "cpu", run)                  # a job: per Generate step, base vs adapted
    kv_trace(run, layer)         # learned_kv.layer_trace with the cache's virtual positions labelled

The difference picture is a HeadsPicture (app.pictures) that declares its own colour scale
(`scale`: a diverging map, symmetric around 0 over the layer's heads): the heads grid draws it
with that scale instead of the weights' 0..1. Its axes are the adapted analysis's (prefix and
prompt tuning's ⟨p1⟩… first; the base counts 0 there).

The next tokens: the adapted run's fed ids (the prompt's, then those it generated) go through one
full causal pass of the base and of the adapted model; row t of each is the next-token
distribution after step t (a causal pass's row t sees tokens 0..t only, as the cached step did).
Qt-free; torch inside the jobs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..i18n import QT_TRANSLATE_NOOP, translate
from ...core.config import ConfigError
from .adapter_source import OTHER_TEXT, layer_picture as adapted_picture, virtual_labels
from .learned import LayerStats, layer_picture as plain_picture

MODES = ("adapted", "base", "difference")
DIFFERENCE_COLORMAP = "CET-D1"   # diverging: white is no change, red more attention, blue less
TOP_HEADS = 5
TOP_TOKENS = 5
CONTEXT = "app.adapter_compare"
BAR_LABEL = QT_TRANSLATE_NOOP("app.adapter_compare", "Δ weight (adapted − base)")


@dataclass(frozen=True)
class PictureScale:
    """How a picture's values map to colour when they are not weights in 0..1."""

    levels: tuple[float, float]   # (-m, m): symmetric around 0
    colormap: str                 # a pyqtgraph map name
    signed: bool = True           # values print with their sign
    value_column: str = "delta_weight"  # the CSV export's column for the values (not "weight")
    file_tag: str = "difference"  # in the export's file name, after the model's

    def bar_label(self) -> str:
        """The colour bar's title, in the UI language of now."""
        return translate(CONTEXT, BAR_LABEL)


@dataclass(frozen=True)
class DifferencePicture:
    """One layer of adapted − base as a HeadsPicture, with its own diverging scale."""

    adapted: object            # the AdaptedAnalysis (its axes, labels, roles)
    base: object               # the base's Analysis of the same tokens
    layer: int
    weights: np.ndarray        # (h, N, N) adapted − base, signed
    mask: np.ndarray           # (N, N) bool: the adapted picture's
    empty_rows: np.ndarray     # (N,) bool
    stats: LayerStats          # no row's key boxed (argmax -1), entropy 0: no weights to box
    scale: PictureScale

    @property
    def analysis(self):
        return self.adapted

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.adapted.labels

    @property
    def n_heads(self) -> int:
        return self.weights.shape[0]

    def head_title(self, head: int) -> str:
        peak = float(np.abs(self.weights[head]).max(initial=0.0))
        return translate("app.adapter_compare", "head {head}  ·  max |Δ| {peak}").format(
            head=head, peak=f"{peak:.2f}")

    def describe_cell(self, head: int, query: int, key: int) -> str:
        v = getattr(self.adapted, "virtual_tokens", 0)
        tokens = self.tokens
        where = translate("app.adapter_compare", "L{layer} head {head}: {query} → {key}").format(
            layer=self.layer, head=head, query=tokens[query], key=tokens[key])
        if not self.mask[query, key]:
            return translate("app.adapter_compare", "{where}: masked (weight 0 in both)").format(where=where)
        adapted = float(self.adapted.attentions[self.layer, head, query, key])
        base = (float(self.base.attentions[self.layer, head, query - v, key - v])
                if query >= v and key >= v else 0.0)
        return translate("app.adapter_compare", "{where}: adapted {adapted}, base {base}, Δ {delta}").format(
            where=where, adapted=f"{adapted:.3f}", base=f"{base:.3f}",
            delta=f"{float(self.weights[head, query, key]):+.3f}")


def adapted_layer_picture(analysis, layer: int):
    """adapter_source.layer_picture, with no key boxed in an empty row (prefix tuning's virtual
    queries attend to nothing: their all-0 row has no most-attended key)."""
    picture = adapted_picture(analysis, layer)
    if not picture.empty_rows.any():
        return picture
    argmax = np.where(picture.empty_rows[None], -1, picture.stats.argmax)  # (h, N)
    return dataclasses.replace(picture, stats=LayerStats(picture.stats.entropy, argmax))


def layer_difference(adapted, base, layer: int) -> np.ndarray:
    """(heads, N, N): layer `layer` of adapter_source.difference(adapted, base), made alone (all
    layers at once would hold one more copy of every attention map)."""
    v = getattr(adapted, "virtual_tokens", 0)
    weights = adapted.attentions[layer]  # (h, N, N)
    aligned = np.zeros_like(weights)
    aligned[:, v:, v:] = base.attentions[layer]  # the base has no virtual token: 0 there
    return weights - aligned


def difference_picture(adapted, base, layer: int) -> DifferencePicture:
    """Layer `layer` of adapted − base on the adapted picture's mask."""
    plain = adapted_picture(adapted, layer)
    weights = layer_difference(adapted, base, layer)  # (h, N, N)
    m = float(np.abs(weights).max(initial=0.0))
    m = m if m > 0 and np.isfinite(m) else 1.0
    stats = LayerStats(entropy=np.zeros(weights.shape[:2]), argmax=np.full(weights.shape[:2], -1))
    return DifferencePicture(adapted, base, layer, weights, plain.mask, plain.empty_rows, stats,
                             PictureScale((-m, m), DIFFERENCE_COLORMAP))


@dataclass(frozen=True)
class AdapterComparison:
    """An adapted analysis and its base's of the same tokens (module docstring)."""

    adapted: object            # AdaptedAnalysis
    base: object               # Analysis
    peak: np.ndarray           # (layers, heads) max |difference|

    def difference(self, layer: int) -> np.ndarray:
        """(heads, N, N) adapted − base of one layer."""
        return layer_difference(self.adapted, self.base, layer)

    def top_heads(self, k: int | None = None) -> tuple[tuple[int, int, float], ...]:
        """The k heads with the largest max |difference|, largest first (ties: layer-major order);
        k None: a quarter of the heads, 1 to TOP_HEADS (a tiny model's 8 heads: 2 marked)."""
        flat = self.peak.ravel()
        k = min(TOP_HEADS, max(1, flat.size // 4)) if k is None else k
        order = np.argsort(-flat, kind="stable")[:k]
        heads = self.peak.shape[1]
        return tuple((int(i) // heads, int(i) % heads, float(flat[i])) for i in order)

    def picture(self, mode: str, layer: int):
        """The heads grid's picture of one layer: the base's, the adapted's or the difference."""
        if mode == "base":
            return plain_picture(self.base, layer)
        if mode == "difference":
            return difference_picture(self.adapted, self.base, layer)
        return adapted_layer_picture(self.adapted, layer)


def compare_heads(source, device: str, adapted, seed: int = 0, should_stop=None) -> AdapterComparison | None:
    """The job behind base / difference: the base's analysis of the adapted analysis's tokens."""
    base = source.analyse_base(device, adapted.text, adapted.sequence, seed, adapted.padding, should_stop)
    if base is None:
        return None
    if tuple(adapted.ids) != tuple(base.ids):
        raise ConfigError.of(OTHER_TEXT)
    peak = np.stack([np.abs(layer_difference(adapted, base, layer)).max(axis=(-2, -1))
                     for layer in range(adapted.attentions.shape[0])])  # (layers, heads)
    return AdapterComparison(adapted, base, peak)


# ----- the Generate tab: next-token probabilities before (base) and after (adapted) ----------------
@dataclass(frozen=True)
class NextTokens:
    """One step: the likeliest next tokens of either model, with both probabilities."""

    rows: tuple[tuple[str, int, float, float], ...]   # (label, id, p base, p adapted), by p adapted

    def top(self, which: str) -> tuple[int, ...]:
        """The ids of the TOP_TOKENS likeliest under "base" or "adapted"."""
        column = 2 if which == "base" else 3
        ranked = sorted(self.rows, key=lambda row: -row[column])
        return tuple(row[1] for row in ranked[:TOP_TOKENS])


@dataclass(frozen=True)
class NextTokenComparison:
    run: object                       # the adapted GenerationRun it belongs to
    steps: tuple[NextTokens, ...]     # one per record (fewer when a fed token could not be traced)


def fed_ids(model, run) -> list[int]:
    """The ids the run fed: the prompt's (tokenized as generate did), then each generated token,
    known by its label: among the previous step's top 5 (greedy: the first), else the first id of
    the vocabulary with that label (a sampled token). Stops at a label no id has."""
    from ...core.learned.analysis import tokenize
    ids = list(tokenize(model, run.text).ids)[:run.prompt_tokens]
    vocabulary = None  # label -> first id, made only when a token is not in a top 5
    for t in range(len(ids), len(run.records)):
        label = run.records[t].token
        found = [i for _label, _p, i in run.records[t - 1].top5
                 if model.tokenizer.encode_ids([i]).labels[0] == label]
        if not found:
            if vocabulary is None:
                vocabulary = vocabulary_labels(model)
            found = [vocabulary[label]] if label in vocabulary else []
        if not found:
            break
        ids.append(found[0])
    return ids


def vocabulary_labels(model) -> dict[str, int]:
    """label -> the first id with it, over the decoder's vocabulary ({} if the tokenizer refuses)."""
    try:
        labels = model.tokenizer.encode_ids(list(range(model.weights.vocab))).labels
    except Exception:  # noqa: BLE001 - a tokenizer shorter than the output layer: no fallback
        return {}
    table: dict[str, int] = {}
    for i, name in enumerate(labels):
        table.setdefault(name, i)
    return table


def _next_probabilities(model, ids: list[int]):
    """(n, vocab) float64 next-token probabilities of one causal pass over ids."""
    import torch
    with torch.inference_mode():
        logits = model.weights.forward(ids)["logits"]  # (n, vocab)
        return torch.softmax(logits.double(), dim=-1)


def compare_next_tokens(source, device: str, run, should_stop=None) -> NextTokenComparison | None:
    """The job behind the Generate tab's before / after: base and adapted next-token
    probabilities at every step of the adapted `run` (module docstring)."""
    import torch
    from ...core.cancel import Cancelled, check
    from ...core.learned.labels import readable_byte_piece
    try:
        adapted = source.load(device, should_stop)
        base = source.base.load(device, should_stop)
    except Cancelled:
        return None
    ids = fed_ids(adapted, run)
    check(should_stop, "comparing the next tokens")
    after, before = _next_probabilities(adapted, ids), _next_probabilities(base, ids)  # (n, vocab)
    steps = []
    for t in range(len(ids)):
        chosen = torch.cat([torch.topk(after[t], TOP_TOKENS).indices, torch.topk(before[t], TOP_TOKENS).indices])
        unique = list(dict.fromkeys(int(i) for i in chosen))
        rows = [(readable_byte_piece(base.tokenizer.piece(i)), i, float(before[t, i]), float(after[t, i]))
                for i in unique]
        steps.append(NextTokens(tuple(sorted(rows, key=lambda row: -row[3]))))
    return NextTokenComparison(run, tuple(steps))


# ----- the KV tab: the virtual positions a prefix or prompt puts in the cache ------------------------
def kv_trace(run, layer: int):
    """learned_kv.layer_trace(run, layer), its token axis starting with the positions that were in
    the cache before the first step (prefix and prompt tuning's ⟨p1⟩…; none otherwise), so the
    axis has as many labels as the cache has positions."""
    from .learned_kv import layer_trace
    trace = layer_trace(run, layer)
    v = run.records[0].cached - 1 if run.records else 0  # positions cached before the first token
    if v <= 0:
        return trace
    config = dataclasses.replace(trace.config, tokens=virtual_labels(v) + trace.config.tokens)
    return dataclasses.replace(trace, config=config)
