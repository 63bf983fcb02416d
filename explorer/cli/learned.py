"""Pretrained models on the command line: `attention-explorer models` and `dump --model NAME --text ...`.

`models` is registered by add_models_parser; `dump` (dump.py) adds add_model_dump_options and hands
`--model` to run_model_dump.
Problems (unknown model, model not installed, text too long, bad --layer) raise ConfigError,
which the dispatcher prints as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from ..core.config import ConfigError
from ..core.learned import MODELS, get_spec, installed_version, is_installed
from .options import whole

# dump options of the random-weights model that mean nothing for a pretrained one
_RANDOM_ONLY = ("preset", "tokens", "d_model", "heads", "no_scale", "causal", "pad", "positional",
                "backend", "dtype", "init")


def add_models_parser(subparsers) -> None:
    models = subparsers.add_parser("models", help="list the pretrained models and whether they are installed")
    models.add_argument("--json", action="store_true", help="print JSON instead of a table")
    models.set_defaults(run=run_models)


def models_rows() -> list[dict]:
    rows = []
    for spec in MODELS.values():
        rows.append({**spec.to_dict(), "shape": f"{spec.layers}×{spec.heads}×{spec.d_model}",
                     "licence": spec.licence, "size_mb": spec.wheel_mb,
                     "installed": is_installed(spec), "installed_version": installed_version(spec),
                     "install": spec.install_command})
    return rows


def run_models(args: argparse.Namespace) -> int:
    rows = models_rows()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    for r in rows:
        state = "installed" if r["installed"] else f"not installed ({r['install']})"
        print(f"{r['name']:<13} {r['kind']:<8} {r['shape']:<11} {r['size_mb']:>5.1f} MB  {state}")
        print(f"{'':<13} {r['licence']}")
    return 0


def add_model_dump_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("pretrained models (see `attention-explorer models`)")
    group.add_argument("--model", help=f"a pretrained model: {', '.join(MODELS)}")
    group.add_argument("--text", help="free text, tokenized by the model's own tokenizer")
    group.add_argument("--random-tokens", type=whole, metavar="N",
                       help="instead of --text: N random token ids (seeded by --seed), repeated twice")
    group.add_argument("--layer", type=whole, help="only this layer's weights: (heads, n, n)")
    group.add_argument("--generate", type=whole, default=0, metavar="K",
                       help="decoder: generate K tokens (greedy) with the top 5 of each")


def _check_args(args: argparse.Namespace, spec) -> None:
    used = [name for name in _RANDOM_ONLY if getattr(args, name, None) not in (None, False, [])]
    if used:
        raise ConfigError(f"--{used[0].replace('_', '-')} applies to the random model, not to --model")
    if (args.text is None) == (args.random_tokens is None):
        raise ConfigError("--model needs exactly one of --text and --random-tokens")
    if args.text is not None:
        _check_text(args.text)
    if args.layer is not None and not 0 <= args.layer < spec.layers:
        raise ConfigError(f"--layer must be 0..{spec.layers - 1} for {spec.name}, not {args.layer}")
    if (args.generate or args.kv) and spec.kind != "decoder":
        raise ConfigError(f"--generate and --kv need a decoder; {spec.name} is an encoder")


def _check_text(text: str) -> None:
    """ConfigError for --text holding bytes that were not UTF-8 (Python keeps them as lone
    surrogates, which the tokenizers refuse with a TypeError): which byte, and where."""
    bad = next((i for i, ch in enumerate(text) if 0xD800 <= ord(ch) <= 0xDFFF), None)
    if bad is None:
        return
    code = ord(text[bad])
    byte = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
    raise ConfigError(f"--text is not valid UTF-8 ({byte} at character {bad}); "
                      "check the terminal's encoding")


def _rounded(a: np.ndarray) -> list:
    return np.round(a.astype(np.float64), 6).tolist()


def model_dump(args: argparse.Namespace) -> dict:
    """The JSON document of `dump --model` (also used by tests)."""
    from ..core.learned import find_repeat, load_model, score_heads
    from ..core.learned.analysis import run, tokenize
    from ..core.learned.sequences import random_repeated
    spec = get_spec(args.model)
    _check_args(args, spec)
    model = load_model(spec.name, args.device or "cpu")
    if args.text is not None:
        tokens = tokenize(model, args.text)
    else:
        tokens = random_repeated(model, args.random_tokens, seed=args.seed or 0)
    result = run(model, tokens)
    roles = score_heads(result.attentions, causal=model.is_decoder, repeat=find_repeat(tokens.ids))
    weights = result.attentions if args.layer is None else result.attentions[args.layer]
    doc = {"model": spec.to_dict(), "tokens": list(tokens.pieces), "labels": list(tokens.labels),
           "ids": list(tokens.ids), "weights": _rounded(weights),
           "head_roles": [r.to_dict() for r in roles]}
    if args.layer is not None:
        doc["layer"] = args.layer
    if model.is_decoder:
        doc["loss"] = result.loss
        doc["next_top5"] = [{"token": t, "p": round(p, 6), "id": i} for t, p, i in result.next_top]
    if args.generate or args.kv:
        doc.update(_generation(model, tokens, args))
    return doc


def _generation(model, tokens, args) -> dict:
    from ..core.learned.generation import run_generation
    records, cache, generated = run_generation(model, tokens, args.generate, check=args.kv)
    out = {}
    if args.generate:
        chosen_from = records[len(tokens.ids) - 1:-1]  # the step before each generated token
        out["generated"] = [{"token": label, "id": tid, "top5": rec.to_dict()["top5"]}
                            for label, tid, rec in zip(generated.labels, generated.ids, chosen_from)]
        out["generated_text"] = model.tokenizer.decode(generated.ids)
    if args.kv:
        spec = model.spec
        out["kv"] = [r.to_dict() for r in records]
        out["kv_cache"] = {"layers": spec.layers, "kv_heads": spec.kv_heads, "heads": spec.heads,
                           "d_head": spec.d_head, "positions": cache.length, "bytes": cache.nbytes,
                           "formula": "2 (K and V) × layers × kv_heads × positions × d_head × 4 bytes"}
        if args.layer is not None:
            out["kv_cache"]["layer"] = args.layer
            out["kv_cache"]["keys"] = _rounded(cache.keys[args.layer].float().cpu().numpy())
            out["kv_cache"]["values"] = _rounded(cache.values[args.layer].float().cpu().numpy())
    return out


def run_model_dump(args: argparse.Namespace) -> int:
    doc = model_dump(args)
    if args.format == "text":
        print(" ".join(doc["labels"]))
        for r in doc["head_roles"]:
            print(f"L{r['layer']}H{r['head']}\t{r['role']}\t{r['score']:.2f}")
        for g in doc.get("generated", []):
            print(f"→ {g['token']}\t" + "  ".join(f"{t['token']} {t['p']:.3f}" for t in g["top5"]))
    else:
        print(json.dumps(doc, ensure_ascii=False))
    return 0
