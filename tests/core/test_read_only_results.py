"""Results are handed from the compute thread to the GUI and topic threads: nobody may mutate them."""

import dataclasses

import numpy as np
import pytest

from explorer.core import AttentionConfig, forward, run_kv_cache

CONFIG = AttentionConfig(tokens=("a", "b", "c", "d"), d_model=8, n_heads=2, causal=True,
                         padding=frozenset({0}), positional=True)


def arrays_of(obj) -> dict[str, np.ndarray]:
    found = {}
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        if isinstance(value, np.ndarray):
            found[field.name] = value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            found.update({f"{field.name}.{k}": v for k, v in arrays_of(value).items()})
    return found


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_every_array_of_a_result_is_read_only(backend):
    result = forward(CONFIG.replace(backend=backend))
    arrays = arrays_of(result)
    assert {"weights", "scores", "output", "mask", "stats.entropy"} <= set(arrays)
    writable = [name for name, a in arrays.items() if a.flags.writeable]
    assert writable == []
    with pytest.raises(ValueError):
        result.weights[0, 0, 0] = 1.0


def test_kv_trace_arrays_are_read_only():
    trace = run_kv_cache(CONFIG)
    assert not trace.keys.flags.writeable and not trace.values.flags.writeable
    for step in trace.steps:
        assert not any(a.flags.writeable for a in (step.q, step.weights, step.output))
