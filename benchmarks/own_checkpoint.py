"""A user's own checkpoint shaped like a 0.5 B-parameter decoder (issue 23): load, text -> attention, memory.

The checkpoint is made here, once, into --dir (reused when it is there): the real Qwen2-0.5B
config (hidden 896, 24 layers, 14 heads, 2 KV heads, MLP 4864, vocabulary 151,936, tied
embeddings, rope_theta 1e6, q/k/v biases), random bfloat16 weights (std 0.02, norms 1) under the
exact Hugging Face names, in two safetensors shards with model.safetensors.index.json, and a small
byte-level BPE tokenizer.json trained with `tokenizers` on the repository's docs (its ids index the
embedding; a vocabulary smaller than 151,936 is enough). transformers is not used to make it.

Measured, each repetition in a fresh process (the files in the page cache, the process cold;
imports excluded), medians over --repeats:

- native load: `load_checkpoint(folder, "cpu")` wall time (float32, the app's default), and with
  dtype=None (the weights' own dtype asked for); the native rows on the default torch threads and
  on 1 thread (two threads wait on each other when another process holds a core);
- text -> every layer's attention + head roles through `CheckpointSource.analyse` (what the window
  runs) at 64 and 256 tokens: the first call after the load, and the same call again;
- peak RSS: VmHWM of /proc/self/status (reset through /proc/self/clear_refs just before the load)
  minus VmRSS before the load, against the float32 size of the weights; after the load, and after
  the analyses;
- the peer a user would pick: transformers' `Qwen2ForCausalLM.from_pretrained(folder,
  attn_implementation="eager", dtype=torch.float32)`, forward with output_attentions at the same
  token ids: load, forward (first and second call), peak RSS.

Once, not timed: the native attention at 64 tokens against transformers' (max |difference|).

    python benchmarks/own_checkpoint.py                    # a table (checkpoint in a temp dir)
    python benchmarks/own_checkpoint.py --dir /tmp/qwen2-0.5b-shaped --repeats 5
    python benchmarks/own_checkpoint.py --json             # one JSON object
    python benchmarks/own_checkpoint.py --no-peer          # the native path only

Other processes on the machine skew the times: the load average before and after is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

LENGTHS = (64, 256)
TOKENIZER_VOCAB = 8000

# Qwen/Qwen2-0.5B's config.json (transformers 4.40 wrote it)
CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 896,
    "initializer_range": 0.02,
    "intermediate_size": 4864,
    "max_position_embeddings": 131072,
    "max_window_layers": 24,
    "model_type": "qwen2",
    "num_attention_heads": 14,
    "num_hidden_layers": 24,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.1",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}


# -- the checkpoint


def tensor_shapes(config: dict = CONFIG) -> dict[str, tuple[int, ...]]:
    """HF Qwen2ForCausalLM state-dict names -> shapes (tied: no lm_head.weight, as save_pretrained writes)."""
    d, ffn, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    dh = d // config["num_attention_heads"]
    dkv = config["num_key_value_heads"] * dh
    shapes = {"model.embed_tokens.weight": (vocab, d)}
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes.update({
            p + "input_layernorm.weight": (d,),
            p + "self_attn.q_proj.weight": (d, d), p + "self_attn.q_proj.bias": (d,),
            p + "self_attn.k_proj.weight": (dkv, d), p + "self_attn.k_proj.bias": (dkv,),
            p + "self_attn.v_proj.weight": (dkv, d), p + "self_attn.v_proj.bias": (dkv,),
            p + "self_attn.o_proj.weight": (d, d),
            p + "mlp.gate_proj.weight": (ffn, d), p + "mlp.up_proj.weight": (ffn, d),
            p + "mlp.down_proj.weight": (d, ffn),
            p + "post_attention_layernorm.weight": (d,),
        })
    shapes["model.norm.weight"] = (d,)
    if not config.get("tie_word_embeddings"):
        shapes["lm_head.weight"] = (vocab, d)
    return shapes


def check_names_against_transformers() -> str:
    """Our names and shapes against transformers' Qwen2 state dict of a tiny config (2 layers)."""
    try:
        import torch
        from transformers import Qwen2Config, Qwen2ForCausalLM
    except ImportError:
        return "transformers not installed: names not checked"
    tiny = {**CONFIG, "hidden_size": 56, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 100,
            "bos_token_id": None, "eos_token_id": None}
    keys = {k: v for k, v in tiny.items() if k not in ("architectures", "torch_dtype", "transformers_version")}
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(Qwen2Config(**keys))
    theirs = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    if model.config.tie_word_embeddings:
        theirs.pop("lm_head.weight", None)  # tied: save_pretrained leaves it out
    ours = tensor_shapes(tiny)
    if theirs != ours:
        missing, extra = sorted(set(theirs) - set(ours)), sorted(set(ours) - set(theirs))
        wrong = sorted(k for k in set(ours) & set(theirs) if ours[k] != theirs[k])
        raise SystemExit(f"tensor names differ from transformers': missing {missing[:5]}, extra {extra[:5]}, "
                         f"shapes {wrong[:5]}")
    return f"{len(ours)} names and shapes match transformers' Qwen2 (2-layer config)"


