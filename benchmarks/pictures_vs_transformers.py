"""Text -> pictures against transformers' eager forward on the same weights, side by side (issue 26).

For MiniLM and SmolLM2 (the bundled models, loaded as the app loads them) at 16 / 64 / 256 tokens:

- app: what the window computes before drawing a learned model's heads: `analysis_of` (the forward,
  every layer's attention as numpy, the decoder's next-token top 5 and loss, every head's role)
  and the first layer's `layer_picture` (per-row entropy and argmax).
- transformers: BertModel / LlamaForCausalLM built from the SAME tensors (MiniLM: the package's own
  safetensors; SmolLM2: the app's dequantised tensors, q/k un-permuted back to Hugging Face's
  order, as tests/learned/test_smollm2.py builds it), float32, attn_implementation="eager",
  forward with output_attentions=True under inference_mode. The forward only: no roles.

Each contender runs in its own process (a worker, started once, fed one repetition at a time),
and the repetitions are interleaved (app, transformers, app, transformers, ...), so a busy machine
slows both alike. --baseline PATH adds a third contender: the app of another checkout (e.g. a
`git worktree` of the commit before a change), interleaved with the other two. The same run checks
that the app's attentions equal transformers' (max |Δ| over every layer, head, query and key).

    python benchmarks/pictures_vs_transformers.py                 # a table
    python benchmarks/pictures_vs_transformers.py --json          # one JSON object
    python benchmarks/pictures_vs_transformers.py --threads 1     # one torch thread in every worker
    python benchmarks/pictures_vs_transformers.py --baseline /tmp/base --reps 9

Medians, min and max of wall time (and of the worker's CPU time, less skewed by other processes
when one thread runs) and the load average before and after are printed.
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

HERE = Path(__file__).resolve()
SIZES = (16, 64, 256)
MODELS = ("minilm-l6", "smollm2-135m")
TEXT = ("The quick brown fox jumps over the lazy dog. Attention lets every token read every other "
        "token; a head that reads the previous token is easy to spot. 나는 학교에 버스로 갔다. ")


# ----- in a worker process -------------------------------------------------------------------
def tokens_of(model, n: int):
    """`n` of the model's tokens of TEXT repeated (its specials kept), as the app's Tokens."""
    ids = list(model.tokenizer(TEXT * (1 + n // 8)).ids)
    ids = ids[:n] if model.is_decoder else [*ids[:n - 1], ids[-1]]  # [CLS] ... [SEP]
    return model.tokenizer.encode_ids(ids)


def hf_llama(w):
    """LlamaForCausalLM sharing the app's tensors (q/k rows back in Hugging Face's order)."""
    import torch
    import transformers
    config = transformers.LlamaConfig(
        vocab_size=w.vocab, hidden_size=w.d_model, intermediate_size=w.ffn, num_hidden_layers=len(w.layers),
        num_attention_heads=w.heads, num_key_value_heads=w.kv_heads, rms_norm_eps=w.eps,
        rope_theta=w.rope_theta, tie_word_embeddings=True, max_position_embeddings=2048,
        attn_implementation="eager")
    names = {"attn_norm": "input_layernorm", "q": "self_attn.q_proj", "k": "self_attn.k_proj",
             "v": "self_attn.v_proj", "o": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "gate": "mlp.gate_proj", "up": "mlp.up_proj", "down": "mlp.down_proj"}
    state = {"model.embed_tokens.weight": w.embed, "model.norm.weight": w.out_norm, "lm_head.weight": w.output}
    for i, p in enumerate(w.layers):
        for key, name in names.items():
            t = p[key]
            if key in ("q", "k"):  # llama.cpp's interleaved pairs -> halves
                heads = w.heads if key == "q" else w.kv_heads
                out, d_in = t.shape
                t = t.reshape(heads, out // heads // 2, 2, d_in).transpose(1, 2).reshape(out, d_in)
            state[f"model.layers.{i}.{name}.weight"] = t
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(config)
    model.load_state_dict(state, assign=True)
    model.model.rotary_emb = type(model.model.rotary_emb)(config=config)  # its buffers were on meta
    return model.eval()


def hf_bert(model):
    import warnings

    import transformers
    from explorer.core.learned import weights_path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return transformers.BertModel.from_pretrained(str(weights_path(model.spec).parent), local_files_only=True,
                                                      attn_implementation="eager").eval()


def worker(kind: str, name: str) -> None:
    """Answer one JSON line per request line: {"n": 64} -> one timed run; {"check": 64} -> max |Δ|."""
    import numpy as np
    import torch
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from explorer.app.models.learned import analysis_of, layer_picture
    from explorer.core.learned import load_model
    model = load_model(name)
    hf = None if kind == "app" else hf_llama(model.weights) if model.is_decoder else hf_bert(model)
    tokens = {n: tokens_of(model, n) for n in SIZES}

    def app(n: int):
        analysis = analysis_of(model, model.spec, tokens[n], TEXT, "text")
        layer_picture(analysis, 0)
        return analysis.attentions

    def theirs(n: int):
        with torch.inference_mode():
            out = hf(torch.tensor([tokens[n].ids]), output_attentions=True)
        return out.attentions

    run = app if hf is None else theirs
    for n in SIZES:
        run(n)  # warm-up
    print(json.dumps({"ready": True, "threads": torch.get_num_threads()}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "check" in request:
            n = request["check"]
            expected = torch.stack(theirs(n))[:, 0].numpy()  # (layers, heads, n, n)
            print(json.dumps({"max_diff": float(np.abs(app(n) - expected).max())}), flush=True)
            continue
        wall, cpu = time.perf_counter(), time.process_time()
        run(request["n"])
        print(json.dumps({"ms": (time.perf_counter() - wall) * 1000,
                          "cpu_ms": (time.process_time() - cpu) * 1000}), flush=True)


# ----- the parent: start the workers, interleave them --------------------------------------------
class Worker:
    def __init__(self, kind: str, name: str, root: Path, threads: int | None):
        command = [sys.executable, str(HERE), "--worker", kind, "--model", name, "--root", str(root)]
        if threads:
            command += ["--threads", str(threads)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = self.answer()

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self.answer()

    def answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a worker ended (exit status {self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def compare(name: str, reps: int, threads: int | None, baseline: Path | None) -> dict:
    roots = {"app": HERE.parents[1], "transformers": HERE.parents[1]}
    if baseline is not None:
        roots["baseline app"] = baseline
    workers = {label: Worker("transformers" if label == "transformers" else "app", name, root, threads)
               for label, root in roots.items()}
    try:
        row = {"threads": workers["app"].ready["threads"], "sizes": {}}
        for n in SIZES:
            times = {label: [] for label in workers}
            for _ in range(reps):
                for label, w in workers.items():  # interleaved: A B (C) A B (C) ...
                    times[label].append(w.ask({"n": n}))
            row["sizes"][n] = {label: {"wall_ms": summary([t["ms"] for t in ts]),
                                       "cpu_ms": summary([t["cpu_ms"] for t in ts])}
                               for label, ts in times.items()}
            row["sizes"][n]["max_abs_diff"] = workers["transformers"].ask({"check": n})["max_diff"]
        return row
    finally:
        for w in workers.values():
            w.close()


def print_table(report: dict) -> None:
    print(f"load average before {report['load_average_before']}; {report['cpus']} CPUs; "
          f"{report['reps']} interleaved repetitions; wall ms median [min–max] (CPU ms median)")
    for name, row in report["models"].items():
        if "skipped" in row:
            print(f"{name}: {row['skipped']}")
            continue
        print(f"{name} (torch threads {row['threads']})")
        for n, cell in row["sizes"].items():
            parts = [f"{label} {t['wall_ms']['median']:7.1f} [{t['wall_ms']['min']:.1f}–{t['wall_ms']['max']:.1f}]"
                     f" ({t['cpu_ms']['median']:.1f})" for label, t in cell.items() if label != "max_abs_diff"]
            ratio = cell["app"]["wall_ms"]["median"] / cell["transformers"]["wall_ms"]["median"]
            print(f"  n={n:>3}: " + "  ".join(parts) + f"  app/transformers {ratio:.2f}"
                  f"  max|Δ| {cell['max_abs_diff']:.1e}")
    print(f"load average after {report['load_average_after']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--threads", type=int, help="torch threads in every worker (default: torch's own choice)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--baseline", type=Path, help="another checkout whose app runs as a third contender")
    parser.add_argument("--worker", choices=("app", "transformers"), help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=HERE.parents[1], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        sys.path.insert(0, str(args.root.resolve()))  # that checkout's explorer package
        if args.threads:
            import torch
            torch.set_num_threads(args.threads)
        worker(args.worker, args.model)
        return 0
    sys.path.insert(0, str(HERE.parents[1]))
    from explorer.core.learned import get_spec, is_installed
    report = {"load_average_before": os.getloadavg(), "cpus": os.cpu_count(), "reps": args.reps, "models": {}}
    for name in args.models:
        spec = get_spec(name)
        report["models"][name] = (compare(name, args.reps, args.threads, args.baseline) if is_installed(spec)
                                  else {"skipped": f"not installed ({spec.install_command})"})
    report["load_average_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
