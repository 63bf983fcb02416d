"""`dump` options for what raw attention hides (core.insight): sinks, rollout and flow, value norms,
words, the logit lens, and sampled generation. Each adds one JSON key (README, "What raw attention hides").

    dump --model NAME --text ... --sinks --rollout --value-norms --words --logit-lens
    dump --model smollm2-135m --text ... --generate 8 --temperature 0.8 --top-k 40 --top-p 0.9 --seed 1
    dump --tokens "the cat sat" --rollout --value-norms --words --sinks      # the course model: one layer

learned.py calls `add_insight_options`, `check_insight_args`, `model_insight` and `sampler_of`;
dump.py calls `course_insight`. Bad values raise ConfigError (one line, exit 2).
"""

from __future__ import annotations

import argparse

import numpy as np

from ..core.config import ConfigError
from .options import whole

# the options that need a decoder's own forward, with what they are called on the command line
_SAMPLING = (("temperature", "--temperature"), ("top_k", "--top-k"), ("top_p", "--top-p"))


def add_insight_options(group) -> None:
    group.add_argument("--sinks", action="store_true",
                       help="add `sinks`: per layer and head, the attention on the first token and on separators")
    group.add_argument("--rollout", action="store_true",
                       help="add `rollout`: attention rollout per layer (0.5·A + 0.5·I), and attention flow "
                            "where the sequence is short enough")
    group.add_argument("--value-norms", action="store_true",
                       help="add `value_norms`: ‖α·v W_O‖ per head (Kobayashi et al. 2020) and how far it is from α")
    group.add_argument("--words", action="store_true",
                       help="add `words`: the pieces grouped into words, and attention between the words")
    group.add_argument("--logit-lens", action="store_true",
                       help="decoder: add `logit_lens`, each layer's top next token through the final norm and head")
    group.add_argument("--temperature", type=float, metavar="T",
                       help="with --generate: sample, scores divided by T (> 0)")
    group.add_argument("--top-k", type=whole, metavar="K", help="with --generate: sample from the K likeliest")
    group.add_argument("--top-p", type=float, metavar="P",
                       help="with --generate: sample from the likeliest tokens whose probabilities reach P (0 < P ≤ 1)")


def _r(a) -> list:
    return np.round(np.asarray(a, dtype=np.float64), 6).tolist()


def sampler_of(args: argparse.Namespace):
    """A core.insight Sampler when a sampling option is given (ConfigError for a bad value), else
    None (greedy, as before)."""
    if all(getattr(args, name, None) is None for name, _ in _SAMPLING):
        return None
    from ..core.insight.sampling import Sampler, SamplingSettings
    settings = SamplingSettings(temperature=1.0 if args.temperature is None else args.temperature,
                                top_k=args.top_k, top_p=args.top_p, seed=args.seed or 0)
    return Sampler(settings)


def sampling_doc(sampler, tokenizer) -> dict:
    """The `sampling` key: the settings and, per generated token, what was drawn from what."""
    steps = []
    for step in sampler.steps:
        row = step.to_dict()
        row["token"], row["id"] = tokenizer.encode_ids([step.token]).labels[0], step.token
        for entry in row["top"]:
            entry["token"] = tokenizer.encode_ids([entry["id"]]).labels[0]
        steps.append(row)
    return {**sampler.settings.to_dict(), "stages": ["model", "temperature", "top_k", "top_p"], "steps": steps}


def check_insight_args(args: argparse.Namespace, spec, source) -> None:
    """One line for an option the model cannot serve, or sampling options without --generate."""
    sampling = [flag for name, flag in _SAMPLING if getattr(args, name, None) is not None]
    if sampling and not args.generate:
        raise ConfigError(f"{sampling[0]} applies to --generate K (sampling the generated tokens)")
    sampler_of(args)  # the values' own checks
    if args.logit_lens and spec.kind != "decoder":
        raise ConfigError(f"--logit-lens needs a decoder; {spec.name} is an encoder")


