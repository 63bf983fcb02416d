"""Peak memory (RSS) of the largest exports: PNG and CSV, one fresh process per case.

Each case runs `python -m explorer export ...` (or a snippet) as a child process of its own and reads the
child's peak resident set size (ru_maxrss, from os.wait4) and its wall time. The goal of
issue 10 is a peak under 1 GiB for every allowed size.

Cases (1024 tokens is the largest sentence, d_model 2048 the widest model, scale 8 and
width 16384 the largest images the CLI allows):

- png_heads_x8:    16 heads at 1024 tokens, d_model 2048, `--what heads --scale 8`
- png_window_16k:  the whole window at 1024 tokens, `--what window --width 16384`
- csv_heads:       every weight of 16 heads at 1024 tokens (16.8 M rows, ~700 MB)
- forward_only:    the forward pass of that config alone (no Qt, no export), for reference

    python benchmarks/export_memory.py                 # a table
    python benchmarks/export_memory.py --json          # one JSON object: case -> MiB
    python benchmarks/export_memory.py --only csv_heads png_heads_x8
    python benchmarks/export_memory.py --tokens 256    # smaller (a smoke run)

Other processes on the machine do not change the peaks much but do change the times;
the load average is printed with the table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_MIB = 1024


def cases(tokens: int, d_model: int, heads: int) -> dict[str, list[str]]:
    sentence = " ".join(f"t{i}" for i in range(tokens))
    config = ["--tokens", sentence, "--d-model", str(d_model), "--heads", str(heads), "--seed", "1"]
    forward_only = ("from explorer.core import AttentionConfig, forward; "
                    f"forward(AttentionConfig(tokens=tuple('{sentence}'.split()), d_model={d_model}, "
                    f"n_heads={heads}, seed=1))")
    return {
        "forward_only": ["-c", forward_only],
        "png_heads_x8": ["-m", "explorer", "export", *config, "--what", "heads", "--format", "png", "--scale", "8"],
        "png_window_16k": ["-m", "explorer", "export", *config, "--what", "window", "--format", "png",
                           "--width", "16384"],
        "csv_heads": ["-m", "explorer", "export", *config, "--what", "heads", "--format", "csv"],
    }


def run_case(args: list[str]) -> dict:
    """Peak RSS (MiB), wall seconds, exit code and output size of one child process."""
    with tempfile.TemporaryDirectory() as folder:
        if "export" in args:
            args = [*args, "--out", folder]
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_SETTINGS_DIR=folder)
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], cwd=REPO, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace").strip()
        proc.stderr.close()
        proc.returncode = os.waitstatus_to_exitcode(status)
        written = sum(p.stat().st_size for p in Path(folder).iterdir() if p.is_file())
    return {"peak_mib": usage.ru_maxrss / 1024, "wall_s": wall, "rc": proc.returncode,
            "file_mb": written / 1e6, "error": err.splitlines()[-1] if err and proc.returncode else ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", nargs="*", metavar="CASE", help="run only these cases")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--d-model", type=int, default=2048)
    parser.add_argument("--heads", type=int, default=16)
    args = parser.parse_args(argv)
    results = {}
    for name, case_args in cases(args.tokens, args.d_model, args.heads).items():
        if args.only and name not in args.only:
            continue
        results[name] = run_case(case_args)
        if not args.json:
            r = results[name]
            verdict = "under" if r["peak_mib"] < GOAL_MIB else "OVER"
            failed = "" if r["rc"] == 0 else f"  exit {r['rc']}: {r['error']}"
            print(f"{name:>16} {r['peak_mib']:9.0f} MiB {r['wall_s']:7.1f} s {r['file_mb']:9.1f} MB "
                  f"{verdict} {GOAL_MIB} MiB{failed}", flush=True)
    if args.json:
        print(json.dumps({k: round(v["peak_mib"], 1) for k, v in results.items()}))
    else:
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
              f"({args.tokens} tokens, d_model {args.d_model}, {args.heads} heads)")
    return 0 if all(r["rc"] == 0 for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
