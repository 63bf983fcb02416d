"""Generation speed: SmolLM2 (and an own 0.5 B-shaped checkpoint) stepped float32 vs the compact step.

Issue 26's goal: SmolLM2 generation ≥ 40 tokens/s on 2 cores, with the memory each step reads.
A step at batch 1 reads every weight once, so the bytes a step reads are printed beside its rate.

SmolLM2: "The capital of France is" (5 tokens) then --steps greedy tokens; tokens/s = fed tokens
(prompt and generated: each one a step) / wall time, as benchmarks/learned.py counts them. Rows:

- float32, compact: the app's real driver, `run_generation(..., check=False, precision=...)`
  (top 5, labels and cache bytes every step included); compact = packed weights, each matrix's own
  kind (SmolLM2: "int4" layers = the file's Q4_1 blocks, "int8" output = its Q8_0 embedding);
- step loops (the step and an argmax only) for float32 and every packed kind forced on every
  matrix: int4, int8 (two 4-bit planes), int8-row (torch's 8-bit kernel, one scale per row),
  bfloat16 (F.linear on bfloat16 weights): why the compact step packs as it does.

Each case at 1 and 2 torch threads; --rounds rounds, the cases interleaved in each (A B C A B C);
median, min and max; the load average before and after (2 threads on a busy 2-core machine
wait on each other: compare with the load average). The packing time (at the first compact
generation) is printed too.

--own DIR: the 0.5 B-shaped own checkpoint of benchmarks/own_checkpoint.py (made there when DIR lacks
it), in a fresh process: its load (time, peak RSS over the RSS before) BEFORE any generation, so the
load is the same code as without this module; the packing (time, peak); then float32 and compact
generation interleaved (8 prompt tokens, --own-steps generated).

    python benchmarks/generation.py                       # SmolLM2, a table
    python benchmarks/generation.py --quick               # fewer rounds and steps
    python benchmarks/generation.py --own /tmp/qwen2-0.5b-shaped --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

PROMPT = "The capital of France is"
FORCED = ("int4", "int8", "int8-row", "bfloat16")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def driver_rate(model, tokens, steps: int, precision: str) -> float:
    from explorer.core.learned.generation import run_generation
    start = time.perf_counter()
    records, _, _ = run_generation(model, tokens, steps, check=False, precision=precision)
    return len(records) / (time.perf_counter() - start)


def loop_rate(step, new_cache, ids: list[int], steps: int) -> float:
    """Tokens/s of the bare step: the prompt, then `steps` greedy tokens (argmax only)."""
    import torch
    cache, token = new_cache(), ids[0]
    with torch.inference_mode():
        start = time.perf_counter()
        for pos in range(len(ids) + steps):
            out = step(cache, ids[pos] if pos < len(ids) else token)
            token = int(out["logits"].argmax())
        return (len(ids) + steps) / (time.perf_counter() - start)


def smollm2(rounds: int, steps: int, counts=(1, 2)) -> dict:
    import torch
    from explorer.core.learned import load_model
    from explorer.core.learned.compact import stepping
    from explorer.core.learned.analysis import tokenize
    model = load_model("smollm2-135m")
    w, tokens = model.weights, tokenize(model, PROMPT)
    start = time.perf_counter()
    default = stepping.compact_model(w)
    pack_s = time.perf_counter() - start
    variants = {"float32 step": (w.step, stepping.float32_bytes(w)),
                f"compact step ({' + '.join(default.kinds)})": (default.step, default.nbytes)}
    for kind in FORCED:
        packed = stepping.compact_model(w, kind)
        variants[f"{kind} step"] = (packed.step, packed.nbytes)
    cases = [(name, threads) for threads in counts for name in ("float32", "compact", *variants)]
    times: dict = {case: [] for case in cases}
    for threads in counts:  # warm-up: the first call of each kernel, the measured choice
        torch.set_num_threads(threads)
        for name in ("float32", "compact"):
            driver_rate(model, tokens, 2, name)
    for _ in range(rounds):
        for name, threads in cases:
            torch.set_num_threads(threads)
            if name in ("float32", "compact"):
                times[(name, threads)].append(driver_rate(model, tokens, steps, name))
            else:
                times[(name, threads)].append(loop_rate(variants[name][0], w.new_cache, list(tokens.ids), steps))
    read = {"float32": variants["float32 step"][1], "compact": default.nbytes,
            **{name: b for name, (_, b) in variants.items()}}
    rows = [{"case": name, "threads": threads, "mb_read_per_step": read[name] / 1e6,
             "tokens_per_s": summary(times[(name, threads)])} for name, threads in cases]
    return {"prompt_tokens": len(tokens.ids), "generated": steps, "pack_s": pack_s,
            "compact_kinds": list(default.kinds), "rows": rows}


# -- the own 0.5 B-shaped checkpoint, in a fresh process


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return -1


def _reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def child_own(folder: str, rounds: int, steps: int, threads: int) -> dict:
    import torch
    torch.set_num_threads(threads)
    from explorer.core.checkpoints.load import load_checkpoint
    from explorer.core.learned.compact import stepping
    before = _status("VmRSS")
    _reset_peak()
    start = time.perf_counter()
    model = load_checkpoint(folder, "cpu", dtype="float32")
    out = {"load_s": time.perf_counter() - start, "peak_load_mb": (_status("VmHWM") - before) / 1e6,
           "rss_load_mb": (_status("VmRSS") - before) / 1e6, "threads": threads}
    tokens = model.tokenizer.encode_ids(list(range(100, 108)))
    _reset_peak()
    start = time.perf_counter()
    packed = stepping.compact_model(model.weights)
    out.update(pack_s=time.perf_counter() - start, peak_pack_mb=(_status("VmHWM") - before) / 1e6,
               rss_packed_mb=(_status("VmRSS") - before) / 1e6, kinds=list(packed.kinds),
               mb_read_float32=stepping.float32_bytes(model.weights) / 1e6, mb_read_compact=packed.nbytes / 1e6)
    rates: dict = {"float32": [], "compact": []}
    driver_rate(model, tokens, 1, "compact")
    for _ in range(rounds):
        for name in rates:
            rates[name].append(driver_rate(model, tokens, steps, name))
    out["tokens_per_s"] = {name: summary(v) for name, v in rates.items()}
    return out


def own(folder: Path, rounds: int, steps: int, counts=(1, 2)) -> dict:
    import own_checkpoint  # benchmarks/: it makes the checkpoint
    made = own_checkpoint.build(folder, log=lambda *_: None)
    own_checkpoint.warm_page_cache(folder)
    runs = []
    for threads in counts:
        proc = subprocess.run([sys.executable, __file__, "--child-own", str(folder), "--rounds", str(rounds),
                               "--own-steps", str(steps), "--child-threads", str(threads)],
                              capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"own checkpoint child failed:\n{proc.stderr[-3000:]}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {"built": made.get("built"), "folder": str(folder), "runs": runs}


def print_table(report: dict) -> None:
    print(f"load average before {report['load_average_before']}; {report['cpus']} CPUs; torch {report['torch']}")
    s = report.get("smollm2", {"rows": []})
    if s["rows"]:
        print(f"SmolLM2: {s['prompt_tokens']} prompt tokens + {s['generated']} generated; compact kinds "
              f"{' + '.join(s['compact_kinds'])} (layers + output), packed in {s['pack_s']:.2f} s at the first use")
        print(f"{'case':<30}{'threads':>8}{'MB/step':>10}{'tokens/s median':>17}{'min':>8}{'max':>8}")
    for r in s["rows"]:
        t = r["tokens_per_s"]
        print(f"{r['case']:<30}{r['threads']:>8}{r['mb_read_per_step']:>10.1f}{t['median']:>17.1f}"
              f"{t['min']:>8.1f}{t['max']:>8.1f}")
    for run in report.get("own", {}).get("runs", []):
        print(f"own 0.5 B-shaped, {run['threads']} thread(s): load {run['load_s']:.2f} s, peak {run['peak_load_mb']:.0f} MB "
              f"(RSS {run['rss_load_mb']:.0f} MB); packing at the first generation {run['pack_s']:.2f} s, "
              f"RSS {run['rss_packed_mb']:.0f} MB, peak {run['peak_pack_mb']:.0f} MB; "
              f"kinds {' + '.join(run['kinds'])}")
        for name, t in run["tokens_per_s"].items():
            read = run[f"mb_read_{name}"]
            print(f"    {name:<10} {read:8.0f} MB/step  {t['median']:6.2f} tokens/s (min {t['min']:.2f}, max {t['max']:.2f})")
    print(f"load average after {report['load_average_after']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 rounds, 16 steps")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=32, help="SmolLM2's generated tokens a run")
    parser.add_argument("--own", help="the 0.5 B-shaped checkpoint's folder (made when missing)")
    parser.add_argument("--own-steps", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--threads", default="1,2", help="torch thread counts to run (default 1,2)")
    parser.add_argument("--no-smollm2", action="store_true", help="only the own checkpoint (with --own)")
    parser.add_argument("--child-threads", type=int, default=2, help=argparse.SUPPRESS)
    parser.add_argument("--child-own", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_own:
        print(json.dumps(child_own(args.child_own, args.rounds, args.own_steps, args.child_threads)))
        return 0
    rounds, steps = (3, 16) if args.quick else (args.rounds, args.steps)
    counts = tuple(int(n) for n in args.threads.split(","))
    import torch
    report = {"load_average_before": loadavg(), "cpus": os.cpu_count(), "torch": torch.__version__}
    if not args.no_smollm2:
        report["smollm2"] = smollm2(rounds, steps, counts)
    if args.own:
        sys.path.insert(0, str(Path(__file__).parent))
        report["own"] = own(Path(args.own), 2 if args.quick else 3, args.own_steps, counts)
    report["load_average_after"] = loadavg()
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
