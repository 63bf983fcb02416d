"""How long one LoRA fine-tuning step takes: the tiny model, and a 135 M-parameter decoder.

1. The Train tab's tiny model (the recipe's sizes: 2 layers, 4 heads, d_model 64, batch 64 ×
   32 tokens): `FineTune.step` of core.training.lora_tune (LoRA r = 4 on q, v; AdamW on A, B), at
   1 torch thread (the app's default) and at 2; and the full fine-tune's step beside it.
2. A random Llama-shaped decoder of SmolLM2-135M's sizes (30 layers, d 576, 9 heads, 3 KV heads,
   MLP 1536, vocab 49 152, tied embeddings: 134.5 M parameters), built here with random weights,
   no file needed:
   - the app's native decoder (core.checkpoints.decoders.Decoder, via build_llama): frozen
     weights, LoRA r = 8 (α 16) on q and v of every layer, the adapted weight W + (α/r)·B·A
     formed in the step (autograd to A and B), next-token loss on one sequence, AdamW on A, B;
   - for comparison, transformers' LlamaForCausalLM of the same sizes with peft's LoRA on
     q_proj, v_proj (same r, α), the same sequence, AdamW on peft's trainable parameters.
   Both at 2 torch threads (the machine's 2 cores).

Per case: warm-up steps, then the median (and min, max) of the timed steps in ms. `uptime` is
printed before and after: on a shared machine the numbers move with the load.

    python benchmarks/lora_step.py                      # a short run
    python benchmarks/lora_step.py --tiny-steps 50 --large-steps 5 --seq 128 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

SMOL = {"hidden_size": 576, "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
        "intermediate_size": 1536, "vocab_size": 49152, "max_position_embeddings": 8192,
        "rms_norm_eps": 1e-5, "rope_theta": 100000.0, "tie_word_embeddings": True, "hidden_act": "silu"}
RANK, ALPHA = 8, 16


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except OSError:
        return "uptime unavailable"


def summary(times: list[float]) -> dict:
    ms = [1000 * t for t in times]
    return {"median_ms": round(statistics.median(ms), 2), "min_ms": round(min(ms), 2),
            "max_ms": round(max(ms), 2), "steps": len(ms)}


def timed(step, warmup: int, steps: int) -> dict:
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return summary(times)


# ----- the tiny model ----------------------------------------------------------------------------
def tiny(threads: int, steps: int) -> dict:
    import torch
    from explorer.core.training import TrainConfig, build_model
    from explorer.core.training.lora_config import LoraConfig
    from explorer.core.training.lora_tune import FineTune
    torch.set_num_threads(threads)
    base = build_model(TrainConfig())
    tune = FineTune(base, LoraConfig(rank=4, targets=("q", "v"), steps=10**5, log_every=10**5,
                                     snapshot_every=10**5, compare_full=True), threads=threads)
    counts = tune.parameter_counts()
    return {"case": f"tiny model, {threads} thread(s)",
            "lora": timed(lambda: tune.lora.step(1), 3, steps),
            "full": timed(lambda: tune.full.step(1), 3, steps),
            "trainable": counts["trainable"], "total": counts["total"]}


# ----- 135 M: the native decoder -----------------------------------------------------------------
def random_tensors(seed: int = 0) -> dict:
    """Llama checkpoint tensors of SMOL's sizes, N(0, 0.02) (norms 1)."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    d, ffn, v = SMOL["hidden_size"], SMOL["intermediate_size"], SMOL["vocab_size"]
    dkv = d // SMOL["num_attention_heads"] * SMOL["num_key_value_heads"]

    def w(*shape):
        return torch.randn(*shape, generator=gen) * 0.02

    t = {"model.embed_tokens.weight": w(v, d), "model.norm.weight": torch.ones(d)}
    for i in range(SMOL["num_hidden_layers"]):
        a, m = f"model.layers.{i}.self_attn.", f"model.layers.{i}.mlp."
        t.update({f"model.layers.{i}.input_layernorm.weight": torch.ones(d),
                  f"model.layers.{i}.post_attention_layernorm.weight": torch.ones(d),
                  a + "q_proj.weight": w(d, d), a + "k_proj.weight": w(dkv, d), a + "v_proj.weight": w(dkv, d),
                  a + "o_proj.weight": w(d, d), m + "gate_proj.weight": w(ffn, d),
                  m + "up_proj.weight": w(ffn, d), m + "down_proj.weight": w(d, ffn)})
    return t