def corpus() -> list[str]:
    """English text to train the tokenizer on and to cut the benchmark's sentences from."""
    texts = []
    for path in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        if path.exists():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def build(folder: Path, log=print) -> dict:
    """Write the checkpoint into `folder` unless a complete one is there; what was done."""
    import torch
    from safetensors.torch import save_file
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    folder.mkdir(parents=True, exist_ok=True)
    done = folder / ".complete"
    if done.exists():
        return {"built": False, "folder": str(folder)}
    start = time.perf_counter()
    names = check_names_against_transformers()
    log(f"  {names}")
    (folder / "config.json").write_text(json.dumps(CONFIG, indent=2) + "\n")

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=TOKENIZER_VOCAB, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus(), trainer=trainer)
    tok.save(str(folder / "tokenizer.json"))

    shapes = tensor_shapes()
    total = sum(2 * _numel(s) for s in shapes.values())
    gen = torch.Generator().manual_seed(23)
    shards: list[dict] = [{}]
    weight_map, size = {}, 0
    files = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    for name, shape in shapes.items():
        if name.endswith("norm.weight"):
            t = torch.ones(shape, dtype=torch.bfloat16)
        else:
            t = (torch.randn(shape, generator=gen) * 0.02).to(torch.bfloat16)
        nbytes = t.numel() * 2
        if size >= total / 2 and len(shards) == 1:
            save_file(shards[0], str(folder / files[0]), metadata={"format": "pt"})
            shards = [None, {}]
        shards[-1][name] = t
        weight_map[name] = files[len(shards) - 1]
        size += nbytes
    save_file(shards[-1], str(folder / files[1]), metadata={"format": "pt"})
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
    done.write_text("ok\n")
    return {"built": True, "folder": str(folder), "build_s": time.perf_counter() - start, "names": names}


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def texts(folder: Path) -> dict[int, str]:
    """For each length n, a passage of the docs that the checkpoint's tokenizer makes exactly n tokens."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    words = " ".join(" ".join(corpus()).split()).split(" ")
    out = {}
    for n in LENGTHS:
        chosen: list[str] = []
        count = 0
        for word in words[200:]:  # past the docs' titles
            trial = len(tok.encode(" ".join(chosen + [word])).ids)
            if trial <= n:
                chosen.append(word)
                count = trial
            if count == n:
                break
        if count != n:
            raise SystemExit(f"no passage of exactly {n} tokens")
        out[n] = " ".join(chosen)
    return out


def weights_bytes(folder: Path) -> dict:
    """Parameter count, bytes on disk (bfloat16) and as float32."""
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    params = sum(_numel(s) for s in tensor_shapes().values())
    return {"params": params, "bf16_bytes": index["metadata"]["total_size"], "f32_bytes": 4 * params}


# -- the measured processes


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return -1


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def child_native(folder: str, own_dtype: bool, threads: int | None = None) -> dict:
    import torch  # noqa: F401  (imports are not part of the load)
    if threads:
        torch.set_num_threads(threads)
    import numpy  # noqa: F401
    import safetensors.torch  # noqa: F401
    import tokenizers  # noqa: F401
    from explorer.app.models.checkpoint_source import source_for_folder
    from explorer.core.checkpoints import decoders, families, tokenizer  # noqa: F401
    from explorer.core.checkpoints.load import load_checkpoint
    from explorer.core.learned import find_repeat, score_heads  # noqa: F401
    passages = texts(Path(folder))
    before = _status("VmRSS")
    reset = _reset_peak()
    start = time.perf_counter()
    model = load_checkpoint(folder, "cpu", dtype=None if own_dtype else "float32")
    out = {"load_s": time.perf_counter() - start, "rss_before": before, "peak_reset": reset,
           "peak_load": _status("VmHWM") - before, "rss_load": _status("VmRSS") - before,
           "threads": torch.get_num_threads(),
           "weight_dtypes": sorted({str(t.dtype) for b in model.weights.blocks for t in b.values()}),
           "kind": type(model.weights).__name__}
    if own_dtype:
        return out
    source = source_for_folder(folder)
    for n in LENGTHS:
        for call in ("first", "again"):
            start = time.perf_counter()
            analysis = source.analyse("cpu", passages[n])
            out[f"analyse_{n}_{call}_s"] = time.perf_counter() - start
            out[f"analyse_{n}_{call}_run_s"] = analysis.run_s
            out[f"analyse_{n}_{call}_load_s"] = analysis.load_s
            if len(analysis.ids) != n or analysis.attentions.shape != (24, 14, n, n):
                raise SystemExit(f"analyse at {n}: {len(analysis.ids)} ids, {analysis.attentions.shape}")
            if not numpy.isfinite(analysis.attentions).all():
                raise SystemExit(f"analyse at {n}: attention not finite")
        out[f"peak_{n}"] = _status("VmHWM") - before
    out["peak_all"] = _status("VmHWM") - before
    return out


def child_peer(folder: str) -> dict:
    import torch
    import numpy  # noqa: F401
    from tokenizers import Tokenizer
    from transformers import Qwen2ForCausalLM
    passages = texts(Path(folder))
    tok = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    before = _status("VmRSS")
    reset = _reset_peak()
    start = time.perf_counter()
    model = Qwen2ForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32,
                                             local_files_only=True)
    model.eval()
    out = {"load_s": time.perf_counter() - start, "rss_before": before, "peak_reset": reset,
           "peak_load": _status("VmHWM") - before, "rss_load": _status("VmRSS") - before,
           "threads": torch.get_num_threads(),
           "weight_dtypes": sorted({str(p.dtype) for p in model.parameters()})}
    for n in LENGTHS:
        ids = torch.tensor([tok.encode(passages[n]).ids])
        for call in ("first", "again"):
            start = time.perf_counter()
            with torch.inference_mode():
                result = model(ids, output_attentions=True)
                attentions = torch.stack(result.attentions)[:, 0].float().numpy()
            out[f"forward_{n}_{call}_s"] = time.perf_counter() - start
            if attentions.shape != (24, 14, n, n):
                raise SystemExit(f"peer at {n}: {attentions.shape}")
        out[f"peak_{n}"] = _status("VmHWM") - before
    out["peak_all"] = _status("VmHWM") - before
    return out


def child_agree(folder: str) -> dict:
    """The native attention at 64 tokens against transformers' eager output_attentions."""
    import numpy as np
    import torch
    from tokenizers import Tokenizer
    from transformers import Qwen2ForCausalLM
    from explorer.app.models.checkpoint_source import source_for_folder
    passage = texts(Path(folder))[64]
    analysis = source_for_folder(folder).analyse("cpu", passage)
    ids = Tokenizer.from_file(str(Path(folder) / "tokenizer.json")).encode(passage).ids
    model = Qwen2ForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32,
                                             local_files_only=True).eval()
    with torch.inference_mode():
        result = model(torch.tensor([ids]), output_attentions=True)
    theirs = torch.stack(result.attentions)[:, 0].numpy()
    return {"same_ids": list(analysis.ids) == list(ids),
            "max_abs_diff": float(np.abs(analysis.attentions - theirs).max()),
            "max_weight": float(theirs.max())}


