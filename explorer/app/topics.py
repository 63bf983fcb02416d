"""What each topic view asks the background runner to compute (Qt-free, run on its thread).

A topic view's `request()` returns one of these functions and its arguments; the view only
draws what comes back. The d_model sweep of the scaling topic is cached here by its inputs
(seconds to compute; the same sentence, heads and seed give the same sweep).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.topics import (CrossConfig, CrossResult, EncoderConfig, EncoderResult, HeadImportance,
                           PruneResult, cross_attention, d_model_sweep, encoder_block,
                           head_importance, mask_layers, prune_heads, score_statistics)
from ..core.topics.scaling import ScoreStats, SweepResult

SWEEP_SEEDS = 4
SWEEP_MAX_TOKENS = 128  # the sweep uses at most this many tokens (it is about d_model)
_SWEEPS: dict[tuple, SweepResult] = {}  # finished sweeps by their inputs (touched on the worker)


def compute_masks(result):
    return result, mask_layers(result.config)


def compute_cross(config, tokens, padding) -> CrossResult:
    return cross_attention(CrossConfig(config, tokens, padding))


def compute_encoder(config, norm_first: bool, activation: str, d_ff) -> EncoderResult:
    return encoder_block(EncoderConfig(config, norm_first=norm_first, activation=activation,
                                       d_ff=d_ff))


@dataclass(frozen=True)
class PruningData:
    result: object
    importance: HeadImportance
    pruned: PruneResult


def compute_pruning(result, head_mask, importance=None) -> PruningData:
    if importance is None:
        importance = head_importance(result)
    return PruningData(result, importance, prune_heads(result, head_mask))


@dataclass(frozen=True)
class ScalingData:
    stats: ScoreStats                  # includes the pooled histogram of raw (and scaled) scores
    sweep: SweepResult | None
    d_model: int
    scaled: bool


def sweep_key(config, init: str) -> tuple:
    n = min(config.n_tokens, SWEEP_MAX_TOKENS)
    padding = frozenset(p for p in config.padding if p < n)
    return (n, config.n_heads, config.seed, config.causal, padding, init, SWEEP_SEEDS)


def compute_scaling(result, init: str, should_stop=None) -> ScalingData | None:
    """Everything the view draws (worker thread). The sweep is reused when its inputs match."""
    stats = score_statistics(result)
    key = sweep_key(result.config, init)
    sweep = _SWEEPS.get(key)
    if sweep is None:
        n, heads, seed, causal, padding, init, seeds = key
        try:
            sweep = d_model_sweep(n, heads, seed, n_seeds=seeds, init=init, causal=causal,
                                  padding=padding, should_stop=should_stop)
        except ValueError:  # no sweep width divisible by this head count: histograms only
            sweep = None
        else:
            if sweep is None:
                return None  # superseded
            if len(_SWEEPS) > 16:
                _SWEEPS.clear()
            _SWEEPS[key] = sweep
    return ScalingData(stats, sweep, result.config.d_model, result.config.scaled)


compute_scaling.cancellable = True
