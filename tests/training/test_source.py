"""The tiny transformer read as a model source (core/training/source.py): the head mask, the
token sequences, and the KV-cache steps against the full forward."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from explorer.core.config import ConfigError  # noqa: E402
from explorer.core.training import TrainConfig, build_model, probe_tokens  # noqa: E402
from explorer.core.training.source import run, run_generation, trained_ids  # noqa: E402

from numeric import assert_close, close  # noqa: E402

CONFIG = TrainConfig(n_layers=2, n_heads=2, d_model=16, vocab=20, seq_len=16, seed=3)


def logits_reduction(t: int) -> int:
    """Terms summed along the longest path to CONFIG's logits over t tokens: per layer qkv and the
    output projection (d_model each), q·k (d_head), the softmax and weights @ V (t each); then the
    unembedding (d_model)."""
    d, d_head = CONFIG.d_model, CONFIG.d_model // CONFIG.n_heads
    return CONFIG.n_layers * (2 * d + d_head + 2 * t) + d


class Spec:  # the fields run_generation reads (a ModelSpec in the app)
    layers, heads, kv_heads, d_model, max_tokens, d_head = 2, 2, 2, 16, 16, 8


def test_a_mask_of_ones_changes_nothing_and_a_zero_silences_that_head():
    model = build_model(CONFIG).eval()
    ids = [1, 2, 3, 4, 1, 2, 3]
    base = run(model, ids)
    same = run(model, ids, np.ones((2, 2)))
    np.testing.assert_array_equal(base["attentions"], same["attentions"])
    assert base["loss"] == same["loss"]
    mask = np.ones((2, 2))
    mask[1, 0] = 0
    pruned = run(model, ids, mask)
    assert not pruned["attentions"][1, 0].any()  # the switched-off head's weights are 0
    np.testing.assert_array_equal(pruned["attentions"][0], base["attentions"][0])  # layer 0 untouched
    with torch.inference_mode():
        logits, _ = model(torch.as_tensor([ids]))  # (1, n, V): the loss's error scales with them
    assert not close(pruned["loss"], base["loss"], dtype="float32",
                     reduction=logits_reduction(len(ids)) + CONFIG.vocab, scale=logits.abs().max().item())


def test_sequences_integers_probe_repeat_random_and_bad_tokens():
    v, t = CONFIG.vocab, CONFIG.seq_len
    assert trained_ids("3 4 5", "text", 0, v, t) == [3, 4, 5]
    assert trained_ids("3 4 5", "repeat", 0, v, t) == [3, 4, 5, 3, 4, 5]
    assert trained_ids("a sentence", "text", 0, v, t) == probe_tokens(v, t).tolist()
    random = trained_ids("", "random", 7, v, t)
    assert random[:8] == random[8:] and len(random) == t and random == trained_ids("", "random", 7, v, t)
    with pytest.raises(ConfigError, match="tokens are 0..19, not 20"):
        trained_ids("1 20", "text", 0, v, t)
    with pytest.raises(ConfigError, match="at most 16 tokens, not 18"):
        trained_ids(" ".join(["1"] * 9), "repeat", 0, v, t)


def test_kv_cache_steps_equal_the_full_forward_and_greedy_continues():
    model = build_model(CONFIG).eval()
    records, keys, values, new = run_generation(model, [1, 2, 3, 1, 2], Spec, generate=3)
    assert len(records) == 8 and len(new) == 3 and keys.shape == values.shape == (2, 2, 8, 8)
    fed = [int(r.token) for r in records]
    with torch.inference_mode():
        logits, _ = model(torch.as_tensor([fed]))  # (1, 8, V)
    assert_close([r.max_diff for r in records], 0.0, dtype="float32", reduction=logits_reduction(len(fed)),
                 scale=logits.abs().max().item())  # of the logits (the larger) and the rows
    assert fed[5:] == logits[0, 4:7].argmax(-1).tolist()  # each chosen token: the full pass's argmax
    assert records[-1].cache_bytes == 2 * 2 * 2 * 8 * 8 * 4
    with pytest.raises(ConfigError, match="at most 16 tokens"):
        run_generation(model, [1] * 10, Spec, generate=7)
