"""Export the heads grid, and a decoder's real KV cache, while a pretrained model is shown (PNG, SVG or CSV).

The random model's figures are built from a config (figures.py); a pretrained layer has no
config, so its grid is rebuilt offscreen from the `LayerPicture` the live grid shows, with the
window's drawing options and the live grid's size, and named after the model and layer
(heads_minilm-l6_layer2.png, head5_smollm2-135m_layer18.csv). The KV tab's real cache of a
decoder (a LearnedKVTrace: SmolLM2's or the trained model's) is drawn by a fresh KV panel like
the random model's (kv_step5_smollm2-135m_layer3.png, kv_step5_trained_layer1.png). The PE panel
is the course model's sinusoidal table: no pretrained model here uses it, so it is not offered,
and `not_offered` says why.
"""

from __future__ import annotations

import csv
import io
import re

from ....app.models.learned_kv import LearnedKVTrace
from ....export.csv_export import kv_chunks
from ....export.naming import FigureSpec
from ...export.render import settle
from ...heads.grid import picture_scale
from ...learned.source import kind_name
from ...plotting.i18n import translate
from .figures import (ExportOptions, ViewOptions, figure_bytes, framed_view, release,
                      window_figure_cache)

CSV_COLUMNS = ("model", "layer", "head", "query", "query_token", "key", "key_token", "weight")


def shows_pretrained(window) -> bool:
    """A model source's layer is shown (not the course model's sliders, whose figures are rebuilt
    from the config): the shown state says so (app.shown)."""
    return not window.shown.course and window.shown.picture is not None


def learned_kv_trace(window) -> LearnedKVTrace | None:
    """The decoder's real cache the KV tab shows, if it shows one."""
    return window.shown.kv_trace if shows_pretrained(window) else None


def not_offered(window) -> str:
    """Why the PE (and, for an encoder, the KV) figure is not offered while a pretrained or the trained
    model is shown."""
    source = window.shown.source
    how = (translate("window.learned_export", "rotary position embeddings (RoPE) inside attention")
           if source.capabilities.positions == "rope"
           else translate("window.learned_export", "learned position embeddings"))
    text = translate("window.learned_export", "No positional-encoding figure: that panel shows the course model's "
                     "sinusoidal table, and {model} uses {how}.").format(
        model=source.title(), how=how)
    if not source.capabilities.generation:
        text += " " + translate("window.learned_export", "No KV-cache figure: an encoder has no KV cache.")
    elif learned_kv_trace(window) is None:
        text += " " + translate("window.learned_export", "The KV-cache figure is offered once the KV tab has stepped "
                                "the decoder.")
    return text


def file_name(picture, spec: FigureSpec, fmt: str) -> str:
    """heads_minilm-l6_layer2.png; an adapted model's name as one word (tiny-LoRA-r-8), and a
    picture of other values than weights tagged (heads_tiny-LoRA-r-8_difference_layer0.csv)."""
    prefix = {"heads": "heads", "kv": f"kv_step{spec.index}"}.get(spec.kind, f"head{spec.index}")
    model = re.sub(r"[^\w.-]+", "-", picture.analysis.spec.name).strip("-") or "model"
    scale = picture_scale(picture)
    tag = "" if scale is None else f"_{scale.file_tag}"
    return f"{prefix}_{model}{tag}_layer{picture.layer}.{fmt}"


def kv_title_line(trace: LearnedKVTrace, step: int) -> str:
    cfg = trace.config
    if cfg.kv_heads == cfg.n_heads:  # the trained model: every head its own K and V
        return translate("window.learned_export", "KV cache, step {step} ({token}) — {name}, layer {layer}: the real "
                         "cache (one K and V per head, {heads} heads)").format(
            step=step, token=cfg.tokens[step], name=cfg.model, layer=cfg.layer, heads=cfg.n_heads)
    return translate("window.learned_export", "KV cache, step {step} ({token}) — {name}, layer {layer}: the real cache "
                     "({kv} K/V heads for {heads} query heads)").format(
        step=step, token=cfg.tokens[step], name=cfg.model, layer=cfg.layer, kv=cfg.kv_heads, heads=cfg.n_heads)


def pretrained_kv_export(window, spec: FigureSpec, options: ExportOptions, look: ViewOptions) -> tuple[str, bytes]:
    """(default file name, content) of the KV tab's real cache at step spec.index."""
    trace = learned_kv_trace(window)
    step = max(0, min(spec.index, len(trace.steps) - 1))
    name = f"kv_step{step}_{trace.config.model}_layer{trace.config.layer}.{options.fmt}"
    if options.fmt == "csv":
        return name, "".join(kv_chunks(trace, step)).encode("utf-8")
    cache = window_figure_cache(window)
    frame = framed_view(FigureSpec("kv", step), None, trace, look, options.background, cache)
    return name, _render(frame, kv_title_line(trace, step), options, window.kv_panel.size(), cache)


def title_line(picture, spec: FigureSpec) -> str:
    a = picture.analysis
    which = "" if spec.kind == "heads" else translate("window.learned_export", "head {head} — ").format(head=spec.index)
    return which + translate("window.learned_export", "{name} ({kind}) · layer {layer} of 0–{last} · {heads} heads · "
                             "d_model {d_model} · {n} tokens").format(
        name=a.spec.name, kind=kind_name(a.spec.kind), layer=picture.layer, last=a.spec.layers - 1,
        heads=a.spec.heads, d_model=a.spec.d_model, n=a.n_tokens)


def layer_csv(picture, heads: list[int]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    scale = picture_scale(picture)  # an adapter's difference: its values are not weights
    writer.writerow(CSV_COLUMNS if scale is None else (*CSV_COLUMNS[:-1], scale.value_column))
    tokens, name = picture.tokens, picture.analysis.spec.name
    for h in heads:
        for i, query in enumerate(tokens):
            for j, key in enumerate(tokens):
                writer.writerow((name, picture.layer, h, i, query, j, key, repr(float(picture.weights[h, i, j]))))
    return out.getvalue()


def pretrained_heads_export(window, spec: FigureSpec, options: ExportOptions) -> tuple[str, bytes]:
    """(default file name, content) of the heads grid or one head of the pretrained layer shown."""
    picture = window.shown.picture
    name = file_name(picture, spec, options.fmt)
    if options.fmt == "csv":
        heads = list(range(picture.n_heads)) if spec.kind == "heads" else [spec.index]
        return name, layer_csv(picture, heads).encode("utf-8")
    state = window.state.view
    look = ViewOptions(colormap=state.colormap, show_values=state.show_values, presentation=state.presentation)
    cache = window_figure_cache(window)
    frame = framed_view(spec, picture, None, look, options.background, cache)
    return name, _render(frame, title_line(picture, spec), options, window.heads_grid.size(), cache)


def _render(frame, line: str, options: ExportOptions, view_size, cache) -> bytes:
    """Title, layout at the live view's size, theme, bytes; then the frame goes back or away."""
    frame.set_title(line if options.title else "")
    frame.description = line
    try:
        settle(frame, frame.size_for_view(view_size))
        frame.restyle()
        settle(frame)
        return figure_bytes(frame, options)
    finally:
        release(frame, cache)
