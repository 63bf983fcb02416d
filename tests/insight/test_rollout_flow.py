"""Rollout against an independent float64 implementation (from the weights `dump` prints, too);
attention flow against the max-flow min-cut theorem on tiny graphs (brute-force cuts)."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from explorer.cli import main
from explorer.core.insight import attention_flow, max_tokens_for_flow, residual_attention, rollout
from explorer.core.insight.flow import LayeredGraph
from numeric import assert_close

TEXT = "the cat sat on the mat and the dog sat"


def reference_rollout(weights) -> np.ndarray:
    """Abnar & Zuidema's rollout written out: float64, one layer after the other."""
    w = np.asarray(weights, dtype=np.float64)  # (layers, heads, n, n)
    n = w.shape[-1]
    joint, out = np.eye(n), []
    for layer in w:
        a = layer.mean(axis=0) * 0.5 + np.eye(n) * 0.5
        a = a / a.sum(axis=1, keepdims=True)
        joint = a @ joint
        out.append(joint)
    return np.stack(out)


def random_attention(rng, layers, heads, n, causal=False):
    scores = rng.standard_normal((layers, heads, n, n)) * 3
    if causal:
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    a = np.exp(scores - scores.max(-1, keepdims=True))
    return (a / a.sum(-1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("causal", [False, True])
def test_rollout_equals_the_reference(causal):
    a = random_attention(np.random.default_rng(3), 6, 4, 12, causal)  # float32, as the models give
    got = rollout(a)
    assert got.dtype == np.float32 and got.shape == (6, 12, 12)
    assert_close(got, reference_rollout(a), dtype="float32", reduction=6 * 12)
    assert_close(got.sum(-1), np.ones((6, 12)), dtype="float32", reduction=6 * 12)
    if causal:  # a decoder's rollout stays causal
        assert np.all(np.triu(got[-1], 1) == 0)


def test_the_identity_is_not_forgotten():
    """One head that looks only at the previous token: rollout keeps half of each token in place."""
    a = np.zeros((1, 1, 3, 3))
    a[0, 0, 0, 0], a[0, 0, 1, 0], a[0, 0, 2, 1] = 1, 1, 1
    np.testing.assert_array_equal(rollout(a)[0], [[1, 0, 0], [0.5, 0.5, 0], [0, 0.5, 0.5]])


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_dumped_rollout_equals_the_reference_from_the_dumped_weights(tiny_pair, capsys):
    doc = run_cli(capsys, "dump", "--model", tiny_pair("bert").folder, "--text", TEXT, "--rollout")
    weights = np.array(doc["weights"])  # (layers, heads, n, n), rounded to 6 decimals
    layers, n = weights.shape[0], weights.shape[-1]
    got = np.array(doc["rollout"]["weights"])
    # not a float tolerance: both sides are printed to 6 decimals, the rounding carried through the layers
    assert np.abs(got - reference_rollout(weights)).max() <= 5e-7 * (1 + layers * n)
    flow = doc["rollout"]["flow"]
    assert (flow["weights"] is None) == (n > max_tokens_for_flow(layers)) and flow["layer"] == layers - 1


def test_course_dump_rollout_is_its_one_layer(capsys):
    doc = run_cli(capsys, "dump", "--preset", "course-lab3", "--rollout")
    expected = reference_rollout(np.array(doc["weights"])[None])
    assert np.abs(np.array(doc["rollout"]["weights"]) - expected).max() <= 1e-6
    assert doc["rollout"]["flow"]["weights"] is not None  # 4 tokens, 1 layer


# ----- attention flow ---------------------------------------------------------------------------

def brute_min_cut(caps: list[np.ndarray], source: int, sink: int) -> float:
    """The smallest cut between node `source` of boundary 0 and `sink` of the top one, over every
    set of the nodes in between (the other bottom nodes have no way in, the other top ones no way on)."""
    layers, n = len(caps), caps[0].shape[1]
    inner = [(b, k) for b in range(1, layers) for k in range(n)]
    best = np.inf
    for chosen in itertools.product((False, True), repeat=len(inner)):
        side = {(0, source)} | {node for node, c in zip(inner, chosen) if c}
        best = min(best, cut_capacity(caps, side, sink))
    return best


def cut_capacity(caps, side: set, sink: int) -> float:
    total = 0.0
    for b, cap in enumerate(caps):
        for i in range(cap.shape[0]):
            if (b + 1 == len(caps) and i != sink) or (b + 1, i) in side:
                continue
            total += sum(cap[i, j] for j in range(cap.shape[1]) if (b, j) in side)
    return total


def sparse_capacities(layers: int, n: int, seed: int) -> list[np.ndarray]:
    """`layers` random (n, n) capacity matrices, about 30 % of the edges missing."""
    rng = np.random.default_rng(seed)
    return [rng.random((n, n)) * (rng.random((n, n)) < 0.7) for _ in range(layers)]


graphs = st.builds(sparse_capacities, st.integers(1, 3), st.integers(1, 3), st.integers(0, 2 ** 31))


@settings(max_examples=200, deadline=None)
@given(caps=graphs, data=st.data())
def test_max_flow_equals_the_brute_force_min_cut(caps, data):
    n = caps[0].shape[1]
    source, sink = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    flow = LayeredGraph(caps, sink).max_flow(source)
    assert_close(flow, brute_min_cut(caps, source, sink), dtype="float64", reduction=len(caps) * n * n)


@settings(max_examples=100, deadline=None)
@given(layers=st.integers(1, 4), n=st.integers(2, 6), seed=st.integers(0, 2 ** 31), data=st.data())
def test_flow_is_at_most_every_cut(layers, n, seed, data):
    a = random_attention(np.random.default_rng(seed), layers, 2, n)
    caps = list(residual_attention(a).astype(np.float64))  # the graph's capacities
    flow = attention_flow(a).weights  # (n, n)
    for _ in range(10):
        source, sink = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        inner = {(b, k) for b in range(1, layers) for k in range(n) if data.draw(st.booleans())}
        cut = cut_capacity(caps, {(0, source)} | inner, sink)
        assert flow[sink, source] <= cut + 1e-12 * layers * n


def test_one_layer_flow_is_the_edge_and_a_chain_of_identities_keeps_each_token():
    a = random_attention(np.random.default_rng(0), 3, 2, 5)
    np.testing.assert_array_equal(attention_flow(a, layer=0).weights, residual_attention(a)[0].astype(np.float64))
    eye = np.broadcast_to(np.eye(4), (3, 2, 4, 4))
    np.testing.assert_array_equal(attention_flow(eye).weights, np.eye(4))


def test_flow_beyond_its_limit_says_why():
    layers = 6
    n = max_tokens_for_flow(layers) + 1
    flow = attention_flow(random_attention(np.random.default_rng(0), layers, 2, n))
    assert flow.weights is None and flow.layer == layers - 1
    assert f"up to {n - 1} tokens at {layers} layers" in str(flow.reason) and "\n" not in str(flow.reason)
    assert attention_flow(random_attention(np.random.default_rng(0), layers, 2, n - 1)).weights is not None
