"""The full passes' faster paths (issue 26) against float64 references written from the definitions.

- llama.attend: the query heads that share a key head as one batch (no repeat of k and v), the
  scaling and the causal / padding mask as one additive bias on the product;
- llama.rope: adjacent pairs rotated as complex numbers;
- bert.self_attention: the scaling and the padding mask on the product;
- the weight store: each layer's softmax written into one (layers, heads, n, n) tensor, equal to
  the stacked layers that autograd's path (LoRA fine-tuning) still builds;
- linear.linear: every full pass's projections through oneDNN's kernel (from 4 rows);
- analysis.sentence_loss: the cross-entropy in blocks of rows;
- analysis.decoder_outputs: a decoder's top 5 and loss from its final residual, unembedded in blocks;
- roles.score_heads: the broad score one layer at a time (core.stats.row_entropy).

Tolerances: tests/numeric.py's rule, the reduction being the terms summed on the way (d_head in a
score, the keys in the softmax's normaliser and in weights @ V, d_model in a projection).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from explorer.app.heap import malloc_info
from explorer.core.backends import linear as linear_module
from explorer.core.learned import bert, llama
from explorer.core.learned.analysis import LOSS_ROWS, UNEMBED_ROWS, decoder_outputs, run, sentence_loss
from explorer.core.learned.roles import score_heads

from numeric import assert_close


def _reference_attention(q, k, v, o, allowed, keep):
    """float64: q (heads, nq, dh), k, v (kv, nk, dh), allowed (nq, nk) bool, keep (heads,) ->
    output (nq, d) and weights (heads, nq, nk); query head h reads key head h // (heads / kv)."""
    q, k, v, o, keep = (t.double() for t in (q, k, v, o, keep))
    group = q.shape[0] // k.shape[0]
    k, v = k.repeat_interleave(group, 0), v.repeat_interleave(group, 0)  # (heads, nk, dh)
    scores = (q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, -1)  # (heads, nq, nk)
    context = (weights * keep[:, None, None]) @ v  # (heads, nq, dh)
    return context.transpose(0, 1).reshape(q.shape[1], -1) @ o.T, weights, scores


@pytest.mark.parametrize("nq, causal", [(13, True), (1, False)])  # the full pass; one cached step
def test_grouped_attention_equals_repeated_heads_in_float64(nq, causal):
    g = torch.Generator().manual_seed(nq)
    heads, kv, dh, nk = 6, 2, 16, 13
    q, k, v = (torch.randn(h, n, dh, generator=g) for h, n in ((heads, nq), (kv, nk), (kv, nk)))
    o = torch.randn(heads * dh, heads * dh, generator=g)
    keep = torch.tensor([1.0, 0.0, 1.0, 1.0, 1.0, 1.0])  # head 1 pruned
    key_mask = torch.arange(nk) < nk - 2  # two padding keys
    w = SimpleNamespace(heads=heads, kv_heads=kv, d_head=dh)
    with torch.inference_mode():
        out, weights = llama.attend(w, {"o": o}, q, k, v, causal=causal, keep=keep, key_mask=key_mask)
    allowed = key_mask[None, :].expand(nq, nk)
    if causal:
        allowed = allowed & torch.ones(nq, nk, dtype=torch.bool).tril()
    expected_out, expected, scores = _reference_attention(q, k, v, o, allowed, keep)
    assert torch.all(weights[:, ~allowed] == 0)  # a masked key's weight is exactly 0
    size = float(scores[torch.isfinite(scores)].abs().max())  # a softmax's error scales with its scores
    assert_close(weights, expected, reduction=dh + nk, scale=size)
    assert_close(out, expected_out, reduction=dh + nk + heads * dh, scale=size * float(expected_out.abs().max()))


def test_rope_as_complex_pairs_equals_the_rotation_in_float64():
    g = torch.Generator().manual_seed(3)
    n, heads, dh, theta = 40, 3, 16, 10000.0
    x = torch.randn(n, heads * dh, generator=g).view(n, heads, dh).transpose(0, 1)  # strided, as projected
    positions = torch.arange(n)
    with torch.inference_mode():
        ours = llama.rope(x, positions, theta)
    angles = positions.double()[:, None] * theta ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    cos, sin = angles.cos(), angles.sin()  # (n, dh/2)
    x0, x1 = x.double()[..., 0::2], x.double()[..., 1::2]
    expected = torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), -1).flatten(-2)
    # the angles are rounded to float32 before cos / sin: an error of eps · angle (up to n radians)
    assert_close(ours, expected, reduction=2, scale=n * float(x.abs().max()))


