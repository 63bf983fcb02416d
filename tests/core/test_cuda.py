"""The CUDA path against the CPU, on a machine that has a GPU (skipped everywhere else).

Qt-free on purpose: benchmarks/gpu_check.sh runs this file on a lent GPU machine whose Python has
torch but no PySide6. Each test compares what CUDA computes with a CPU reference by
tests/numeric.py's rule (float32: TF32 is off in torch by default for matmuls, so the CUDA sums
are float32 sums in another order, not lower-precision ones).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer.core import AttentionConfig, forward

from numeric import assert_close

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")

# (n tokens, d_model, heads): the teaching size, then the sizes of docs/benchmarks.md
CASES = [(4, 8, 2), (32, 256, 8), (128, 512, 8), (512, 512, 16)]


def _config(n: int, d: int, h: int, **changes) -> AttentionConfig:
    tokens = tuple(f"t{i}" for i in range(n))
    return AttentionConfig(tokens=tokens, d_model=d, n_heads=h, seed=3, init="unit", **changes)


@pytest.mark.parametrize("n,d,h", CASES)
@pytest.mark.parametrize("causal", [False, True])
def test_cuda_attention_equals_the_float64_reference(n, d, h, causal):
    ref = forward(_config(n, d, h, causal=causal))  # numpy float64
    got = forward(_config(n, d, h, causal=causal, backend="torch", device="cuda", dtype="float32"))
    assert got.device.startswith("torch/cuda")
    assert got.weights.dtype == np.float32
    # scores sum d_head products of x·W (d_model terms each): reduction d_model · d_head
    assert_close(got.weights, ref.weights, dtype="float32", reduction=d * (d // h),
                 scale=float(np.abs(ref.scores).max()))
    assert_close(got.output, ref.output, dtype="float32", reduction=d * d,
                 scale=float(np.abs(ref.output).max()))


def test_cuda_float64_is_the_course_numbers():
    """Lab 3 on CUDA in float64: the course's numbers to float64 rounding."""
    ref = forward(AttentionConfig())
    got = forward(AttentionConfig(backend="torch", device="cuda"))
    assert_close(got.weights, ref.weights, dtype="float64", reduction=8 * 4)


def _tiny_decoder(device: str):
    """A random Llama-shaped native decoder (core/checkpoints/decoders.py) on `device`."""
    from explorer.core.checkpoints.families import builders
    config = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96,
              "vocab_size": 50, "max_position_embeddings": 64, "rms_norm_eps": 1e-5,
              "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu"}
    gen = torch.Generator().manual_seed(0)
    d, kv, f, v = 64, 2 * 16, 96, 50
    shapes = {"model.embed_tokens.weight": (v, d), "model.norm.weight": (d,), "lm_head.weight": (v, d)}
    for i in range(2):
        p = f"model.layers.{i}."
        shapes.update({p + "input_layernorm.weight": (d,), p + "post_attention_layernorm.weight": (d,),
                       p + "self_attn.q_proj.weight": (d, d), p + "self_attn.k_proj.weight": (kv, d),
                       p + "self_attn.v_proj.weight": (kv, d), p + "self_attn.o_proj.weight": (d, d),
                       p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d),
                       p + "mlp.down_proj.weight": (d, f)})
    tensors = {name: (torch.randn(shape, generator=gen) * 0.3).to(device) for name, shape in shapes.items()}
    for name in tensors:
        if name.endswith("norm.weight"):
            tensors[name] = tensors[name] + 1.0
    return builders()["llama"](config, tensors)


def test_native_decoder_on_cuda_equals_the_cpu_and_its_kv_cache_equals_its_forward():
    ids = [3, 17, 5, 42, 8, 1, 29]
    cpu, gpu = _tiny_decoder("cpu"), _tiny_decoder("cuda")
    a, b = cpu.forward(ids), gpu.forward(ids)
    assert_close(b["attentions"].cpu().numpy(), a["attentions"].cpu().numpy(), dtype="float32",
                 reduction=2 * 64, scale=10.0)
    assert_close(b["logits"].cpu().numpy(), a["logits"].cpu().numpy(), dtype="float32",
                 reduction=2 * 96, scale=float(a["logits"].abs().max()))
    cache = gpu.new_cache()
    for t, token in enumerate(ids):  # one token at a time through the real KV cache
        step = gpu.step(cache, token)
    assert_close(step["logits"].cpu().numpy(), b["logits"][-1].cpu().numpy(), dtype="float32",
                 reduction=2 * 96, scale=float(b["logits"].abs().max()))
