"""What raw attention weights hide (issue 25): the Qt-free maths beside the weights.

Every function takes plain arrays, so every model source can use what it can give:

| what | needs | function (module) |
|---|---|---|
| attention sinks | attentions, pieces | `sink_shares` (sinks) |
| rollout, flow | attentions | `rollout`, `attention_flow` (rollout, flow) |
| words, not pieces | attentions, pieces | `word_groups`, `group_attention` (words) |
| value-weighted attention | attentions, key norms | `value_norms`, `norm_disagreement` (value_norms) |
| logit lens | a decoder's hidden states | `logit_lens` (lens) |
| sampling | logits | `SamplingSettings`, `sampling_steps`, `Sampler` (sampling) |

Attentions are (layers, heads, n, n), rows the queries, as an `app.models.learned.Analysis`
holds them (the course model's one layer: `result.weights[None]`), so sinks, rollout, flow and
words work for every source. The key norms ‖v_j^h W_O^h‖ and the hidden states come from a
natively run model's forward with `capture` (core/checkpoints/native.py) through `captured_run`
(capture), for the model a source loads:

    model = source.load(device)                     # a bundled model, an own checkpoint, an adapter
    if model is not None and can_capture(model):    # not a model run through transformers
        ids = analysis.ids[:len(analysis.ids) - analysis.padding]
        run = captured_run(model, model.tokenizer.encode_ids(ids), padding=analysis.padding)
        norms = value_norms(analysis.attentions, run.key_norms)   # (layers, heads, n, n)
        lens = logit_lens(model, run.hidden_states, run.n_real)   # decoders

The course model's come from its AttentionResult (`course_value_norms`; `key_norms` in numpy).
Sampling plugs into core.learned.generation.run_generation as its `choose`.

Models' numbers are float32 as computed; the course model's float64. Results are numpy.
torch is imported only by `captured_run` and `logit_lens`.
"""

from .capture import CAPTURES, Captured, can_capture, captured_run
from .flow import FLOW_WORK_LIMIT, Flow, attention_flow, max_tokens_for_flow
from .lens import LogitLens, logit_lens
from .rollout import residual_attention, rollout
from .sampling import SampledStep, Sampler, SamplingSettings, SamplingSteps, Stage, sampling_steps
from .sinks import SinkShares, separator_positions, sink_shares
from .value_norms import course_value_norms, key_norms, layer_key_norms, norm_disagreement, value_norms
from .words import Words, group_attention, scheme_of, word_groups

__all__ = ["CAPTURES", "Captured", "FLOW_WORK_LIMIT", "Flow", "LogitLens", "SampledStep", "Sampler",
           "SamplingSettings", "SamplingSteps", "SinkShares", "Stage", "Words", "attention_flow",
           "can_capture", "captured_run", "course_value_norms", "group_attention", "key_norms", "layer_key_norms",
           "logit_lens", "max_tokens_for_flow", "norm_disagreement", "residual_attention", "rollout",
           "sampling_steps", "scheme_of", "separator_positions", "sink_shares", "value_norms", "word_groups"]
