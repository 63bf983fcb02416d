"""The CUDA figures of docs/benchmarks.md, in one run on a lent GPU machine (benchmarks/gpu_check.sh).

Qt-free (the GPU machine's Python has torch, transformers, tokenizers and safetensors, no PySide6),
and needs no download: every model is built here from random weights.

- compute: the course forward (explorer.core.forward) on torch/cuda float32 for the latency
  cases of benchmarks/latency.py and 1024×1024×16: median ms of the whole call ("cold": new
  weights drawn and uploaded each time; "toggle": cached weights, scaling / mask changed), and
  the largest difference from the numpy float64 reference;
- generation: a random decoder of SmolLM2-135M's shape (30 layers, 9 heads, 3 KV heads, d 576,
  vocab 49152) through the native forward's real KV cache (core/checkpoints/decoders.py): tokens
  per second over 64 greedy steps, and how many greedy tokens the CPU's run agrees with;
- own checkpoint: the 0.5 B Qwen2-shaped checkpoint of benchmarks/own_checkpoint.py built on
  disk, opened on cuda (load s), its 64 / 256-token pictures (analyse s), 32 generated tokens.

    python3 benchmarks/gpu_check.py [--json FILE] [--quick]

Each section prints its own lines; a section that fails prints FAILED and the error and the
others still run. Figures are medians; the machine and `nvidia-smi`'s GPU are printed first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

COMPUTE_CASES = [(4, 8, 2), (16, 64, 4), (32, 256, 8), (128, 512, 8), (512, 512, 16), (1024, 1024, 16)]
SMOLLM2 = {"model_type": "llama", "hidden_size": 576, "num_hidden_layers": 30, "num_attention_heads": 9,
           "num_key_value_heads": 3, "intermediate_size": 1536, "vocab_size": 49152,
           "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "rope_theta": 100000.0,
           "tie_word_embeddings": True, "hidden_act": "silu"}


def _sync():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _median_ms(call, reps: int) -> float:
    samples = []
    for _ in range(reps):
        _sync()
        start = time.perf_counter()
        call()
        _sync()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def compute_section(quick: bool, device: str) -> list[dict]:
    import numpy as np
    from explorer.core import AttentionConfig, forward
    rows = []
    for n, d, h in COMPUTE_CASES:
        base = AttentionConfig(tokens=tuple(f"t{i}" for i in range(n)), d_model=d, n_heads=h, init="unit",
                               backend="torch", device=device, dtype="float32")
        forward(base.replace(seed=0))  # warm-up: CUDA context, kernels, allocator
        reps = 3 if quick else (15 if n <= 128 else 7)
        seeds = iter(range(1, 10_000))
        cold = _median_ms(lambda: forward(base.replace(seed=next(seeds))), reps)
        cached = base.replace(seed=1)
        forward(cached)
        flips = iter(range(10_000))
        toggle = _median_ms(lambda: forward(cached.replace(causal=next(flips) % 2 == 0)), reps)
        ref = forward(cached.replace(backend="numpy", device="cpu", dtype="float64"))
        got = forward(cached)
        rows.append({"n": n, "d_model": d, "heads": h, "cold_ms": round(cold, 2), "toggle_ms": round(toggle, 2),
                     "backend_ms": round(got.elapsed_s * 1e3, 2), "device": got.device,
                     "max_diff": float(np.abs(got.weights - ref.weights).max())})
        print(f"  compute {n}x{d}x{h}: cold {cold:.2f} ms, toggle {toggle:.2f} ms, "
              f"max |cuda - float64| {rows[-1]['max_diff']:.2e} ({got.device})", flush=True)
    return rows


def _random_decoder(config: dict, device: str, seed: int = 0):
    """config's Llama-shaped native decoder with N(0, 0.02) weights (norms 1), built on `device`."""
    import torch
    from explorer.core.checkpoints.families import builders
    d, layers, f, v = (config[k] for k in ("hidden_size", "num_hidden_layers", "intermediate_size", "vocab_size"))
    kv = config["num_key_value_heads"] * d // config["num_attention_heads"]
    gen = torch.Generator().manual_seed(seed)

    def draw(*shape):
        return (torch.randn(shape, generator=gen) * 0.02).to(device)

    tensors = {"model.embed_tokens.weight": draw(v, d), "model.norm.weight": torch.ones(d, device=device)}
    for i in range(layers):
        p = f"model.layers.{i}."
        tensors.update({p + "input_layernorm.weight": torch.ones(d, device=device),
                        p + "post_attention_layernorm.weight": torch.ones(d, device=device),
                        p + "self_attn.q_proj.weight": draw(d, d), p + "self_attn.k_proj.weight": draw(kv, d),
                        p + "self_attn.v_proj.weight": draw(kv, d), p + "self_attn.o_proj.weight": draw(d, d),
                        p + "mlp.gate_proj.weight": draw(f, d), p + "mlp.up_proj.weight": draw(f, d),
                        p + "mlp.down_proj.weight": draw(d, f)})
    return builders()["llama"](config, tensors)


