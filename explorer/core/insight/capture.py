"""One forward pass of a natively run model that keeps what the insight views need.

    if can_capture(model):                               # a core.learned LoadedModel
        run = captured_run(model, tokens)                # attentions, values, key norms, hidden states
        norms = value_norms(run.attentions, run.key_norms)   # (layers, heads, n, n)
        lens = logit_lens(model, run.hidden_states)      # decoders

`model` is what a native source loads (`source.load(device)`: the bundled models, an own
checkpoint of a native family). A model run through transformers declares no `captures`
(core/checkpoints/native.py), so `can_capture` is False and `captured_run` refuses with one line;
its attention alone still gives sinks, rollout, flow and words. Arrays come back as numpy on the
CPU (float32, as the forward computed them). The key norms ‖v_j^h W_O^h‖ are computed in torch
where the forward ran (W_O stays there: 40 MB for SmolLM2; and numpy's BLAS threads, started
beside torch's, slowed the same products 30-fold on a busy 2-core machine). torch is imported
inside the run only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import ConfigError
from ..messages import QT_TRANSLATE_NOOP

CAPTURES = ("values", "hidden_states")
NOT_NATIVE = QT_TRANSLATE_NOOP(
    "core", "{model}: value norms and the logit lens need the app's own forward (this model goes "
    "through transformers)")


@dataclass(frozen=True)
class Captured:
    tokens: object                      # core.learned Tokens (padding included)
    n_real: int                         # tokens before the padding
    attentions: np.ndarray              # (layers, heads, n, n) float32
    values: np.ndarray | None           # (layers, kv_heads, n, d_head)
    key_norms: np.ndarray | None        # (layers, heads, n): ‖v_j^h W_O^h‖ (value_norms.key_norms)
    hidden_states: np.ndarray | None    # (layers + 1, n, d_model), before any final norm

    @property
    def padding(self) -> int:
        return len(self.tokens.ids) - self.n_real


def can_capture(model, capture=CAPTURES) -> bool:
    """Whether `model`'s forward can give everything `capture` names (declared, never probed)."""
    return set(capture) <= set(getattr(model.weights, "captures", ()))


def captured_run(model, tokens, capture=CAPTURES, padding: int = 0) -> Captured:
    """The forward over `tokens` (padding tokens appended and masked as keys, as
    core.learned.analysis.run) keeping `capture`; ConfigError when the model cannot."""
    import torch
    from ..learned.analysis import check_length, padded
    unknown = set(capture) - set(CAPTURES)
    if unknown:
        raise ValueError(f"capture takes {', '.join(CAPTURES)}, not {sorted(unknown)}")
    if not can_capture(model, capture):
        raise ConfigError.of(NOT_NATIVE, model=model.spec.name)
    n = len(tokens.ids)
    tokens = padded(model, tokens, padding)
    check_length(model, len(tokens.ids))
    keys = (torch.arange(len(tokens.ids), device=model.device) < n) if padding else None  # (n + pad,)
    with torch.inference_mode():
        out = model.weights.forward(list(tokens.ids), None, keys, capture=tuple(capture))
        norms = torch_key_norms(out["values"], out["w_o"], model.spec.heads) if "values" in out else None

    def numpy(t):
        return None if t is None else t.float().cpu().numpy()
    return Captured(tokens, n, numpy(out["attentions"]), numpy(out.get("values")), numpy(norms),
                    numpy(out.get("hidden_states")))


def torch_key_norms(values, w_o, heads: int):
    """value_norms.key_norms in torch: values (layers, kv_heads, n, d_head), W_O per layer
    (d_model, heads · d_head) (out, in) -> (layers, heads, n)."""
    import torch
    kv_heads, d_head = values.shape[1], values.shape[3]
    norms = []
    for v, w in zip(values, w_o):
        per_head = w.reshape(w.shape[0], heads, d_head).permute(1, 2, 0)  # (heads, d_head, d_model)
        mixed = v.repeat_interleave(heads // kv_heads, dim=0)  # (heads, n, d_head)
        norms.append(torch.linalg.vector_norm(mixed @ per_head, dim=-1))  # (heads, n)
    return torch.stack(norms)
