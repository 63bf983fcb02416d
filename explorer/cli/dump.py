"""`attention-explorer dump`: one computation printed as JSON or text (numpy only, no Qt)."""

from __future__ import annotations

import argparse
import json

from .insight import course_insight
from .learned import add_model_dump_options, run_model_dump
from .options import add_config_options, add_language_option, config_from_args
from .output import print_out


def add_dump_parser(sub) -> argparse.ArgumentParser:
    """Register the `dump` sub-command on the main parser's sub-parsers."""
    dump = sub.add_parser("dump", help="print one computation as JSON or text")
    add_config_options(dump)
    dump.add_argument("--format", choices=("json", "text"), default="json")
    dump.add_argument("--kv", action="store_true", help="add the KV-cache step-through")
    add_language_option(dump, "--format text")
    add_model_dump_options(dump)
    dump.set_defaults(run=run_dump)
    return dump


def run_dump(args: argparse.Namespace) -> int:
    if args.model is not None:  # `--model ""` is an unknown model (one line, exit 2), not the random one
        return run_model_dump(args)
    from ..app.report import result_to_dict, result_to_text
    from ..core import forward, run_kv_cache
    config = config_from_args(args)
    result = forward(config)
    insight = course_insight(result, args)  # JSON keys of --sinks, --rollout, --words, --value-norms
    trace = run_kv_cache(config) if args.kv else None
    if args.format == "text":
        from ..app.i18n import set_current_language
        set_current_language(args.lang)
        try:
            print_out(result_to_text(result, trace))
        finally:
            set_current_language("en")
    else:
        print_out(json.dumps({**result_to_dict(result, trace), **insight}, ensure_ascii=False))
    return 0
