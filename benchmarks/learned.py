"""Pretrained models on the CPU: load (cold, warm), sentence -> attention, generation, memory.

- load cold: the first `load_model` in a fresh process (imports of torch and the readers excluded,
  the weight files likely in the OS page cache already); warm: the same load again in that process
  (bypassing the model cache), i.e. what a second device or a reload costs.
- sentence -> attention: n token ids (random, seeded; the encoder's specials around them) ->
  every layer's attention weights + head roles, for n = 16, 64, 256 (what a sentence edit costs
  before drawing). Tokenizing a sentence is timed separately.
- generation: SmolLM2 greedy steps with the KV cache (no full-pass check), tokens per second,
  for 1 and 2 torch threads.
- RSS: resident memory of a fresh process after the load minus before it (MiB).

    python benchmarks/learned.py            # a table
    python benchmarks/learned.py --json     # one JSON object
    python benchmarks/learned.py --quick    # fewer repetitions
    python benchmarks/learned.py --threads 1   # one torch thread (loads, attention; generation runs both)

Other processes on the machine skew the medians: the load average before and after is printed.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

SIZES = (16, 64, 256)
SENTENCE = "나는 학교에 버스로 갔다. The quick brown fox jumps over the lazy dog."


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_load(name: str) -> dict:
    """Run in a fresh process: cold and warm load time, RSS added by the model."""
    import torch  # noqa: F401  (imports are not part of the load)
    import safetensors.numpy  # noqa: F401
    import tokenizers  # noqa: F401
    from explorer.core.learned import loader
    before = rss_mib()
    start = time.perf_counter()
    loader.load_model(name)
    cold = time.perf_counter() - start
    after = rss_mib()
    start = time.perf_counter()
    loader._load.__wrapped__(name, "cpu")
    warm = time.perf_counter() - start
    return {"cold_s": cold, "warm_s": warm, "rss_mib": after - before}


def median_ms(fn, reps: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def attention_times(name: str, reps: int) -> dict:
    import numpy as np
    from explorer.core.learned import find_repeat, load_model, score_heads
    from explorer.core.learned.analysis import run, tokenize
    model = load_model(name)
    out = {"tokenize_ms": median_ms(lambda: tokenize(model, SENTENCE), reps)}
    rng = np.random.default_rng(0)
    for n in SIZES:
        ids = rng.integers(1000, 20000, size=n).tolist()
        if not model.is_decoder:
            first, last = model.tokenizer.special_ids()
            ids = [first, *ids[:n - 2], last]
        tokens = model.tokenizer.encode_ids(ids)

        def picture():
            result = run(model, tokens)
            score_heads(result.attentions, causal=model.is_decoder, repeat=find_repeat(tokens.ids))
        out[f"attention_{n}_ms"] = median_ms(picture, reps)
    return out


def generation_rate(steps: int) -> dict:
    import torch
    from explorer.core.learned import load_model
    from explorer.core.learned.analysis import tokenize
    from explorer.core.learned.generation import run_generation
    model = load_model("smollm2-135m")
    tokens = tokenize(model, "The capital of France is")
    rates = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        run_generation(model, tokens, 4, check=False)  # warm-up
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            records, _, _ = run_generation(model, tokens, steps, check=False)
            runs.append(len(records) / (time.perf_counter() - start))
        rates[f"tokens_per_s_{threads}_threads"] = statistics.median(runs)
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's own choice)")
    parser.add_argument("--child-load", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.threads:
        import torch
        torch.set_num_threads(args.threads)
    if args.child_load:
        print(json.dumps(child_load(args.child_load)))
        return 0
    from explorer.core.learned import MODELS, is_installed
    reps = 3 if args.quick else 7
    threads = ["--threads", str(args.threads)] if args.threads else []
    import torch
    report = {"load_average_before": os.getloadavg(), "torch_threads": torch.get_num_threads(),
              "cpus": os.cpu_count(), "models": {}}
    for name, spec in MODELS.items():
        if not is_installed(spec):
            report["models"][name] = {"skipped": f"not installed ({spec.install_command})"}
            continue
        loads = [json.loads(subprocess.run(
            [sys.executable, __file__, "--child-load", name, *threads], capture_output=True, text=True,
            check=True).stdout) for _ in range(1 if args.quick else 3)]
        row = {key: statistics.median(d[key] for d in loads) for key in loads[0]}
        row.update(attention_times(name, reps))
        report["models"][name] = row
    if is_installed(MODELS["smollm2-135m"]):
        report["generation"] = generation_rate(16 if args.quick else 32)
    report["load_average_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0


def print_table(report: dict) -> None:
    print(f"load average before {report['load_average_before']}; "
          f"torch threads {report['torch_threads']} of {report['cpus']} CPUs")
    cols = ["cold_s", "warm_s", "rss_mib", "tokenize_ms"] + [f"attention_{n}_ms" for n in SIZES]
    print(f"{'model':<14}" + "".join(f"{c:>16}" for c in cols))
    for name, row in report["models"].items():
        if "skipped" in row:
            print(f"{name:<14} {row['skipped']}")
            continue
        print(f"{name:<14}" + "".join(f"{row[c]:>16.2f}" for c in cols))
    for key, value in report.get("generation", {}).items():
        print(f"SmolLM2 generation with the KV cache: {key} = {value:.1f}")
    print(f"load average after {report['load_average_after']}")


if __name__ == "__main__":
    sys.exit(main())
