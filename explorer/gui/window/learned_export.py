"""Export the heads grid while it shows a pretrained layer (PNG, SVG or CSV).

The random model's figures are built from a config (figures.py); a pretrained layer has no
config, so its grid is rebuilt offscreen from the `LayerPicture` the live grid shows, with the
window's drawing options and the live grid's size, and named after the model and layer
(heads_minilm-l6_layer2.png, head5_smollm2-135m_layer18.csv).
"""

from __future__ import annotations

import csv
import io

from ...export.frame import FigureFrame
from ...export.naming import FigureSpec
from ...export.render import settle
from ..heads.grid import HeadsGrid
from ..learned.source import kind_name
from ..plotting.i18n import translate
from .figures import ExportOptions, discard, figure_bytes

CSV_COLUMNS = ("model", "layer", "head", "query", "query_token", "key", "key_token", "weight")


def shows_pretrained(window) -> bool:
    learned = getattr(window, "learned", None)
    return learned is not None and not learned.is_random and window.heads_grid.shown_result() is not None \
        and hasattr(window.heads_grid.shown_result(), "analysis")


def file_name(picture, spec: FigureSpec, fmt: str) -> str:
    prefix = "heads" if spec.kind == "heads" else f"head{spec.index}"
    return f"{prefix}_{picture.analysis.spec.name}_layer{picture.layer}.{fmt}"


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
    writer.writerow(CSV_COLUMNS)
    tokens, name = picture.tokens, picture.analysis.spec.name
    for h in heads:
        for i, query in enumerate(tokens):
            for j, key in enumerate(tokens):
                writer.writerow((name, picture.layer, h, i, query, j, key, repr(float(picture.weights[h, i, j]))))
    return out.getvalue()


def pretrained_heads_export(window, spec: FigureSpec, options: ExportOptions) -> tuple[str, bytes]:
    """(default file name, content) of the heads grid or one head of the pretrained layer shown."""
    picture = window.heads_grid.shown_result()
    name = file_name(picture, spec, options.fmt)
    if options.fmt == "csv":
        heads = list(range(picture.n_heads)) if spec.kind == "heads" else [spec.index]
        return name, layer_csv(picture, heads).encode("utf-8")
    view = HeadsGrid()
    look = window.state.view
    view.set_colormap(look.colormap)
    view.set_show_values(look.show_values)
    view.set_presentation(look.presentation)
    view.set_result(picture)
    if spec.kind == "head":
        view.set_focus_head(spec.index)
    line = title_line(picture, spec)
    frame = FigureFrame(view, options.background, line if options.title else "")
    frame.description = line
    try:
        settle(frame, frame.size_for_view(window.heads_grid.size()))
        frame.restyle()
        settle(frame)
        return name, figure_bytes(frame, options)
    finally:
        discard(frame)
