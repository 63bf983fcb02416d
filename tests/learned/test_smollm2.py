"""SmolLM2-135M: cached generation against the full causal pass, logits against transformers' Llama.

The logits oracle is transformers' LlamaForCausalLM (its own RMSNorm, rotate-half RoPE, GQA and
SwiGLU code) built from our dequantised tensors, with q/k un-permuted back to the Hugging Face
layout. It is independent of our forward (interleaved RoPE on llama.cpp's permuted weights, our
own attention and MLP); the dequantisation it shares is checked separately against the `gguf`
package. (transformers' own GGUF loading needs `accelerate` and took ~47 s; this takes ~3 s.)
"""

import numpy as np
import pytest
import torch

from explorer.core.learned import llama, weights_path
from explorer.core.learned.analysis import run, tokenize
from explorer.core.learned.generation import run_generation

from model_rounding import llama_logits_size, logits_reduction, model_reduction
from numeric import assert_close


def test_cached_generation_equals_the_full_pass_at_every_step(smollm2):
    tokens = tokenize(smollm2, "The capital of France is")
    records, cache, generated = run_generation(smollm2, tokens, generate=4, check=False)
    ids = list(tokens.ids) + list(generated.ids)
    assert len(records) == len(ids) == cache.length == 9
    assert cache.keys[0].shape == (3, 9, 64)  # (kv_heads, positions, d_head): 9 query heads share 3
    assert records[-1].cache_bytes == 2 * 30 * 3 * 9 * 64 * 4 == cache.nbytes
    assert records[-1].cache_bytes_mha == 3 * records[-1].cache_bytes
    with torch.inference_mode():  # each step's logits and attention rows = the full pass's last row
        c = llama.KVCache()
        for t in range(len(ids)):
            step = llama.step(smollm2.weights, c, ids[t])
            full = llama.forward(smollm2.weights, ids[:t + 1])
            assert_close(step["logits"], full["logits"][-1], reduction=logits_reduction(smollm2, t + 1))
            assert_close(step["rows"], full["attentions"][:, :, -1], reduction=model_reduction(smollm2, t + 1))
    assert generated.labels[0] == "▁Paris"
    assert records[len(tokens.ids) - 1].top5[0][0] == "▁Paris"


def test_the_trace_reports_the_check(smollm2):
    tokens = tokenize(smollm2, "Hello")
    records, _, generated = run_generation(smollm2, tokens, generate=2, check=True)
    assert [r.generated for r in records] == [False, True, True]
    ids = list(tokens.ids) + list(generated.ids)  # max_diff: of the logits (the larger) and the rows
    assert all(r.max_diff >= 0 for r in records)
    assert_close([r.max_diff for r in records], 0.0, dtype="float32",
                 reduction=logits_reduction(smollm2, len(ids)), scale=llama_logits_size(smollm2, ids))
    assert records[-1].flops_recompute > records[-1].flops_cached