def test_bert_attention_with_a_padding_mask_equals_float64():
    g = torch.Generator().manual_seed(5)
    n, d, heads = 11, 24, 4
    p = {f"{c}_{t}": torch.randn(d, d, generator=g) / math.sqrt(d) if t == "w" else torch.randn(d, generator=g)
         for c in "qkvo" for t in "wb"}
    x = torch.randn(n, d, generator=g)
    key_mask = torch.arange(n) < n - 3
    keep = torch.tensor([1.0, 1.0, 0.0, 1.0])
    with torch.inference_mode():
        out, weights, _ = bert.self_attention(x, p, heads, keep, key_mask)
    xd, pd = x.double(), {key: t.double() for key, t in p.items()}
    q, k, v = ((xd @ pd[f"{c}_w"].T + pd[f"{c}_b"]).view(n, heads, -1).transpose(0, 1) for c in "qkv")
    expected_out, expected, scores = _reference_attention(q, k, v, pd["o_w"], key_mask[None, :].expand(n, n), keep)
    expected_out = expected_out + pd["o_b"]
    assert torch.all(weights[..., ~key_mask] == 0)
    size = float(scores[torch.isfinite(scores)].abs().max())
    assert_close(weights, expected, reduction=2 * d + n, scale=size)
    assert_close(out, expected_out, reduction=3 * d + n, scale=size * float(expected_out.abs().max()))


@pytest.mark.parametrize("name", ["minilm", "smollm2"])
def test_the_weight_store_equals_the_stacked_layers(name, request, monkeypatch):
    """Without autograd every layer's softmax writes into one tensor; with autograd (LoRA
    fine-tuning) the layers are stacked: the same numbers, bit for bit. The projections' kernel
    differs between the two (oneDNN without autograd: test_linear_equals_float64), so it is
    F.linear in both here."""
    monkeypatch.setattr(linear_module, "_onednn", False)
    model = request.getfixturevalue(name)
    ids = list(range(1000, 1000 + 2 * LOSS_ROWS + 3))
    if not model.is_decoder:
        ids = [model.tokenizer.special_ids()[0], *ids, model.tokenizer.special_ids()[1]]
    keys = torch.arange(len(ids)) < len(ids) - 2
    with torch.inference_mode():
        stored = model.weights.forward(ids, key_mask=keys)
    with torch.enable_grad():
        stacked = model.weights.forward(ids, key_mask=keys)
    assert stored["attentions"].shape == (model.spec.layers, model.spec.heads, len(ids), len(ids))
    assert torch.equal(stored["attentions"], stacked["attentions"])
    if model.is_decoder:
        assert_close(stored["logits"], stacked["logits"], reduction=model.spec.d_model)
    else:
        assert torch.equal(stored["hidden"], stacked["hidden"])


@pytest.mark.parametrize("rows", [1, 5, 70])
@pytest.mark.parametrize("bias", [False, True])
def test_linear_equals_float64(rows, bias):
    """The full passes' projections and the unembedding (5000 × 96 here): oneDNN from MIN_ROWS rows
    without autograd, F.linear otherwise; both the float64 product within float32's round-off."""
    g = torch.Generator().manual_seed(rows)
    x, weight = torch.randn(rows, 96, generator=g), torch.randn(5000, 96, generator=g)
    b = torch.randn(5000, generator=g) if bias else None
    expected = x.double() @ weight.double().T + (0 if b is None else b.double())  # (rows, 5000)
    scale = float(x.abs().max() * weight.abs().max()) + (0 if b is None else float(b.abs().max()))
    with torch.inference_mode():
        assert linear_module.uses_onednn(x, weight) is (rows >= linear_module.MIN_ROWS and linear_module._onednn)
        assert_close(linear_module.linear(x, weight, b), expected, dtype="float32", reduction=97, scale=scale)
    with torch.enable_grad():  # autograd: F.linear
        assert not linear_module.uses_onednn(x, weight)
        assert_close(linear_module.linear(x, weight, b), expected, dtype="float32", reduction=97, scale=scale)


def test_linear_reads_a_weight_changed_in_place():
    """An adapter merged into a weight in place (or a head pruned) must not meet a product that
    oneDNN kept from before."""
    g = torch.Generator().manual_seed(3)
    x, weight = torch.randn(64, 96, generator=g), torch.randn(40, 96, generator=g)
    with torch.inference_mode():
        before = linear_module.linear(x, weight)
        weight.mul_(2)
        assert torch.equal(linear_module.linear(x, weight), 2 * before)  # a power of 2: exact


def test_onednn_is_there_on_this_projects_cpu_wheel():
    """The speed rests on it: a torch without oneDNN would quietly fall back to F.linear."""
    assert linear_module._onednn or not torch.backends.mkldnn.is_available()


def test_the_loss_in_blocks_of_rows_equals_float64_cross_entropy():
    g = torch.Generator().manual_seed(7)
    n, vocab = 3 * LOSS_ROWS + 5, 500  # blocks, the last one short
    logits = torch.randn(n, vocab, generator=g) * 4
    ids = torch.randint(0, vocab, (n,), generator=g).tolist()
    expected = torch.nn.functional.cross_entropy(logits[:-1].double(), torch.tensor(ids[1:]))
    assert_close(sentence_loss(logits, ids), float(expected), dtype="float32", reduction=vocab + n,
                 scale=float(logits.abs().max()))
    assert sentence_loss(logits[:1], ids[:1]) is None


