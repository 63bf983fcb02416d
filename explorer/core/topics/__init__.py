"""Course topics beyond the self-attention heatmap (Qt-free, numpy float64).

qkv: Q/K/V projections and head slices; scaling: why ÷√d_head (statistics, d_model
sweep); cross: encoder–decoder attention; masking: padding/causal/combined masks;
pruning: head importance and head masks; encoder: attention + Add & Norm + FFN.
"""

from .cross import (DEFAULT_ENCODER_SENTENCE, ENCODER_SEED_OFFSET, CrossConfig, CrossResult,
                    cross_attend, cross_attention, encoder_input, validate_cross)
from .encoder import (ACTIVATIONS, FFN_SEED_OFFSET, EncoderConfig, EncoderResult, FFNWeights,
                      draw_ffn, encoder_block, gelu, layer_norm, validate_encoder)
from .masking import MaskLayers, check_no_nan, explain_empty_row, mask_layers
from .pruning import (ALL_PRUNED_NOTE, HeadImportance, PruneResult, head_contribution_norms,
                      head_contributions, head_importance, prune_heads, validate_head_mask)
from .qkv import HeadSlice, QKVBreakdown, qkv_breakdown
from .scaling import (INITS, SWEEP_D_MODELS, ScoreStats, SweepResult, d_model_sweep, draw_qk,
                      expected_raw_variance, histogram, raw_score_variance, score_statistics,
                      sweep_d_models, weight_std)

__all__ = [
    "ACTIVATIONS", "ALL_PRUNED_NOTE", "CrossConfig", "CrossResult", "DEFAULT_ENCODER_SENTENCE",
    "ENCODER_SEED_OFFSET", "EncoderConfig", "EncoderResult", "FFNWeights", "FFN_SEED_OFFSET",
    "HeadImportance", "HeadSlice", "INITS", "MaskLayers", "PruneResult", "QKVBreakdown",
    "SWEEP_D_MODELS", "ScoreStats", "SweepResult", "check_no_nan", "cross_attend",
    "cross_attention", "d_model_sweep", "draw_ffn", "draw_qk", "encoder_block", "encoder_input",
    "expected_raw_variance", "explain_empty_row", "gelu", "head_contribution_norms",
    "head_contributions", "head_importance", "histogram", "layer_norm", "mask_layers",
    "prune_heads", "qkv_breakdown",
    "raw_score_variance", "score_statistics", "sweep_d_models", "validate_cross",
    "validate_encoder", "validate_head_mask", "weight_std",
]
