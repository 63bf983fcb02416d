"""Every bad input raises ConfigError with a readable message; the limits themselves work."""

import unicodedata

import numpy as np
import pytest

from explorer.core import (MAX_D_MODEL, MAX_TOKENS, SEED_MAX, AttentionConfig, ConfigError,
                           DeviceUnavailableError, forward, list_devices, validate)
from explorer.core.config import token_problem

from numeric import assert_close

BASE = AttentionConfig()

BAD = [
    ({"d_model": 8, "n_heads": 3}, "divisible"),
    ({"tokens": ()}, "empty"),
    ({"tokens": ("a",) * (MAX_TOKENS + 1)}, "1024"),
    ({"tokens": ("a", "")}, "empty"),
    ({"d_model": MAX_D_MODEL + 2, "n_heads": 2}, "2048"),
    ({"d_model": 0, "n_heads": 1}, "d_model"),
    ({"d_model": -8}, "d_model"),
    ({"d_model": 8.0}, "whole number"),
    ({"n_heads": 0}, "heads"),
    ({"n_heads": -2}, "heads"),
    ({"seed": -1}, "seed"),
    ({"seed": SEED_MAX + 1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"seed": "1"}, "seed"),
    ({"seed": True}, "seed"),
    ({"padding": frozenset({4})}, "padding"),
    ({"padding": frozenset({-1})}, "padding"),
    ({"backend": "jax"}, "backend"),
    ({"device": "tpu"}, "device"),
    ({"device": "cuda:x"}, "device"),
    ({"backend": "torch", "device": 0}, "device"),
    ({"dtype": "float16"}, "dtype"),
    ({"backend": "numpy", "device": "cuda"}, "numpy"),
    ({"backend": "numpy", "device": "cuda:0"}, "numpy"),
    ({"scaled": "yes"}, "scaled"),
    ({"init": "xavier"}, "init"),
]


@pytest.mark.parametrize("changes,word", BAD, ids=[str(c) for c, _ in BAD])
def test_bad_config_raises_config_error_with_a_readable_message(changes, word):
    config = BASE.replace(**changes)
    for call in (validate, forward):
        with pytest.raises(ConfigError) as info:
            call(config)
        message = str(info.value)
        assert word in message
        assert "\n" not in message and 10 < len(message) < 200
        assert "Traceback" not in message
    assert issubclass(ConfigError, ValueError)


@pytest.mark.parametrize("data", [
    {"tokens": 5}, {"padding": ["x"]}, {"d_model": "8"}, {"n_heads": 3}, "not a dict", [1, 2],
])
def test_from_dict_rejects_bad_settings(data):
    with pytest.raises(ConfigError):
        AttentionConfig.from_dict(data)


def test_from_dict_round_trip_and_unknown_keys():
    config = AttentionConfig(tokens=("a", "b", "c"), d_model=12, n_heads=3, seed=9, causal=True,
                             padding=frozenset({2}), positional=True, dtype="float32")
    data = config.to_dict()
    assert data["padding"] == [2] and data["tokens"] == ["a", "b", "c"]
    assert AttentionConfig.from_dict({**data, "future_field": 1}) == config