def run_child(args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"child {args[:2]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the parent


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def warm_page_cache(folder: Path) -> None:
    for path in sorted(folder.iterdir()):
        if path.is_file():
            with open(path, "rb") as f:
                while f.read(1 << 24):
                    pass


def med(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", help="the checkpoint's folder (made when it is not complete); default a temp dir")
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per measurement (default 5)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    parser.add_argument("--no-peer", action="store_true", help="skip transformers (the peer and the agreement)")
    parser.add_argument("--no-one-thread", action="store_true", help="skip the native run on 1 torch thread")
    parser.add_argument("--child", choices=("native", "native-1t", "own-dtype", "peer", "agree"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        fn = {"native": lambda: child_native(args.dir, False), "own-dtype": lambda: child_native(args.dir, True),
              "native-1t": lambda: child_native(args.dir, False, 1),
              "peer": lambda: child_peer(args.dir), "agree": lambda: child_agree(args.dir)}[args.child]
        print(json.dumps(fn()))
        return

    log = (lambda *a: print(*a, file=sys.stderr, flush=True)) if args.json else (lambda *a: print(*a, flush=True))
    folder = Path(args.dir) if args.dir else Path(tempfile.gettempdir()) / "explorer-bench-qwen2-0.5b-shaped"
    info = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "loadavg_before": loadavg(),
            "cpus": os.cpu_count(), "repeats": args.repeats}
    log(f"checkpoint {folder} (load average {info['loadavg_before']})")
    info["build"] = build(folder, log)
    info.update(weights_bytes(folder))
    warm_page_cache(folder)
    f32 = info["f32_bytes"]
    runs: dict[str, list[dict]] = {"native": [], "native-1t": [], "own-dtype": [], "peer": []}
    kinds = ["native", "own-dtype"] + ([] if args.no_one_thread else ["native-1t"]) + \
        ([] if args.no_peer else ["peer"])
    for r in range(args.repeats):
        for kind in kinds:  # interleaved, so the machine's load falls on each alike
            runs[kind].append(run_child(["--child", kind, "--dir", str(folder)]))
            log(f"  {kind} {r + 1}/{args.repeats} (load average {loadavg()})")
    if not args.no_peer:
        info["agreement"] = run_child(["--child", "agree", "--dir", str(folder)])
    info["loadavg_after"] = loadavg()
    summary: dict = {}
    for kind, rows in runs.items():
        if not rows:
            continue
        keys = [k for k in rows[0] if isinstance(rows[0][k], (int, float)) and not isinstance(rows[0][k], bool)]
        summary[kind] = {k: med(rows, k) for k in keys}
        summary[kind]["weight_dtypes"] = rows[0]["weight_dtypes"]
        summary[kind]["runs"] = rows
    info["medians"] = summary
    nat = summary["native"]
    info["goals"] = {
        "load_le_3s": nat["load_s"] <= 3.0,
        "text64_le_1.5s": nat["analyse_64_again_s"] <= 1.5,
        "text64_first_le_1.5s": nat["analyse_64_first_s"] <= 1.5,
        "peak_le_1.3x_f32": nat["peak_all"] <= 1.3 * f32,
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return
    print_table(info)


def print_table(info: dict) -> None:
    mb = 1e6
    f32 = info["f32_bytes"]
    s = info["medians"]
    print(f"\n{info['params'] / 1e6:.1f} M parameters: {info['bf16_bytes'] / mb:.0f} MB bfloat16 on disk, "
          f"{f32 / mb:.0f} MB as float32; {info['repeats']} fresh processes each, medians; "
          f"load average {info['loadavg_before']} -> {info['loadavg_after']}; "
          f"torch threads {s['native']['threads']:.0f}")
    print("\n| | threads | load s | 64 tok first s | 64 tok again s | 256 tok first s | 256 tok again s "
          "| peak after load MB (× f32) | after 64 tok | after 256 tok | weights kept as |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")

    def row(label, d, prefix):
        cells = [f"{d['threads']:.0f}", f"{d['load_s']:.2f}"]
        for n in LENGTHS:
            for call in ("first", "again"):
                v = d.get(f"{prefix}_{n}_{call}_s")
                cells.append("—" if v is None else f"{v:.2f}")
        for key in ("peak_load", "peak_64", "peak_all"):
            v = d.get(key)
            cells.append("—" if v is None else f"{v / mb:.0f} ({v / f32:.2f}×)")
        cells.append(", ".join(x.replace("torch.", "") for x in d["weight_dtypes"]))
        print(f"| {label} | " + " | ".join(cells) + " |")

    row("native `load_checkpoint` + `CheckpointSource.analyse`", s["native"], "analyse")
    if "native-1t" in s:
        row("native, 1 torch thread", s["native-1t"], "analyse")
    row("native, `dtype=None` (own dtype asked)", s["own-dtype"], "analyse")
    if "peer" in s:
        row("transformers `from_pretrained` eager float32 + forward", s["peer"], "forward")
    if "agreement" in info:
        a = info["agreement"]
        print(f"\nnative vs transformers at 64 tokens: same ids {a['same_ids']}, "
              f"max |Δ attention| {a['max_abs_diff']:.2e} (largest weight {a['max_weight']:.3f})")
    g = info["goals"]
    print(f"\ngoals: load ≤ 3 s {'met' if g['load_le_3s'] else 'MISSED'}; 64 tokens ≤ 1.5 s "
          f"{'met' if g['text64_le_1.5s'] else 'MISSED'} (again), "
          f"{'met' if g['text64_first_le_1.5s'] else 'MISSED'} (first call); peak ≤ 1.3 × float32 "
          f"{'met' if g['peak_le_1.3x_f32'] else 'MISSED'}")


if __name__ == "__main__":
    main()