def _greedy(model, prompt: list[int], steps: int) -> tuple[list[int], float]:
    """Greedy tokens through the KV cache and the seconds the `steps` new tokens took."""
    import torch
    with torch.inference_mode():
        cache = model.new_cache()
        for token in prompt[:-1]:
            model.step(cache, token)
        token, out = prompt[-1], []
        _sync()
        start = time.perf_counter()
        for _ in range(steps):
            token = int(model.step(cache, token)["logits"].argmax())
            out.append(token)
        _sync()
    return out, time.perf_counter() - start


def generation_section(quick: bool, device: str) -> dict:
    steps = 16 if quick else 64
    prompt = [1, 504, 3301, 288, 1127, 30]
    gpu = _random_decoder(SMOLLM2, device)
    _greedy(gpu, prompt, 4)  # warm-up
    tokens, seconds = _greedy(gpu, prompt, steps)
    cpu_tokens, cpu_seconds = _greedy(_random_decoder(SMOLLM2, "cpu"), prompt, steps)
    agree = next((i for i, (a, b) in enumerate(zip(tokens, cpu_tokens)) if a != b), steps)
    weights = sum(t.numel() * t.element_size() for b in gpu.blocks for t in b.values())
    weights += gpu.output.numel() * gpu.output.element_size()  # the unembedding, read every step
    out = {"steps": steps, "tokens_per_s": round(steps / seconds, 1), "cpu_tokens_per_s": round(steps / cpu_seconds, 1),
           "greedy_equal_to_cpu_for": agree, "bytes_read_per_step_mb": round(weights / 1e6, 1)}
    print(f"  SmolLM2-shaped generation on {device}: {out['tokens_per_s']} tokens/s "
          f"(this machine's CPU: {out['cpu_tokens_per_s']}); greedy tokens equal to the CPU's for "
          f"{agree}/{steps}; {out['bytes_read_per_step_mb']} MB of weights read per step (blocks + unembedding)", flush=True)
    return out


def own_checkpoint_section(quick: bool, device: str) -> dict:
    import own_checkpoint
    from explorer.app.models.checkpoint_source import source_for_folder
    from explorer.core.checkpoints.load import load_checkpoint
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "qwen2-0.5b-shaped"
        start = time.perf_counter()
        own_checkpoint.build(folder, log=lambda *a, **k: None)
        built = time.perf_counter() - start
        passages = own_checkpoint.texts(folder)
        start = time.perf_counter()
        load_checkpoint(str(folder), device)
        out = {"build_s": round(built, 2), "load_s": round(time.perf_counter() - start, 2)}
        source = source_for_folder(folder)
        for n in (64,) if quick else (64, 256):
            source.analyse(device, passages[n])  # first call: kernels, allocator
            start = time.perf_counter()
            analysis = source.analyse(device, passages[n])
            out[f"analyse_{n}_s"] = round(time.perf_counter() - start, 3)
            out[f"analyse_{n}_device"] = str(analysis.device)
        start = time.perf_counter()
        run = source.generate(device, passages[64], 32)
        out["generate_32_s"] = round(time.perf_counter() - start, 2)
        out["generated"] = len(run.generated)
    print(f"  own 0.5 B checkpoint on {device}: {out}", flush=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the figures as one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and tokens")
    parser.add_argument("--device", default="cuda", help="cuda (default); cpu: a dry run of the script here")
    args = parser.parse_args(argv)
    import torch
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("no CUDA device: nothing to measure")
        return 2
    gpu = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "none (dry run)"
    summary = {"torch": torch.__version__, "device": args.device, "gpu": gpu, "cpus": os.cpu_count(),
               "load_average": os.getloadavg()[0]}
    print(f"gpu_check: {summary}", flush=True)
    failed = []
    for name, section in (("compute", compute_section), ("generation", generation_section),
                          ("own_checkpoint", own_checkpoint_section)):
        start = time.perf_counter()
        try:
            summary[name] = section(args.quick, args.device)
        except Exception as exc:  # one section's failure must not hide the others' figures
            failed.append(name)
            summary[name] = {"failed": f"{type(exc).__name__}: {exc}"}
            print(f"  {name}: FAILED {type(exc).__name__}: {exc}", flush=True)
            traceback.print_exc()
        print(f"  ({name}: {time.perf_counter() - start:.1f} s)", flush=True)
    summary["failed"] = failed
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    print("gpu_check: " + ("all sections ran" if not failed else f"FAILED: {', '.join(failed)}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
