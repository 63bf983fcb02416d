"""Pretrained models on the command line: `attention-explorer models` and `dump --model NAME --text ...`.

`models` is registered by add_models_parser; `dump` (dump.py) adds add_model_dump_options and hands
`--model` to run_model_dump. `--model` takes a bundled model's name, a checkpoint folder (a
save_pretrained folder) or a repo id ORG/NAME of the local Hugging Face cache (never the network;
core.checkpoints); `models` lists the bundled models and the cache's checkpoints.
Problems (unknown model, model not installed, text too long, bad --layer) raise ConfigError,
which the dispatcher prints as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from ..core.config import ConfigError
from ..core.learned import MODELS, installed_version, is_installed
from .insight import add_insight_options, check_insight_args, model_insight, sampler_of, sampling_doc
from .options import whole

# dump options of the random-weights model that mean nothing for a pretrained one
_RANDOM_ONLY = ("preset", "tokens", "d_model", "heads", "no_scale", "causal", "pad", "positional",
                "backend", "dtype", "init")


def add_models_parser(subparsers) -> None:
    models = subparsers.add_parser("models", help="list the pretrained models (and whether they are installed) "
                                                  "and the checkpoints of the local Hugging Face cache")
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


def checkpoint_rows() -> list[dict]:
    """The local Hugging Face cache's checkpoints (core.checkpoints.cache; no torch, no network):
    family, sizes, dtype, bytes on disk, native or through transformers, or why it cannot open."""
    from ..core.checkpoints.cache import cache_root, cached_models
    from ..core.checkpoints.layout import open_folder
    from ..core.checkpoints.load import route
    rows = []
    for entry in cached_models():
        row = {"name": entry.repo_id, "source": "cache", "folder": str(entry.folder),
               "revision": entry.revision, "cache": str(cache_root())}
        try:
            ckpt = open_folder(entry.folder, entry.repo_id, entry.repo_id, entry.revision)
            sizes = ckpt.sizes
            row.update(kind=ckpt.kind, family=ckpt.model_type, layers=sizes["layers"], heads=sizes["heads"],
                       kv_heads=sizes["kv_heads"], d_model=sizes["d_model"],
                       shape=f"{sizes['layers']}×{sizes['heads']}×{sizes['d_model']}", dtype=ckpt.dtype_name,
                       parameters=ckpt.parameters, bytes=ckpt.nbytes, size_mb=round(ckpt.nbytes / 1e6, 3),
                       route=route(ckpt), problem=None)
        except ConfigError as exc:
            row.update(problem=str(exc))
        rows.append(row)
    return rows


def run_models(args: argparse.Namespace) -> int:
    rows = models_rows()
    checkpoints = checkpoint_rows()
    if args.json:
        print(json.dumps(rows + checkpoints, ensure_ascii=False))
        return 0
    for r in rows:
        state = "installed" if r["installed"] else f"not installed ({r['install']})"
        print(f"{r['name']:<13} {r['kind']:<8} {r['shape']:<11} {r['size_mb']:>5.1f} MB  {state}")
        print(f"{'':<13} {r['licence']}")
    if checkpoints:
        from ..core.checkpoints.layout import size_text
        print(f"\nHugging Face cache ({checkpoints[0]['cache']}):")
        for r in checkpoints:
            if r["problem"]:
                print(f"{r['name']}  cannot be opened: {r['problem']}")
                continue
            way = "native" if r["route"] == "native" else "through transformers"
            print(f"{r['name']}  {r['family']} {r['kind']} {r['shape']} {r['dtype']} "
                  f"{size_text(r['bytes'])}  {way}")
    return 0


def add_model_dump_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("pretrained models (see `attention-explorer models`)")
    group.add_argument("--model", metavar="NAME|FOLDER|ORG/NAME",
                       help=f"a pretrained model ({', '.join(MODELS)}), a checkpoint folder "
                            "(save_pretrained: config.json, model.safetensors, tokenizer.json) or a repo "
                            "id of the local Hugging Face cache")
    group.add_argument("--text", help="free text, tokenized by the model's own tokenizer")
    group.add_argument("--random-tokens", type=whole, metavar="N",
                       help="instead of --text: N random token ids (seeded by --seed), repeated twice")
    group.add_argument("--layer", type=whole, help="only this layer's weights: (heads, n, n)")
    group.add_argument("--adapter", metavar="DIR",
                       help="a PEFT adapter folder (adapter_config.json + adapter_model.safetensors: LoRA, IA³, "
                            "prefix or prompt tuning) applied to --model; virtual tokens come first in tokens "
                            "and on the key axis (docs/adapters.md)")
    group.add_argument("--generate", type=whole, default=0, metavar="K",
                       help="decoder: generate K tokens (greedy, or sampled with --temperature, --top-k, "
                            "--top-p and --seed) with the top 5 of each")
    add_insight_options(group)


def _check_args(args: argparse.Namespace, spec, source) -> None:
    used = [name for name in _RANDOM_ONLY if getattr(args, name, None) not in (None, False, [])]
    if used:
        raise ConfigError(f"--{used[0].replace('_', '-')} applies to the random model, not to --model")
    if (args.text is None) == (args.random_tokens is None):
        raise ConfigError("--model needs exactly one of --text and --random-tokens")
    if args.text is not None:
        _check_text(args.text)
    if args.layer is not None and not 0 <= args.layer < spec.layers:
        raise ConfigError(f"--layer must be 0..{spec.layers - 1} for {spec.name}, not {args.layer}")
    if (args.generate or args.kv) and not source.capabilities.generation:
        if spec.kind == "decoder":
            raise ConfigError(f"--generate and --kv need the app's own forward; {spec.name} goes through "
                              "transformers (attention maps only)")
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
    """The JSON document of `dump --model` (also used by tests): any model source's run
    (app.sources), the course model's excepted (it is `dump` without --model)."""
    source = model_source(args.model)  # ConfigError (one line) for an unknown name or a bad folder
    if source.capabilities.course_settings:
        raise ConfigError(f"--model {args.model}: the course model is `dump` without --model")
    problem = source.problem()  # not installed: the command that fixes it
    if problem is not None:
        raise problem
    if getattr(args, "adapter", None) is not None:  # AdapterError (one line) for a bad adapter folder
        from ..app.models.adapter_source import adapted_source
        source = adapted_source(source, args.adapter)
    spec = source.spec()
    _check_args(args, spec, source)
    check_insight_args(args, spec, source)
    text, sequence = (args.text, "text") if args.text is not None else ("", "random")
    analysis = source.analyse(args.device or "cpu", text, sequence, args.seed or 0,
                              random_length=args.random_tokens)
    weights = analysis.attentions if args.layer is None else analysis.attentions[args.layer]
    doc = {"model": spec.to_dict(), "tokens": list(analysis.pieces or analysis.labels),
           "labels": list(analysis.labels), "ids": list(analysis.ids), "weights": _rounded(weights),
           "head_roles": [r.to_dict() for r in analysis.roles]}
    if args.layer is not None:
        doc["layer"] = args.layer
    if hasattr(analysis, "dump_fields"):  # an adapter: weights with the model's own queries, virtual_tokens, adapter
        doc.update(analysis.dump_fields(args.layer))
    if spec.kind == "decoder" and analysis.loss is not None:
        doc["loss"] = analysis.loss
        doc["next_top5"] = [{"token": t, "p": round(p, 6), "id": i} for t, p, i in analysis.next_top]
    doc.update(model_insight(source, args, analysis))  # --sinks, --rollout, --words, --value-norms, --logit-lens
    if args.generate or args.kv:
        doc.update(_generation(source, args))
    return doc


