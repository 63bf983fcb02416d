"""What to export, its default file name and its title line (Qt-free).

A figure is named by a `FigureSpec`: "heads" (the grid), "head:N" (one head, 0-based),
"pe" (positional-encoding panel), "kv:STEP" (KV cache at a 0-based step) or "window".
Default file names carry the settings, e.g. ``heads_d8_h2_seed1.png``, so a folder of
figures for slides says which picture is which.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..core import AttentionConfig, ConfigError
from ..app.i18n import QT_TRANSLATE_NOOP, translate
from ..core.config import parse_whole

KINDS = ("heads", "head", "pe", "kv", "window")
BACKGROUNDS = (QT_TRANSLATE_NOOP("window.export_dialog", "white"),  # slides (dark text on white)
               QT_TRANSLATE_NOOP("window.export_dialog", "dark"))   # or a dark theme
FORMATS = ("png", "svg", "csv")
WHAT_HELP = "heads, head:N, pe, kv:STEP or all (N and STEP are 0-based)"
# File systems take 255 bytes; leave room for "_99" (unique_path) and ".NAME.xxxxxxxx.part".
MAX_DEFAULT_NAME_BYTES = 180


@dataclass(frozen=True)
class FigureSpec:
    kind: str                 # one of KINDS
    index: int | None = None  # the head for "head", the step for "kv"

    def __str__(self) -> str:
        return self.kind if self.index is None else f"{self.kind}:{self.index}"


def parse_what(text: str, config: AttentionConfig) -> list[FigureSpec]:
    """The figures `text` asks for, checked against the config (ConfigError if impossible).

    "all" is the grid, every head, the PE panel and the KV cache at its last step.
    """
    text = text.strip().lower()
    if text == "all":
        return ([FigureSpec("heads")] + [FigureSpec("head", i) for i in range(config.n_heads)]
                + [FigureSpec("pe"), FigureSpec("kv", config.n_tokens - 1)])
    kind, colon, arg = text.partition(":")
    if kind in ("heads", "pe", "window") and not colon:
        return [FigureSpec(kind)]
    if kind == "kv" and not colon:
        return [FigureSpec("kv", config.n_tokens - 1)]
    if kind in ("head", "kv") and colon:
        limit = config.n_heads if kind == "head" else config.n_tokens
        noun = "head" if kind == "head" else "step"
        index = parse_whole(arg, f"--what {kind}: the {noun}")
        if not 0 <= index < limit:
            raise ConfigError(f"--what {kind}:{index}: {noun} must be between 0 and {limit - 1}")
        return [FigureSpec(kind, index)]
    raise ConfigError(f"--what {text[:40]!r} is not one of: {WHAT_HELP}")


def settings_tag(config: AttentionConfig) -> str:
    """The settings part of a file name: d8_h2_seed1 plus flags that differ from the default."""
    parts = [f"d{config.d_model}", f"h{config.n_heads}", f"seed{config.seed}"]
    if not config.scaled:
        parts.append("unscaled")
    if config.causal:
        parts.append("causal")
    if config.padding:
        parts.append("pad" + "-".join(str(p) for p in sorted(config.padding)))
    if config.positional:
        parts.append("posenc")
    if config.dtype != "float64":
        parts.append(config.dtype)
    return "_".join(parts)


def default_name(spec: FigureSpec, config: AttentionConfig, fmt: str) -> str:
    """E.g. heads_d8_h2_seed1.png, head1_d8_h2_seed1.svg, kv_step3_d8_h2_seed1.csv."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    prefix = {"head": f"head{spec.index}", "kv": f"kv_step{spec.index}"}.get(spec.kind, spec.kind)
    return fit_name(f"{prefix}_{settings_tag(config)}", fmt)


def fit_name(stem: str, ext: str) -> str:
    """`stem.ext`, or when that is over MAX_DEFAULT_NAME_BYTES (200 padded tokens list 100
    positions) the stem cut short plus 8 hex digits of its hash, so distinct settings keep
    distinct names and every name is one the file system takes."""
    name = f"{stem}.{ext}"
    if len(name.encode("utf-8")) <= MAX_DEFAULT_NAME_BYTES:
        return name
    digest = hashlib.sha1(stem.encode("utf-8")).hexdigest()[:8]
    room = MAX_DEFAULT_NAME_BYTES - len(ext) - len(digest) - 3
    cut = stem.encode("utf-8")[:room].decode("utf-8", "ignore").rstrip("_-")
    return f"{cut}__{digest}.{ext}"


def settings_title(config: AttentionConfig, spec: FigureSpec | None = None) -> str:
    """One line for the top of a figure: d_model, heads, d_head, seed, scaling, masks."""
    scaling = (translate("export", "scaled ÷√{d_head}").format(d_head=config.d_head) if config.scaled
               else translate("export", "not scaled"))
    masks = []
    if config.causal:
        masks.append(translate("export", "causal"))
    if config.padding:
        masks.append(translate("export", "padding {positions}").format(
            positions=", ".join(str(p) for p in sorted(config.padding))))
    heads = translate("export", "{n} heads") if config.n_heads != 1 else translate("export", "{n} head")
    parts = [f"d_model {config.d_model}", heads.format(n=config.n_heads),
             f"d_head {config.d_head}", translate("export", "seed {seed}").format(seed=config.seed), scaling,
             translate("export",
                       "mask: {masks}").format(masks=" + ".join(masks) if masks else translate("export",
                                                                                               "none"))]
    if config.positional:
        parts.append(translate("export", "+ positional encoding"))
    label = _spec_label(spec, config)
    return (label + " — " if label else "") + " · ".join(parts)


def _spec_label(spec: FigureSpec | None, config: AttentionConfig) -> str:
    if spec is None or spec.kind in ("heads", "window"):
        return ""
    if spec.kind == "head":
        return translate("export", "head {head}").format(head=spec.index)
    if spec.kind == "pe":
        return translate("export", "positional encoding")
    return translate("export", "KV cache, step {step} ({token})").format(step=spec.index,
                                                                         token=config.tokens[spec.index])
