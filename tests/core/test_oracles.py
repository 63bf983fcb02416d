"""Our engine against independent oracles: torch SDPA, a plain per-head loop, a fresh legacy draw.

Nothing here uses the core's own helpers (split_heads, masked_softmax, build_mask, ...)
to build the expected values: inputs are redrawn with np.random.seed, masks and
softmax are written out in the test.
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from explorer.core import AttentionConfig, forward
from explorer.core.weights import draw_weights

from attention_rounding import rule
from numeric import assert_close

CONFIGS = [
    AttentionConfig(),  # the course setting
    AttentionConfig(tokens=tuple("abcdefg"), d_model=12, n_heads=3, seed=7),
    AttentionConfig(tokens=tuple("abcdefghij"), d_model=64, n_heads=8, seed=123),
    AttentionConfig(tokens=("x",), d_model=5, n_heads=1, seed=0),
    AttentionConfig(tokens=tuple("abcdef"), d_model=16, n_heads=16, seed=2**32 - 1),
]
VARIANTS = [
    {},
    {"causal": True},
    {"scaled": False},
    {"padding": frozenset({1})},
    {"causal": True, "padding": frozenset({0, 2})},  # row 0 fully masked
    {"positional": True, "causal": True},
    {"init": "unit", "padding": frozenset({0})},
]


def legacy_draw(seed, n, d, init="course"):
    """The course's recipe, done here with the global legacy generator (state restored).

    init "course": weights randn * 0.5; "unit": the same draws * 1/sqrt(d_model).
    """
    std = 0.5 if init == "course" else 1 / math.sqrt(d)
    saved = np.random.get_state()
    try:
        np.random.seed(seed)
        x = np.random.randn(n, d)
        w_q, w_k, w_v, w_o = (np.random.randn(d, d) * std for _ in range(4))
    finally:
        np.random.set_state(saved)
    return x, w_q, w_k, w_v, w_o


def sinusoid(n, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same angle)."""
    pe = np.zeros((n, d))
    for pos in range(n):
        for col in range(d):
            angle = pos / 10000 ** (2 * (col // 2) / d)
            pe[pos, col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return pe


def allowed_matrix(config):
    n = config.n_tokens
    return np.array([[(not config.causal or j <= i) and j not in config.padding
                      for j in range(n)] for i in range(n)])


def reference_inputs(config):
    x, w_q, w_k, w_v, w_o = legacy_draw(config.seed, config.n_tokens, config.d_model, config.init)
    x_in = x + sinusoid(config.n_tokens, config.d_model) if config.positional else x
    return x_in, w_q, w_k, w_v, w_o


def with_variant(config, variant):
    """config with the variant's changes; padding positions past the sentence are dropped."""
    variant = dict(variant)
    if "padding" in variant:
        variant["padding"] = frozenset(p for p in variant["padding"] if p < config.n_tokens)
    return config.replace(**variant)


def ids(items):
    return [",".join(f"{k}={v}" for k, v in item.items()) or "plain" for item in items]


@pytest.mark.parametrize("seed,n,d", [(1, 4, 8), (0, 1, 1), (42, 9, 24), (2**32 - 1, 3, 6)])
def test_draw_equals_fresh_legacy_draw(seed, n, d):
    w = draw_weights(seed, n, d)
    for ours, theirs in zip((w.x, w.w_q, w.w_k, w.w_v, w.w_o), legacy_draw(seed, n, d)):
        np.testing.assert_array_equal(ours, theirs)
    result = forward(AttentionConfig(tokens=("t",) * n, d_model=d, n_heads=1, seed=seed))
    np.testing.assert_array_equal(result.x, legacy_draw(seed, n, d)[0])


@pytest.mark.parametrize("seed,n,d", [(1, 4, 8), (42, 9, 24)])
def test_unit_init_draw_equals_fresh_legacy_draw(seed, n, d):
    w = draw_weights(seed, n, d, "unit")
    for ours, theirs in zip((w.x, w.w_q, w.w_k, w.w_v, w.w_o), legacy_draw(seed, n, d, "unit")):
        # exact: the same draws times the same correctly rounded 1/sqrt(d_model)
        np.testing.assert_array_equal(ours, theirs)


def test_forward_leaves_the_global_generator_alone():
    np.random.seed(5)
    before = np.random.get_state()[1].copy()
    forward(AttentionConfig(seed=99))
    np.testing.assert_array_equal(np.random.get_state()[1], before)


@pytest.mark.parametrize("variant", VARIANTS, ids=ids(VARIANTS))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"n{c.n_tokens}d{c.d_model}h{c.n_heads}")
def test_matches_torch_sdpa_per_head(config, variant):
    config = with_variant(config, variant)
    result = forward(config)
    x_in, w_q, w_k, w_v, w_o = (torch.tensor(a) for a in reference_inputs(config))  # float64
    allowed = torch.tensor(allowed_matrix(config))
    live = allowed.any(dim=-1).numpy()  # SDPA gives NaN on rows with nothing to attend to
    h, dh = config.n_heads, config.d_head
    scale = None if config.scaled else 1.0
    heads = []
    for i in range(h):
        cols = slice(i * dh, (i + 1) * dh)
        q, k, v = x_in @ w_q[:, cols], x_in @ w_k[:, cols], x_in @ w_v[:, cols]  # (n, dh)
        if config.padding:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=scale)
        else:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=config.causal, scale=scale)
        out = torch.where(torch.tensor(live)[:, None], out, torch.zeros_like(out))  # empty rows -> 0
        heads.append(out)
        assert_close(result.head_outputs[i], out.numpy(), **rule(config, result, "head_outputs"))
    expected = (torch.cat(heads, dim=1) @ w_o).numpy()  # (n, d)
    assert_close(result.output, expected, **rule(config, result, "output"))
    np.testing.assert_array_equal(result.empty_rows, ~live)