def model_insight(source, args: argparse.Namespace, analysis) -> dict:
    """The keys --sinks, --rollout, --words, --value-norms and --logit-lens add to `dump --model`.
    An adapter's virtual tokens come first on every axis (app.models.adapter_source): each is a
    word of its own, and prefix tuning's (keys only, empty rows) are no sink's queries."""
    from ..core import insight
    doc, layer = {}, args.layer
    attentions, n = analysis.attentions, analysis.n_real
    pieces = list(analysis.pieces or analysis.labels)
    decoder = analysis.spec.kind == "decoder"
    virtual = getattr(analysis, "virtual_tokens", 0)
    keys_only = virtual if virtual and not getattr(analysis, "virtual_queries", False) else 0
    if args.sinks:
        doc["sinks"] = insight.sink_shares(attentions, pieces, causal=decoder, n_real=n,
                                           first_query=keys_only).to_dict()
    if args.rollout:
        doc["rollout"] = _rollout(attentions, layer, decoder)
    if args.words:
        words = insight.word_groups(pieces, None if analysis.pieces else "pieces", special=range(virtual))
        grouped = insight.group_attention(attentions if layer is None else attentions[layer], words)
        doc["words"] = {**words.to_dict(), "weights": _r(grouped)}
    if args.value_norms or args.logit_lens:
        model, captured = _captured(source, args, analysis)
        if args.value_norms:
            doc["value_norms"] = _value_norms(attentions, captured.key_norms, layer)
        if args.logit_lens:
            doc["logit_lens"] = _lens(model, captured, len(pieces))
    return doc


def _rollout(attentions, layer, causal: bool) -> dict:
    from ..core.insight import attention_flow, max_tokens_for_flow, rollout
    rolled = rollout(attentions)  # (layers, n, n)
    flow = attention_flow(attentions, layer)
    return {"weights": _r(rolled if layer is None else rolled[layer]),
            "flow": {"layer": flow.layer, "weights": None if flow.weights is None else _r(flow.weights),
                     "reason": None if flow.reason is None else str(flow.reason),
                     "max_tokens": max_tokens_for_flow(flow.layer + 1, causal)}}


def _value_norms(attentions, key_norms, layer) -> dict:
    from ..core.insight import norm_disagreement, value_norms
    norms = value_norms(attentions, key_norms)  # (layers, heads, n, n)
    tv = norm_disagreement(attentions, norms)  # (layers, heads)
    return {"weights": _r(norms if layer is None else norms[layer]),
            "disagreement": _r(tv if layer is None else tv[layer])}


def _captured(source, args, analysis):
    """(loaded model, its captured run over the analysis' own ids): the key norms and hidden
    states the forward of a natively run model gives (core.insight.capture)."""
    from ..core.insight import captured_run
    model = source.load(args.device or "cpu")
    if model is None or not hasattr(model, "weights"):
        raise ConfigError(f"--value-norms and --logit-lens need a pretrained model or a checkpoint; "
                          f"{source.name} does not give its values")
    tokens = model.tokenizer.encode_ids(analysis.ids)
    return model, captured_run(model, tokens)


def _lens(model, captured, axis: int) -> dict:
    """The lens over the positions the forward gives residual streams for: the text's (an
    adapter's virtual tokens come before them on the tokens' axis; `positions`: the indices there)."""
    from ..core.insight import logit_lens
    lens = logit_lens(model, captured.hidden_states, captured.hidden_states.shape[1] - captured.padding)
    labels = model.tokenizer.encode_ids
    top = [[{"token": t, "id": int(i), "p": round(float(p), 6)}
            for t, i, p in zip(labels(row).labels, row, probs)] for row, probs in zip(lens.top_ids, lens.top_p)]
    first = axis - captured.hidden_states.shape[1]
    return {"rows": ["embeddings"] + [f"layer {i}" for i in range(len(lens.top_ids) - 1)],
            "positions": list(range(first, first + lens.top_ids.shape[1])), "top": top,
            "final": list(labels(lens.final).labels), "final_p": _r(lens.final_p),
            "first_row": lens.first_row.tolist(), "settled_row": lens.settled_row.tolist()}


def course_insight(result, args: argparse.Namespace) -> dict:
    """The same keys for the course's random model (one layer; its tokens are words already)."""
    from ..core import insight
    wanted = [flag for flag, on in (("--logit-lens", args.logit_lens), *(
        (flag, getattr(args, name) is not None) for name, flag in _SAMPLING)) if on]
    if wanted:
        raise ConfigError(f"{wanted[0]} needs a decoder: use it with --model (e.g. --model smollm2-135m)")
    attentions = result.weights[None]  # (1, heads, n, n)
    tokens = list(result.tokens)
    doc = {}
    if args.sinks:
        doc["sinks"] = insight.sink_shares(attentions, tokens, causal=result.config.causal).to_dict()
    if args.rollout:
        doc["rollout"] = _rollout(attentions, None, result.config.causal)
    if args.words:
        words = insight.word_groups(tokens, "pieces")
        doc["words"] = {**words.to_dict(), "weights": _r(insight.group_attention(attentions, words))}
    if args.value_norms:
        norms = insight.course_value_norms(result)
        doc["value_norms"] = {"weights": _r(norms), "disagreement": _r(insight.norm_disagreement(attentions, norms))}
    return doc
