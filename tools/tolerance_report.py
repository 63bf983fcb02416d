"""Measured margins of the tests' float comparisons (tests/numeric.py), over several machine settings.

Run the suite once per setting with ATTENTION_EXPLORER_TOLERANCE_LOG set, then

    python tools/tolerance_report.py default=/tmp/tol-default.jsonl avx2=/tmp/tol-avx2.jsonl 1t=/tmp/tol-1t.jsonl

prints one row per comparison site (file:line): how often it ran, its dtype and largest tolerance,
the largest difference measured in each setting, and the smallest margin (tolerance / difference)
seen anywhere. Truth-value checks (`close()`, mostly `assert not close(...)`) are left out. `--markdown` prints the table for docs; `--tight N` lists only sites whose margin is
under N (default: every site).
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict


def read(label_paths: list[str]) -> tuple[list[str], dict]:
    """{where: {"dtype", "calls", "tolerance", "margin", label: max_diff}} from label=path pairs."""
    labels, sites = [], defaultdict(lambda: {"calls": 0, "tolerance": 0.0, "margin": math.inf})
    for item in label_paths:
        label, _, path = item.partition("=")
        labels.append(label)
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r.get("check") == "truth":  # close(): `assert not close(...)` wants a difference
                    continue
                site = sites[r["where"]]
                site["dtype"] = r["dtype"]
                site["calls"] += 1
                site["tolerance"] = max(site["tolerance"], r["tolerance"])
                site[label] = max(site.get(label, 0.0), r["max_diff"])
                margin = r["tolerance"] / r["max_diff"] if r["max_diff"] > 0 else math.inf
                site["margin"] = min(site["margin"], margin)
    return labels, dict(sites)


def fmt(x: float) -> str:
    return "—" if x is None else ("0" if x == 0 else ("inf" if math.isinf(x) else f"{x:.2g}"))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("logs", nargs="+", help="LABEL=PATH of a tolerance log")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--tight", type=float, default=math.inf, help="only sites with margin below this")
    args = p.parse_args(argv)
    labels, sites = read(args.logs)
    head = ["where", "dtype", "calls", "tolerance", *labels, "least margin"]
    rows = [[where, s["dtype"], str(s["calls"]), fmt(s["tolerance"]),
             *(fmt(s.get(label)) for label in labels), fmt(s["margin"])]
            for where, s in sorted(sites.items(), key=lambda kv: kv[1]["margin"])
            if s["margin"] < args.tight]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        for row in [head, *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    least = min((s["margin"] for s in sites.values()), default=math.inf)
    print(f"\n{len(sites)} sites, {sum(s['calls'] for s in sites.values())} comparisons; "
          f"least margin {fmt(least)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