def test_limits_are_accepted_at_the_edges():
    longest = forward(AttentionConfig(tokens=("t",) * MAX_TOKENS, d_model=8, n_heads=2))
    assert longest.weights.shape == (2, MAX_TOKENS, MAX_TOKENS)
    # the softmax's normaliser and this sum: MAX_TOKENS terms each
    assert_close(longest.weights.sum(axis=-1), 1.0, reduction=2 * MAX_TOKENS, scale=1.0)
    widest = forward(AttentionConfig(tokens=("a", "b"), d_model=MAX_D_MODEL, n_heads=16))
    assert widest.output.shape == (2, MAX_D_MODEL) and widest.qh.shape == (16, 2, 128)
    assert np.isfinite(widest.output).all()
    smallest = forward(AttentionConfig(tokens=("a",), d_model=1, n_heads=1, seed=0))
    np.testing.assert_array_equal(smallest.weights, [[[1.0]]])
    validate(BASE.replace(seed=0))
    validate(BASE.replace(seed=SEED_MAX))
    validate(BASE.replace(d_model=MAX_D_MODEL, n_heads=MAX_D_MODEL // 8))


def test_cuda_where_there_is_none_is_a_clear_error():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    for device in ("cuda", "cuda:0", "cuda:3"):
        config = BASE.replace(backend="torch", device=device)
        validate(config)  # well-formed; only the machine lacks it
        with pytest.raises(DeviceUnavailableError) as info:
            forward(config)
        assert "CUDA" in str(info.value)


def test_list_devices_always_offers_numpy_torch_cpu_and_a_cuda_entry():
    import torch
    devices = list_devices()
    pairs = {(d.backend, d.device): d for d in devices}
    assert pairs[("numpy", "cpu")].available
    assert pairs[("torch", "cpu")].available
    cuda = [d for d in devices if d.device.startswith("cuda")]
    assert cuda, "a CUDA entry must always be listed"
    if not torch.cuda.is_available():
        assert len(cuda) == 1 and not cuda[0].available
        assert cuda[0].reason and "CUDA" in cuda[0].reason
    for d in devices:
        assert d.label and (d.available or d.reason)


def test_a_sentence_given_as_one_string_is_split_on_whitespace_not_into_characters():
    from explorer.core import AttentionConfig
    assert AttentionConfig.from_dict({"tokens": "나는 학교에"}).tokens == ("나는", "학교에")
    assert AttentionConfig(tokens="a  b\tc").tokens == ("a", "b", "c")


@pytest.mark.parametrize("data, word", [
    ({"padding": [float("inf")]}, "padding"),       # JSON Infinity: OverflowError in int()
    ({"padding": [float("nan")]}, "padding"),
    ({"padding": [1.5]}, "whole number"),           # was silently truncated to 1
    ({"padding": [True]}, "whole number"),
    ({"padding": [[1]]}, "padding"),
    ({"tokens": ["a", "b"], "padding": [1e308]}, "padding"),
    ({"seed": 10**400}, "seed"),
    ({"seed": 10**5000}, "seed"),                    # str() of it raises ValueError in 3.11
    ({"d_model": -10**5000}, "d_model"),
    ({"backend": "x" * 10_000}, "backend"),
    ({"device": ["cuda"] * 5000}, "device"),
])
def test_hostile_values_give_a_short_config_error(data, word):
    with pytest.raises(ConfigError) as info:
        AttentionConfig.from_dict(data)
    message = str(info.value)
    assert word in message and "\n" not in message and len(message) < 200, message


def test_integral_padding_of_any_integer_type_is_kept():
    config = AttentionConfig(tokens=("a", "b", "c"), padding={np.int64(2), 0})
    assert config.padding == frozenset({0, 2}) and validate(config) is config
    assert all(type(p) is int for p in config.padding)


def test_heads_times_tokens_squared_is_bounded_so_a_forward_fits_in_memory():
    from explorer.core import AttentionConfig, ConfigError, validate
    from explorer.core.config import MAX_ATTENTION_CELLS, max_heads_for
    tokens = tuple(f"t{i}" for i in range(1024))
    validate(AttentionConfig(tokens=tokens, d_model=1024, n_heads=16))  # the largest benchmark case
    with pytest.raises(ConfigError, match="too large to show.*16 heads at 1024 tokens"):
        validate(AttentionConfig(tokens=tokens, d_model=1024, n_heads=32))
    assert max_heads_for(1024) == 16 and max_heads_for(256) == 256 and max_heads_for(4) == 256
    assert all(max_heads_for(n) * n * n <= MAX_ATTENTION_CELLS for n in (300, 512, 700, 1024))


def test_unshowable_characters_are_unicodes_control_and_surrogate_categories():
    """The token check's one regex against its definition, every code point: category Cc or Cs,
    or one of the two non-characters U+FFFE / U+FFFF."""
    wrong = [cp for cp in range(0x110000)
             if (token_problem(f"a{chr(cp)}b") is not None)
             != (unicodedata.category(chr(cp)) in ("Cc", "Cs") or chr(cp) in "\ufffe\uffff")]
    assert wrong == []