@pytest.mark.parametrize("variant", VARIANTS, ids=ids(VARIANTS))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"n{c.n_tokens}d{c.d_model}h{c.n_heads}")
def test_matches_plain_per_head_loop(config, variant):
    """Head i uses columns i*d_head:(i+1)*d_head of Q, K, V; softmax written out by hand."""
    config = with_variant(config, variant)
    result = forward(config)
    x_in, w_q, w_k, w_v, w_o = reference_inputs(config)
    allowed = allowed_matrix(config)
    n, h, dh = config.n_tokens, config.n_heads, config.d_head
    q, k, v = x_in @ w_q, x_in @ w_k, x_in @ w_v
    concat = np.zeros((n, config.d_model))
    for i in range(h):
        cols = slice(i * dh, (i + 1) * dh)
        scores = q[:, cols] @ k[:, cols].T
        if config.scaled:
            scores = scores / math.sqrt(dh)
        weights = np.zeros((n, n))
        for row in range(n):
            keys = np.flatnonzero(allowed[row])
            if keys.size:
                e = np.exp(scores[row, keys] - scores[row, keys].max())
                weights[row, keys] = e / e.sum()
        assert_close(result.qh[i], q[:, cols], **rule(config, result, "qh"))
        assert_close(result.weights[i], weights, **rule(config, result, "weights"))
        concat[:, cols] = weights @ v[:, cols]
    assert_close(result.concat, concat, **rule(config, result, "concat"))
    assert_close(result.output, concat @ w_o, **rule(config, result, "output"))
    np.testing.assert_array_equal(result.mask, allowed)


COMPARED = ("q", "k", "v", "raw_scores", "scores", "weights", "head_outputs", "concat", "output")


@pytest.mark.parametrize("variant", VARIANTS, ids=ids(VARIANTS))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"n{c.n_tokens}d{c.d_model}h{c.n_heads}")
def test_torch_backend_equals_numpy_reference(config, variant):
    config = with_variant(config, variant)
    ref = forward(config)  # numpy float64
    t64 = forward(config.replace(backend="torch"))
    t32 = forward(config.replace(backend="torch", dtype="float32"))
    assert t64.device == "torch/cpu" and ref.device == "numpy/cpu"
    for name in COMPARED:
        a, b64, b32 = getattr(ref, name), getattr(t64, name), getattr(t32, name)
        assert_close(b64, a, **rule(config, ref, name), err_msg=name)
        assert_close(b32, a, dtype="float32", **rule(config, ref, name), err_msg=name)
    np.testing.assert_array_equal(t64.stats.argmax, ref.stats.argmax)
    np.testing.assert_array_equal(t64.empty_rows, ref.empty_rows)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_results_are_in_the_requested_dtype(backend, dtype):
    """float32 means float32 all the way through, on every backend (no silent upcast)."""
    result = forward(AttentionConfig(backend=backend, dtype=dtype, positional=True))
    for name in ("x_in",) + COMPARED:
        assert getattr(result, name).dtype == np.dtype(dtype), name
