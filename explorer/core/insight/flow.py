"""Attention flow (Abnar & Zuidema 2020): rollout's matrices read as a network of pipes.

The layered graph has one node per (layer boundary, position): the input tokens at boundary 0,
each layer's outputs above them. The edge from position j below layer l to position i above it
has capacity Â_l[i, j], the residual-augmented attention of rollout.residual_attention. The flow
from input token j to position i after layer l is the maximum flow from node (0, j) to node
(l + 1, i): unlike rollout's products, a path can carry no more than its narrowest edge, and the
paths share their pipes.

One maximum flow per (i, j) pair: n² flows over a graph of about l · n² edges, solved with
Dinic's algorithm (pure Python, no networkx). The work grows like l · n⁴, so flow is computed
only up to `FLOW_WORK_LIMIT` (measured below: at most about half a second on the development
machine); beyond it `attention_flow` gives no weights and the reason (`max_tokens_for_flow`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import ConfigError
from ..messages import QT_TRANSLATE_NOOP
from .rollout import residual_attention

# The work attention_flow allows: a quarter to half a second for real heads on the shared 2-core
# development machine (MiniLM 6 layers × 14 tokens, e5 12 × 12, SmolLM2 30 × 13: 0.25 s each at load
# average 3.5, 0.4-0.6 s at 4.5-6; MiniLM at 16 tokens took 0.81 s).
# A decoder's graph is causal: half the edges and half the (input, position) pairs, a quarter of
# the work, so it gets more tokens (SmolLM2, 30 layers: 13). 64 tokens are far beyond (10⁸ at 6 layers).
FLOW_WORK_LIMIT = 250_000
TOO_BIG = QT_TRANSLATE_NOOP(
    "core", "attention flow is computed up to {limit} tokens at {layers} layers (it needs n² maximum "
    "flows); this sequence has {n} tokens: rollout shows the same layers")


@dataclass(frozen=True)
class Flow:
    """The flow into every position after `layer`: weights (n, n) float64, rows the positions,
    columns the input tokens; None with `reason` (a ConfigError, not raised) when too big."""

    layer: int
    weights: np.ndarray | None
    reason: ConfigError | None = None


def flow_work(layers: int, n: int, causal: bool = False) -> float:
    """The work estimate attention_flow compares with FLOW_WORK_LIMIT: the (input, position) pairs
    times the edges, layers · n⁴ (a quarter of it for a causal graph)."""
    return layers * n ** 4 / (4 if causal else 1)


def max_tokens_for_flow(layers: int, causal: bool = False, limit: int = FLOW_WORK_LIMIT) -> int:
    """The longest sequence whose flow through `layers` layers is computed."""
    n = 1
    while flow_work(layers, n + 1, causal) <= limit:
        n += 1
    return n


def attention_flow(attentions: np.ndarray, layer: int | None = None,
                   limit: int = FLOW_WORK_LIMIT) -> Flow:
    """Flow from each input token to each position after `layer` (default: the last), through
    layers 0..layer of `attentions` (layers, heads, n, n). A causal graph (no weight above the
    diagonal: a decoder) gets the decoder's limit; a pair with no path between them has flow 0."""
    steps = residual_attention(attentions).astype(np.float64)  # (layers, n, n)
    layer = len(steps) - 1 if layer is None else layer
    if not 0 <= layer < len(steps):
        raise ValueError(f"layer must be 0..{len(steps) - 1}, not {layer}")
    steps, n = steps[:layer + 1], steps.shape[-1]
    causal = not np.triu(steps, 1).any()
    if flow_work(layer + 1, n, causal) > limit:
        most = max_tokens_for_flow(layer + 1, causal, limit)
        return Flow(layer, None, ConfigError.of(TOO_BIG, limit=most, layers=layer + 1, n=n))
    reach = np.eye(n)
    for step in steps:
        reach = (step @ reach) > 0  # (n, n): position i is reached from input j (rollout > 0)
    flows = np.zeros((n, n))  # (positions, input tokens)
    for i in range(n):
        graph = LayeredGraph(list(steps), sink=i)
        for j in np.flatnonzero(reach[i]):
            flows[i, j] = graph.max_flow(int(j))
    return Flow(layer, flows)


class LayeredGraph:
    """A graph of layer boundaries 0..L, n nodes each; capacities[l][i, j] is the edge from node j
    of boundary l to node i of boundary l + 1 (rows are the upper nodes, as attention's queries).
    Only `sink` of the top boundary is kept there (the other top nodes lead nowhere)."""

    def __init__(self, capacities: list[np.ndarray], sink: int):
        self.n = capacities[0].shape[1]
        self.sink_node = len(capacities) * self.n + sink
        self.head: list[int] = []      # edge -> the node it points to (edge ^ 1 is its reverse)
        self.capacity: list[float] = []
        self.out: list[list[int]] = [[] for _ in range((len(capacities) + 1) * self.n)]
        # residual capacities below this are round-off (a reverse edge's 1e-17), not a path
        self.eps = 1e-12 * max(float(np.abs(cap).max(initial=0.0)) for cap in capacities)
        top = len(capacities) - 1
        for layer, cap in enumerate(capacities):
            for i in (range(cap.shape[0]) if layer < top else (sink,)):
                for j in range(cap.shape[1]):
                    if cap[i, j] > 0:
                        self._edge(layer * self.n + j, (layer + 1) * self.n + i, float(cap[i, j]))

    def _edge(self, a: int, b: int, capacity: float) -> None:
        for node, to, c in ((a, b, capacity), (b, a, 0.0)):
            self.out[node].append(len(self.head))
            self.head.append(to)
            self.capacity.append(c)

    def max_flow(self, source: int) -> float:
        """The maximum flow from node `source` of boundary 0 to the sink (Dinic's algorithm)."""
        residual = list(self.capacity)
        total = 0.0
        while True:
            level = self._levels(source, residual)
            if level[self.sink_node] < 0:
                return total
            total += self._blocking_flow(source, residual, level)

    def _levels(self, source: int, residual: list[float]) -> list[int]:
        """Breadth-first distances from `source` over edges with residual capacity (-1: unreached)."""
        level = [-1] * len(self.out)
        level[source] = 0
        frontier = [source]
        while frontier and level[self.sink_node] < 0:
            following = []
            for u in frontier:
                for e in self.out[u]:
                    v = self.head[e]
                    if level[v] < 0 and residual[e] > self.eps:
                        level[v] = level[u] + 1
                        following.append(v)
            frontier = following
        return level

    def _blocking_flow(self, source: int, residual: list[float], level: list[int]) -> float:
        """Augment along shortest paths until none is left at these levels (iterative DFS with a
        current edge per node: each dead end is dropped once)."""
        current = [0] * len(self.out)
        total, path, u = 0.0, [], source
        while True:
            if u == self.sink_node:
                pushed = min(residual[e] for e in path)
                for e in path:
                    residual[e] -= pushed
                    residual[e ^ 1] += pushed
                total += pushed
                path, u = [], source
                continue
            edges = self.out[u]
            while current[u] < len(edges):
                e = edges[current[u]]
                if residual[e] > self.eps and level[self.head[e]] == level[u] + 1:
                    break
                current[u] += 1
            if current[u] < len(edges):
                e = edges[current[u]]
                path.append(e)
                u = self.head[e]
                continue
            if u == source:
                return total
            level[u] = -1  # a dead end: leave it out of this phase
            e = path.pop()
            u = self.head[e ^ 1]
            current[u] += 1