def model_source(name: str):
    """The source `--model` names: a registered one (bundled, trained), else a checkpoint folder
    (a path that exists, or one with a / in it) or a repo id of the local Hugging Face cache."""
    from ..app.models.sources import source_for
    try:
        return source_for(name)
    except ConfigError:
        if not name or not _names_checkpoint(name):
            raise  # a bundled name mistyped: the list of choices
    from ..app.models.checkpoint_source import source_for_folder
    return source_for_folder(name)


def _names_checkpoint(name: str) -> bool:
    from ..core.checkpoints.cache import is_repo_id, repo_folder
    if os.path.lexists(os.path.expanduser(name)) or "/" in name or os.sep in name:
        return True
    return is_repo_id(name) and os.path.isdir(repo_folder(name))  # e.g. "gpt2": models--gpt2


def _generation(source, args) -> dict:
    """Greedy generation and the KV cache check of a pretrained decoder (the app's own forward)."""
    from ..core.learned.analysis import tokenize
    from ..core.learned.generation import run_generation
    model = source.load(args.device or "cpu")  # cached: what the source's analysis loaded
    tokens = (tokenize(model, args.text) if args.text is not None
              else source.tokens_for(model, "", "random", args.seed or 0, args.random_tokens))
    sampler = sampler_of(args)  # None: greedy
    records, cache, generated = run_generation(model, tokens, args.generate, check=args.kv, choose=sampler)
    out = {} if sampler is None else {"sampling": sampling_doc(sampler, model.tokenizer)}
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
