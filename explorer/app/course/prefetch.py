"""Drawing the weights of the neighbouring seeds beside the forward pass.

A seed slider or spin box moves by ±1, and at 128 tokens x d_model 512 most of a new seed's
forward pass is drawing its weights (4 · 512² normals from the legacy ``RandomState`` the
course's numbers depend on: 18-40 ms on 2 cores). The compute worker queues, with each
request, a job on a thread of its own that draws seed + 1, then seed - 1, into
``core.weights.draw_weights``' cache (keyed by everything that defines the draw: seed,
tokens, d_model, init; at most 4 draws kept) while the request's forward pass runs on the other
core, so the next step finds them ready (or being drawn: it then waits for that draw).

Never in the way of a real request: the job polls between the five draws of each seed and stops
as soon as another thread waits to draw other weights (and begins that seed again once that
draw is done), or a newer request has made the job stale (a draw of the newest request's own
weights always finishes: that is the work its compute would do first). A stopped draw caches
nothing. Sizes whose draws would take more than a few tens of ms or hold much memory are not
prefetched (MAX_NUMBERS).
"""

from __future__ import annotations

from typing import Callable

from ...core import AttentionConfig, Cancelled
from ...core.weights import draw_weights_polling

MAX_NUMBERS = 2_000_000  # normals per draw (n·d + 4·d²): d_model 512 at 512 tokens is 1.3 M


def weight_key(config: AttentionConfig) -> tuple:
    """What defines a draw (draw_weights' cache key)."""
    return config.seed, config.n_tokens, config.d_model, config.init


def neighbours(config: AttentionConfig) -> list[tuple]:
    """The draws to prefetch after `config`: seed + 1, then seed - 1 (not below 0); none for
    sizes above MAX_NUMBERS."""
    seed, n, d, init = weight_key(config)
    if n * d + 4 * d * d > MAX_NUMBERS:
        return []
    return [(s, n, d, init) for s in (seed + 1, seed - 1) if s >= 0]


def prefetch(keys: list[tuple], wanted: Callable[[], tuple | None],
             draw_waiting: Callable[[], bool], should_stop: Callable[[], bool],
             give_way: Callable[[Callable[[], bool]], bool] | None = None) -> int:
    """Draw `keys` in order (prefetch thread); the number drawn or found cached.

    `wanted()`: the weight key of the newest compute request; `draw_waiting()`: another
    thread waits to draw; `should_stop()`: this job's cancel token (a newer request, or
    closing). Neither stops the draw of the wanted key. A draw stopped for a waiting thread
    is begun again once `give_way(stale)` returns True (it waits until no other draw
    waits; False: the job is stale or closing); without `give_way` the job ends there."""
    done = 0
    for key in keys:
        def stale(key=key) -> bool:  # never for the newest request's own weights
            return wanted() != key and should_stop()

        def stop(key=key) -> bool:
            return wanted() != key and (should_stop() or draw_waiting())
        while True:
            try:
                if not stop():
                    draw_weights_polling(*key, should_stop=stop)
                    break
            except Cancelled:
                pass
            # it gave way: the job is stale, or another thread waits for its draw
            if give_way is None or stale() or not give_way(stale):
                return done
        done += 1
    return done