def native_step_fn(tensors: dict, ids: list[int]):
    """One LoRA step on the app's Decoder: ΔW = (α/r)·B·A on q and v, loss, backward, AdamW."""
    import torch
    import torch.nn.functional as F
    from explorer.core.checkpoints.decoders import build_llama
    decoder = build_llama(SMOL, tensors)
    gen = torch.Generator().manual_seed(1)
    frozen = [{name: p[name] for name in ("q", "v")} for p in decoder.blocks]
    lora = []
    for block in frozen:
        for name, w in block.items():
            a = (torch.rand(RANK, w.shape[1], generator=gen) * 2 - 1) / w.shape[1] ** 0.5
            lora.append((name, a.requires_grad_(), torch.zeros(w.shape[0], RANK, requires_grad=True)))
    params = [t for _, a, b in lora for t in (a, b)]
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    targets = torch.tensor(ids[1:])
    scale = ALPHA / RANK

    def step():
        for i, block in enumerate(frozen):
            for j, name in enumerate(("q", "v")):
                _, a, b = lora[2 * i + j]
                decoder.blocks[i][name] = block[name] + scale * (b @ a)  # (out, in), grads to A, B
        logits = decoder.forward(ids)["logits"]  # (n, vocab)
        loss = F.cross_entropy(logits[:-1], targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step, sum(p.numel() for p in params)


def peft_step_fn(tensors: dict, ids: list[int]):
    """The same step with transformers' LlamaForCausalLM and peft's LoRA on q_proj, v_proj."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(**SMOL, attn_implementation="sdpa")
    model = LlamaForCausalLM(config)
    model.load_state_dict({**tensors, "lm_head.weight": tensors["model.embed_tokens.weight"]}, strict=False)
    model = get_peft_model(model, LoraConfig(r=RANK, lora_alpha=ALPHA, target_modules=["q_proj", "v_proj"]))
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    batch = torch.tensor([ids])

    def step():
        loss = model(input_ids=batch, labels=batch).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step, sum(p.numel() for p in params)


def large(steps: int, seq: int) -> list[dict]:
    import torch
    torch.set_num_threads(2)
    tensors = random_tensors()
    total = sum(t.numel() for t in tensors.values())
    ids = torch.randint(0, SMOL["vocab_size"], (seq,), generator=torch.Generator().manual_seed(2)).tolist()
    out = []
    for name, make in (("135M native Decoder + LoRA q,v", native_step_fn),
                       ("135M transformers LlamaForCausalLM + peft LoRA q_proj,v_proj", peft_step_fn)):
        step, trainable = make(tensors, ids)
        out.append({"case": f"{name}, seq {seq}, 2 threads", "lora": timed(step, 1, steps),
                    "trainable": trainable, "total": total})
        del step
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny-steps", type=int, default=20)
    parser.add_argument("--large-steps", type=int, default=3)
    parser.add_argument("--seq", type=int, default=64, help="tokens in the 135M step's sequence")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = {"uptime_before": uptime(), "cases": [tiny(1, args.tiny_steps), tiny(2, args.tiny_steps)]}
    if not args.skip_large:
        results["cases"] += large(args.large_steps, args.seq)
    results["uptime_after"] = uptime()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(results["uptime_before"])
    for case in results["cases"]:
        line = f"{case['case']}: LoRA step median {case['lora']['median_ms']} ms " \
               f"(min {case['lora']['min_ms']}, max {case['lora']['max_ms']}, {case['lora']['steps']} steps)"
        if "full" in case:
            line += f"; full fine-tune step median {case['full']['median_ms']} ms"
        print(f"{line}; trainable {case['trainable']:,} of {case['total']:,}")
    print(results["uptime_after"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
