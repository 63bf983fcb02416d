"""What each topic view asks the background runner to compute (Qt-free, run on its thread).

A topic view's `request()` returns one of these functions and its arguments, built by the
``*_job`` functions below from the latest result and the topic settings in the app state
(`topic_settings.TopicSettings`, never a widget); the view only draws what comes back. The
d_model sweep of the scaling topic is cached here by its inputs (seconds to compute; the same
sentence, heads and seed give the same sweep).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.topics import (CrossConfig, CrossResult, EncoderConfig, EncoderResult, HeadImportance,
                           PruneResult, cross_attention, d_model_sweep, encoder_block,
                           head_importance, mask_layers, prune_heads, score_statistics)
from ...core import Cancelled
from ...core.config import split_sentence
from ...core.topics.peft import PeftConfig, PeftResult, peft_topic
from ...core.topics.scaling import ScoreStats, SweepResult
from .topic_settings import TopicSettings

PAD = "<pad>"

SWEEP_SEEDS = 4
SWEEP_MAX_TOKENS = 128  # the sweep uses at most this many tokens (it is about d_model)
_SWEEPS: dict[tuple, SweepResult] = {}  # finished sweeps by their inputs (touched on the worker)


def compute_masks(result):
    return result, mask_layers(result.config)


def encoder_request(text: str, pad_is_padding: bool) -> tuple[tuple[str, ...], frozenset[int]]:
    tokens = split_sentence(text)
    padding = frozenset(i for i, t in enumerate(tokens) if pad_is_padding and t == PAD)
    return tokens, padding


def compute_cross(config, tokens, padding) -> CrossResult:
    return cross_attention(CrossConfig(config, tokens, padding))


def compute_encoder(config, norm_first: bool, activation: str, d_ff,
                    should_stop=None) -> EncoderResult | None:
    """The encoder block (worker thread); None once a newer request made it stale (~5 s at
    1024 tokens x d_model 2048: it stops within ~0.1 s of a poll instead)."""
    try:
        return encoder_block(EncoderConfig(config, norm_first=norm_first, activation=activation,
                                           d_ff=d_ff), should_stop=should_stop)
    except Cancelled:
        return None


compute_encoder.cancellable = True


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


def compute_peft(config: PeftConfig, should_stop=None) -> PeftResult | None:
    """The PEFT topic's base and adapted attention (worker thread); None once stale (training
    and the forwards poll `should_stop`)."""
    try:
        return peft_topic(config, should_stop=should_stop)
    except Cancelled:
        return None


compute_peft.cancellable = True


# ----- jobs: (fn, *args) for a topic view's runner, read from the topic settings ----------------
def masks_job(result, topics: TopicSettings) -> tuple:
    return (compute_masks, result)


def cross_job(result, topics: TopicSettings) -> tuple:
    tokens, padding = encoder_request(topics.cross_text, topics.cross_pad_is_padding)
    return (compute_cross, result.config, tokens, padding)


def encoder_job(result, topics: TopicSettings) -> tuple:
    return (compute_encoder, result.config, topics.encoder_norm_first, topics.encoder_activation,
            topics.encoder_d_ff)


def pruning_head_mask(topics: TopicSettings, heads: int) -> np.ndarray:
    """The pruning topic's mask for `heads` heads: the saved one when it fits, else all kept."""
    mask = topics.pruning_mask
    if mask is None or len(mask) != heads:
        return np.ones(heads, dtype=bool)
    return np.array(mask, dtype=bool)


def pruning_job(result, topics: TopicSettings, importance=None) -> tuple:
    return (compute_pruning, result, pruning_head_mask(topics, result.config.n_heads), importance)


def scaling_job(result, topics: TopicSettings) -> tuple:
    return (compute_scaling, result, topics.scaling_init)


def peft_config(result, topics: TopicSettings) -> PeftConfig:
    """The PEFT topic's setting for `result`: r is kept within 1 … d_model (the saved r may be
    larger than a smaller model allows; the core refuses what is still out of range)."""
    d = result.config.d_model
    return PeftConfig(attention=result.config, method=topics.peft_method, target=topics.peft_target,
                      rank=max(1, min(topics.peft_rank, d)), alpha=topics.peft_alpha,
                      rslora=topics.peft_rslora, b_init=topics.peft_b_init, steps=topics.peft_steps,
                      adapter_seed=topics.peft_seed, ia3_strength=topics.peft_ia3_strength,
                      virtual=topics.peft_virtual, layers=topics.peft_layers)


def peft_job(result, topics: TopicSettings) -> tuple:
    return (compute_peft, peft_config(result, topics))