@pytest.mark.parametrize("n", [1, 2, UNEMBED_ROWS + 1, 2 * UNEMBED_ROWS + 5])  # blocks, the last one short
def test_the_top_5_and_loss_from_the_final_residual_equal_float64_on_the_whole_logits(smollm2, n):
    """What analysis.run gives a decoder with the "final" capture: the (n, vocab) logits never made
    at once, the next-token top 5 and the loss as from the whole logits (float64 cross-entropy)."""
    ids = list(range(2000, 2000 + n))
    with torch.inference_mode():
        lean = smollm2.weights.forward(ids, capture=("final",))
        logits = smollm2.weights.forward(ids)["logits"]  # (n, vocab)
        top, loss = decoder_outputs(smollm2, lean, ids)
        whole_top, whole_loss = decoder_outputs(smollm2, {"logits": logits}, ids)
    assert "logits" not in lean
    assert [i for _, _, i in top] == [i for _, _, i in whole_top]
    assert_close(np.array([p for _, p, _ in top]), np.array([p for _, p, _ in whole_top]), dtype="float32",
                 reduction=smollm2.spec.d_model)
    if n == 1:
        assert loss is None and whole_loss is None
        return
    expected = torch.nn.functional.cross_entropy(logits[:-1].double(), torch.tensor(ids[1:]))
    assert_close(loss, float(expected), dtype="float32", reduction=smollm2.spec.d_model + n,
                 scale=float(logits.abs().max()))


def test_run_asks_a_decoder_for_the_final_residual_and_an_encoder_for_nothing(smollm2, minilm, monkeypatch):
    asked = []
    for model in (smollm2, minilm):
        forward = model.weights.forward
        monkeypatch.setattr(model.weights, "forward",
                            lambda *a, _f=forward, **k: asked.append(k.get("capture", ())) or _f(*a, **k))
        run(model, model.tokenizer("the cat sat on the mat"))
    assert asked == [("final",), ()]


def _reference_scores(a: np.ndarray, causal: bool, repeat) -> dict:
    """float64 loops, one head: the definitions in roles.py's docstring."""
    a = a.astype(np.float64)
    n = a.shape[0]
    mean = lambda cells: float(np.mean([a[i, j] for i, j in cells])) if cells else 0.0  # noqa: E731
    scores = {"previous-token": mean([(i, i - 1) for i in range(1, n)]),
              "next-token": mean([(i, i + 1) for i in range(n - 1)]),
              "first-token": mean([(i, 0) for i in range(1, n)])}
    if repeat:
        start, length = repeat
        scores["induction"] = mean([(i, i - length + 1) for i in range(start, start + length)])
    rows = []
    for i in range(n):
        keys = i + 1 if causal else n
        if keys >= 2:
            p = a[i, :keys]
            rows.append(-sum(x * math.log(x) for x in p if x > 0) / math.log(keys))
    scores["broad"] = float(np.mean(rows))
    return scores


@pytest.mark.parametrize("causal", [True, False])
def test_role_scores_equal_float64_loops(causal):
    rng = np.random.default_rng(11)
    layers, heads, n = 3, 4, 24
    scores = rng.standard_normal((layers, heads, n, n)) * rng.uniform(0.5, 6, (layers, heads, 1, 1))
    if causal:
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    attentions = (weights / weights.sum(-1, keepdims=True)).astype(np.float32)  # (layers, heads, n, n)
    repeat = (12, 10)
    roles = score_heads(attentions, causal=causal, repeat=repeat)
    assert [(r.layer, r.head) for r in roles] == [(i, h) for i in range(layers) for h in range(heads)]
    for r in roles:
        expected = _reference_scores(attentions[r.layer, r.head], causal, repeat)
        assert r.scores.keys() == expected.keys()
        for key, value in expected.items():  # a mean over n rows of sums over n keys (entropy: of log n)
            assert_close(r.scores[key], value, dtype="float32", reduction=2 * n, scale=math.log(n), err_msg=key)


def test_onednn_keeps_a_bounded_number_of_shapes():
    """Every text length is new product shapes; oneDNN's caches held 1024 of them by default
    (~0.5 MB each): 150 lengths grew the heap by ~80 MB. In a fresh process (the caches' sizes are
    read at the first product), with neither variable set by the caller."""
    if malloc_info() is None or not linear_module._onednn:
        pytest.skip("needs glibc's mallinfo2 and oneDNN")
    code = (
        "import torch\n"
        "from explorer.app.heap import malloc_info\n"
        "from explorer.core.backends.linear import linear, CACHED_SHAPES\n"
        "w = torch.randn(384, 384)\n"
        "def in_use(): info = malloc_info(); return (info.uordblks + info.hblkhd) / 2**20\n"
        "with torch.inference_mode():\n"
        "    for n in range(16, 16 + CACHED_SHAPES): linear(torch.randn(n, 384), w)\n"
        "    full = in_use()\n"
        "    for n in range(100, 250): linear(torch.randn(n, 384), w)\n"
        "print(in_use() - full)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True)
    assert float(out.stdout) < 10  # MB: the caches were full before; 150 more shapes replaced entries
