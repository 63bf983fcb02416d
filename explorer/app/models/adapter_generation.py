"""An adapted decoder stepped with its real KV cache, for the Generate and KV tabs.

    run = generate_adapted(model, name, text, k)    # app.learned_generation.GenerationRun

LoRA and IA³ change weights only: the run is learned_generation.generate_with's. Prefix and prompt
tuning start the cache with v virtual positions (core.adapters.virtual: new_cache), so the run's
keys and values hold v + positions. Each step is then checked against the full causal pass over
its own prefix (run_generation's per-step check: the pass's last row is the step's query whatever
comes before it), not against one pass over the whole sequence (generate_with's one_pass reads
row t of that pass, which is another query once virtual tokens come first): n passes instead of
one, still well under a second for the small checkpoints this is meant for. Qt-free; torch inside
the job.
"""

from __future__ import annotations

import numpy as np

from .learned_generation import GenerationRun, generate_with


def generate_adapted(model, name: str, text: str, k: int, should_stop=None, fit: bool = False) -> GenerationRun:
    """The text, then `k` greedy tokens of the adapted decoder `model` (core.adapters AdaptedModel)."""
    if not model.virtual_tokens:
        return generate_with(model, name, text, k, should_stop, fit)
    from ...core.learned.analysis import tokenize
    from ...core.learned.generation import run_generation
    tokens = tokenize(model, text)
    if fit:
        k = max(0, min(k, model.spec.max_tokens - len(tokens.ids)))
    records, cache, new = run_generation(model, tokens, k, check=True, keep_steps=True, should_stop=should_stop)
    keys = np.stack([t.float().cpu().numpy() for t in cache.keys])      # (layers, kv, v + positions, dh)
    values = np.stack([t.float().cpu().numpy() for t in cache.values])  # (layers, kv, v + positions, dh)
    return GenerationRun(name, len(tokens.ids), tuple(records), tuple(new.labels),
                         model.tokenizer.decode(new.ids), keys, values, text, model.spec)