def _unpermute(w: torch.Tensor, heads: int) -> torch.Tensor:
    """llama.cpp's q/k row order (pairs interleaved per head) back to Hugging Face's (halves)."""
    out, d_in = w.shape
    return w.reshape(heads, out // heads // 2, 2, d_in).transpose(1, 2).reshape(out, d_in)


@pytest.fixture(scope="module")
def hf_llama(smollm2):
    transformers = pytest.importorskip("transformers", reason="transformers is the test oracle (test extra)")
    w = smollm2.weights
    d, ffn = w.embed.shape[1], w.layers[0]["gate"].shape[0]
    config = transformers.LlamaConfig(
        vocab_size=w.embed.shape[0], hidden_size=d, intermediate_size=ffn,
        num_hidden_layers=len(w.layers), num_attention_heads=w.heads, num_key_value_heads=w.kv_heads,
        rms_norm_eps=w.eps, rope_theta=w.rope_theta, tie_word_embeddings=True,
        max_position_embeddings=2048, attn_implementation="eager")
    state = {"model.embed_tokens.weight": w.embed, "model.norm.weight": w.out_norm, "lm_head.weight": w.output}
    names = {"attn_norm": "input_layernorm", "q": "self_attn.q_proj", "k": "self_attn.k_proj",
             "v": "self_attn.v_proj", "o": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "gate": "mlp.gate_proj", "up": "mlp.up_proj", "down": "mlp.down_proj"}
    for i, p in enumerate(w.layers):
        for key, name in names.items():
            t = p[key]
            if key in ("q", "k"):
                t = _unpermute(t, w.heads if key == "q" else w.kv_heads)
            state[f"model.layers.{i}.{name}.weight"] = t
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(config)
    model.load_state_dict(state, assign=True)
    model.model.rotary_emb = type(model.model.rotary_emb)(config=config)  # its buffers were on meta
    return model.eval()


@pytest.mark.parametrize("text", ["The capital of France is", "def add(a, b):\n    return a + b  # 12"])
def test_logits_and_attention_match_transformers_llama(smollm2, hf_llama, text):
    tokens = tokenize(smollm2, text)
    with torch.inference_mode():
        ours = llama.forward(smollm2.weights, list(tokens.ids))
        theirs = hf_llama(torch.tensor([tokens.ids]), output_attentions=True)
    n = len(tokens.ids)
    assert_close(ours["logits"], theirs.logits[0], reduction=logits_reduction(smollm2, n))
    assert_close(ours["attentions"], torch.stack(theirs.attentions)[:, 0], reduction=model_reduction(smollm2, n))


def test_dequantised_tensors_equal_the_gguf_package(smollm2):
    gguf = pytest.importorskip("gguf", reason="the gguf package is the dequantisation oracle (test extra)")
    from explorer.core.learned.gguf import GGUFFile
    path = weights_path(smollm2.spec)
    reference = {t.name: t for t in gguf.GGUFReader(path).tensors}
    ours = GGUFFile(path)
    for name in ("token_embd.weight", "blk.0.attn_q.weight", "blk.7.ffn_down.weight", "blk.29.attn_norm.weight"):
        t = reference[name]
        expected = gguf.quants.dequantize(t.data, t.tensor_type).reshape(ours.tensors[name].shape)
        np.testing.assert_array_equal(ours.tensor(name), expected.astype(np.float32))


def test_loss_and_next_token(smollm2):
    result = run(smollm2, tokenize(smollm2, "The capital of France is"))
    assert result.next_top[0][0] == "▁Paris" and result.next_top[0][1] > 0.5
    assert 0 < result.loss < 10


def test_pruning_the_induction_heads_hurts_the_repeated_half(smollm2):
    from explorer.core.learned.pruning import mask_without, prune_effect
    from explorer.core.learned.sequences import random_repeated
    tokens = random_repeated(smollm2, 20, seed=1)
    effect = prune_effect(smollm2, tokens, mask_without(smollm2, [(17, 3), (17, 4), (17, 5), (18, 6)]))
    assert effect["heads_off"] == 4
    assert effect["loss_pruned"] > effect["loss"] + 0.5  # nats, over the whole sequence


def test_pruned_heads_equal_llama_with_their_output_columns_zeroed(smollm2, hf_llama):
    from explorer.core.learned.pruning import mask_without
    tokens = tokenize(smollm2, "The capital of France is")
    off = [(2, 1), (18, 6)]
    ours = llama.forward(smollm2.weights, list(tokens.ids), torch.as_tensor(mask_without(smollm2, off)))
    saved = {}
    with torch.inference_mode():
        for layer, head in off:
            o = hf_llama.model.layers[layer].self_attn.o_proj.weight
            saved[(layer, head)] = o[:, head * 64:(head + 1) * 64].clone()
            o[:, head * 64:(head + 1) * 64] = 0
        try:
            theirs = hf_llama(torch.tensor([tokens.ids])).logits[0]
        finally:
            for (layer, head), cols in saved.items():
                hf_llama.model.layers[layer].self_attn.o_proj.weight[:, head * 64:(head + 1) * 64] = cols
    assert_close(ours["logits"], theirs, reduction=logits_reduction(smollm2, len(tokens.ids)))


def test_tokenizer_equals_transformers_gguf_tokenizer(smollm2, monkeypatch):
    """transformers converts the GGUF's vocabulary itself (its own code; ~5-10 s, the slowest test here)."""
    transformers = pytest.importorskip("transformers", reason="transformers is the test oracle (test extra)")
    pytest.importorskip("gguf", reason="transformers reads GGUF tokenizers with the gguf package")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = weights_path(smollm2.spec)
    oracle = transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    for text in ["The capital of France is Paris. 12345", "나는 학교에 버스로 갔다",
                 "def f(x):\n    return x**2  # ok", "  double  spaces\t\ttabs", "<|im_start|>user\nhi<|im_end|>"]:
        assert list(smollm2.tokenizer(text).ids) == oracle(text, add_special_tokens=False)["input_ids"]
