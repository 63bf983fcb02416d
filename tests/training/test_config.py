"""TrainConfig: recipe defaults, one clear message per bad field, JSON round trip."""

import pytest

from explorer.core import ConfigError
from explorer.core.training import TASKS, TrainConfig, validate_train


def test_the_defaults_are_the_measured_recipe():
    c = validate_train(TrainConfig())
    assert (c.task, c.n_layers, c.n_heads, c.d_model, c.vocab, c.seq_len) == ("induction", 2, 4, 64, 64, 32)
    assert (c.lr, c.batch, c.device) == (3e-3, 64, "cpu")


def test_the_config_is_frozen():
    with pytest.raises(AttributeError):
        TrainConfig().seed = 3  # type: ignore[misc]


@pytest.mark.parametrize("changes, message", [
    ({"task": "copy"}, "unknown task 'copy'; choose one of: induction"),
    ({"n_layers": 3}, "layers must be between 1 and 2, got 3"),
    ({"n_layers": 0}, "layers must be between 1 and 2, got 0"),
    ({"n_heads": 5}, "d_model (64) must be divisible by heads (5)"),
    ({"n_heads": 2.0}, "heads must be a whole number, got 2.0"),
    ({"d_model": True}, "d_model must be a whole number, got True"),
    ({"seq_len": 4}, "sequence length must be between 8 and 256, got 4"),
    ({"vocab": 8, "seq_len": 64},
     "vocabulary size must be at least 24 for task 'induction' at sequence length 64, got 8"),
    ({"task": "sort", "vocab": 2, "seq_len": 8}, "vocabulary size must be at least 3 for task 'sort'"),
    ({"seed": -1}, "seed must be between 0 and 4294967295, got -1"),
    ({"lr": 0.0}, "learning rate must be a number in (0, 1], got 0.0"),
    ({"lr": "fast"}, "learning rate must be a number in (0, 1], got 'fast'"),
    ({"steps": 0}, "steps must be between 1 and 100000, got 0"),
    ({"batch": 0}, "batch must be between 1 and 4096, got 0"),
    ({"log_every": 0}, "log interval must be between 1"),
    ({"snapshot_every": -5}, "snapshot interval must be between 1"),
    ({"steps": 100_000, "snapshot_every": 1, "seq_len": 256, "vocab": 256, "n_heads": 16},
     "snapshots would take"),
    ({"batch": 4096, "seq_len": 256, "vocab": 256, "n_heads": 16, "snapshot_every": 100},
     "a step at batch 4096 would need about"),
    ({"device": "gpu"}, "device must be cpu, cuda or cuda:N, got 'gpu'"),
])
def test_each_bad_field_is_named_in_the_message(changes, message):
    with pytest.raises(ConfigError) as info:
        validate_train(TrainConfig().replace(**changes))
    assert message in str(info.value)


@pytest.mark.parametrize("task", list(TASKS))
def test_every_task_validates_at_the_recipe_size(task):
    assert validate_train(TrainConfig(task=task)).task == task


def test_json_round_trip_and_bad_json():
    c = TrainConfig(task="reverse", seed=7, n_layers=1, lr=1e-3)
    assert TrainConfig.from_json(c.to_json()) == c
    with pytest.raises(ConfigError, match="not valid JSON"):
        TrainConfig.from_json("{")
    with pytest.raises(ConfigError, match="unknown training config field"):
        TrainConfig.from_json('{"task": "induction", "mlp": true}')
    with pytest.raises(ConfigError, match="layers must be between"):
        TrainConfig.from_json('{"n_layers": 9}')
    with pytest.raises(ConfigError, match="must be a JSON object"):
        TrainConfig.from_json("[1]")
