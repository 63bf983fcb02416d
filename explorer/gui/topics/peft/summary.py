"""What the PEFT topic says in words: the method's sentences and the parameter table.

Every sentence is drawn from the result (`PeftResult`) in the UI language (context
"topics.peft_view"; each source is written out in its `translate` call, where lupdate finds
it); numbers and formulas are the same in both languages. Returned as rich text for the view's
labels, everything filled in escaped.
"""

from __future__ import annotations

import html

import numpy as np

from ....core.topics.peft import PeftResult
from ...plotting.i18n import QT_TRANSLATE_NOOP, translate
from .plots import changes_weights

OK_COLOUR, FAIL_COLOUR, CURRENT_BACKGROUND = "#17803a", "#b00020", "#e3ebfa"
MAX_LISTED = 8  # heads (or singular values) listed in a sentence
COLUMNS = {"lora": "LoRA {name}", "lora_qv": "LoRA Q, V", "lora_all": "LoRA Q, K, V, O", "ia3": "IA³",
           "prefix": QT_TRANSLATE_NOOP("topics.peft_view", "prefix"),
           "prompt": QT_TRANSLATE_NOOP("topics.peft_view", "prompt"),
           "full": QT_TRANSLATE_NOOP("topics.peft_view", "full fine-tune")}


def _t(text: str, **fields) -> str:
    """A translated template, filled in and escaped for rich text."""
    return html.escape(text.format(**fields), quote=False)


def _number(x: float) -> str:
    return f"{x:.3g}"


def _listed(values) -> str:
    text = ", ".join(f"{v:.2f}" for v in values[:MAX_LISTED])
    return text + (" …" if len(values) > MAX_LISTED else "")


def per_head_change(result: PeftResult) -> np.ndarray:
    """(h,) the largest |adapted − base| weight of each head (real tokens)."""
    diff = result.weights_difference  # (h, n, n)
    return np.abs(diff).reshape(diff.shape[0], -1).max(axis=1)


def _output_change(result: PeftResult) -> str:
    return _number(float(np.abs(result.output_difference).max(initial=0.0)))


def summary_html(result: PeftResult) -> str:
    """The method's sentences as one paragraph (LoRA: then the check on a line of its own)."""
    method = result.config.method
    lines = {"lora": _lora, "ia3": _ia3, "prefix": _prefix, "prompt": _prompt}[method](result)
    return "<br>".join(lines) if method == "lora" else " ".join(lines)


def _lora(result: PeftResult) -> list[str]:
    cfg, lora = result.config, result.lora
    name = "W_" + cfg.target.upper()
    d_in, d_out = lora.w.shape
    root = "√" if cfg.rslora else ""
    count = cfg.rank * (d_in + d_out)
    lines = [_t(translate("topics.peft_view",
                          "LoRA on {name}: scale {scale}, trains r·(d_in + d_out) = {count} numbers "
                          "instead of d_in·d_out = {full} ({percent} %)."),
                name=name, scale=f"α/{root}r = {cfg.alpha}/{root}{cfg.rank} = {lora.scale:.4g}",
                count=f"{count:,}", full=f"{d_in * d_out:,}", percent=_number(100 * count / (d_in * d_out)))]
    if not lora.b.any():
        lines.append(_t(translate("topics.peft_view",
                                  "B = 0, so ΔW = 0: the adapted heads are exactly the base (peft starts so, "
                                  "and fine-tuning begins at the pretrained model).")))
    elif cfg.b_init == "seed":
        lines.append(_t(translate("topics.peft_view",
                                  "B drawn by the seed (peft's init_lora_weights=False): ΔW has rank ≤ r = {r}, "
                                  "singular values {values}."),
                        r=cfg.rank, values=_listed(lora.delta_singular)))
    else:
        lines.append(_t(translate("topics.peft_view",
                                  "A and B trained {steps} Adam steps on a toy task (head 0 should look at the "
                                  "previous token; W frozen): loss {before} → {after}."),
                        steps=cfg.steps, before=_number(lora.losses[0]), after=_number(lora.losses[-1])))
    if lora.b.any() and changes_weights(result):
        lines.append(_t(translate("topics.peft_view", "Largest weight change per head: {changes}."),
                        changes=_listed(per_head_change(result))))
    elif lora.b.any():
        lines.append(_t(translate("topics.peft_view",
                                  "On {name} LoRA changes what the heads pass on, not where they look: the "
                                  "weights stay the same, so the output is shown (max |Δoutput| = {delta})."),
                        name=name, delta=_output_change(result)))
    return [" ".join(lines), check_line(result)]


def check_line(result: PeftResult) -> str:
    """Merged against unmerged, as computed: ✓ with the difference, or ✗."""
    check = result.lora.check
    diff = f"{check.max_difference:.2g}"
    if check.ok:
        text = _t(translate("topics.peft_view",
                            "merged W + ΔW gives the same attention as the unmerged "
                            "x·W + scale·(x·Aᵀ)·Bᵀ (max difference {diff}, float64)"), diff=diff)
        return f'<b style="color:{OK_COLOUR}">✓</b> {text}'
    text = _t(translate("topics.peft_view", "merged and unmerged differ by {diff}: more than rounding"),
              diff=diff)
    return f'<b style="color:{FAIL_COLOUR}">✗</b> {text}'


def _ia3(result: PeftResult) -> list[str]:
    cfg = result.config
    d = result.base_output.shape[1]
    if cfg.ia3_strength == 0:
        return [_t(translate("topics.peft_view",
                             "IA³ with l_k = l_v = 1 (peft's start): the heads are exactly the base."))]
    return [_t(translate("topics.peft_view",
                         "IA³: the columns of K are multiplied by l_k and those of V by l_v, drawn as "
                         "l = 1 + {strength}·N(0, 1) from seed {seed}: 2·d = {count} trainable numbers per "
                         "layer."), strength=f"{cfg.ia3_strength:.2f}", seed=cfg.adapter_seed,
               count=f"{2 * d:,}"),
            _t(translate("topics.peft_view",
                         "l_k moves where the heads look (largest weight change per head: {changes}); l_v "
                         "only what they pass on (max |Δoutput| = {delta})."),
               changes=_listed(per_head_change(result)), delta=_output_change(result))]


def _labels(result: PeftResult) -> str:
    labels = result.col_labels[:result.config.virtual]
    return labels[0] if len(labels) == 1 else f"{labels[0]}…{labels[-1]}"


def _prefix(result: PeftResult) -> list[str]:
    cfg = result.config
    d = result.base_output.shape[1]
    rows, cols = result.weights.shape[1:]
    real_share = float(result.weights[:, :, cfg.virtual:].sum(axis=-1).mean())
    return [_t(translate("topics.peft_view",
                         "Prefix tuning: {v} virtual keys and values {labels} per layer (2·v·d = {count} "
                         "trainable numbers per layer) before the real keys."),
               v=cfg.virtual, labels=_labels(result), count=f"{2 * cfg.virtual * d:,}"),
            _t(translate("topics.peft_view",
                         "Every query may attend to them, under the causal mask and padding too: the weights "
                         "are n × (v + n) = {rows} × {cols} and each row still sums to 1; the real keys keep "
                         "{share} % of the weight on average."),
               rows=rows, cols=cols, share=f"{100 * real_share:.1f}")]


def _prompt(result: PeftResult) -> list[str]:
    cfg = result.config
    d = result.base_output.shape[1]
    rows, cols = result.weights.shape[1:]
    return [_t(translate("topics.peft_view",
                         "Prompt tuning: {v} virtual tokens {labels} before the sentence (v·d = {count} "
                         "trainable numbers, in the input only)."),
               v=cfg.virtual, labels=_labels(result), count=f"{cfg.virtual * d:,}"),
            _t(translate("topics.peft_view",
                         "The weights are (v + n) × (v + n) = {rows} × {cols}; under the causal mask every "
                         "real token still sees every virtual one. The difference compares the real tokens."),
               rows=rows, cols=cols)]


def table_html(result: PeftResult) -> str:
    """The parameter counts side by side, one method a row (the current one highlighted)."""
    cfg = result.config
    name = "W_" + cfg.target.upper()

    def row(cells, key: str = "", tag: str = "td") -> str:
        style = f' style="background:{CURRENT_BACKGROUND}"' if key == cfg.method else ""
        aligns = ("left", "left", "right", "right")
        return f"<tr{style}>" + "".join(
            f'<{tag} align="{a}" style="padding: 1px 5px">{html.escape(c, quote=False)}</{tag}>'
            for a, c in zip(aligns, cells)) + "</tr>"

    att = cfg.attention
    sizes = f"d = {att.d_model}, h = {att.n_heads}, L = {cfg.layers}, v = {cfg.virtual}"
    lines = [row((sizes, translate("topics.peft_view", "formula"),
                  translate("topics.peft_view", "trainable"), translate("topics.peft_view", "% of full")),
                 tag="th")]
    for count in result.counts:
        label = translate("topics.peft_view", COLUMNS[count.key]).format(name=name)
        lines.append(row((label, count.formula, f"{count.trainable:,}", _number(100 * count.share)),
                         count.key))
    return f"<table cellspacing='0' cellpadding='0'>{''.join(lines)}</table>"
