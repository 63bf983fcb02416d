"""The PEFT topic's trained B (core.topics.peft_train): hand-written gradients against torch's
autograd, the toy objective's target, and training that lowers the loss."""

import numpy as np
import pytest

from explorer.core import PRESETS, AttentionConfig, Cancelled, forward, model_input
from explorer.core.masks import build_mask
from explorer.core.topics.peft import LORA_TARGETS, PeftConfig, draw_lora, lora_scale, peft_topic
from explorer.core.topics.peft_train import (lora_gradients, previous_token_pattern, toy_target,
                                             train_lora)
from numeric import assert_close
from topic_support import attention_reduction, softmax_scale

LAB3 = PRESETS["course-lab3"].config
MASKED = AttentionConfig(tokens=("a", "<pad>", "b", "c", "d"), d_model=12, n_heads=3, seed=4,
                         causal=True, padding=frozenset({1}))


def _inputs(config):
    weights, _, x_in = model_input(config)
    allowed = build_mask(config.n_tokens, config.n_tokens, config.causal, config.padding)
    return weights, x_in, allowed


def torch_lora_loss(torch, config, target, a, b, scale, goal):
    """The same loss written in torch (float64), for autograd: W_target + scale·Aᵀ·Bᵀ, masked
    softmax, ½ · mean((Y − goal)²)."""
    weights, x_in, allowed = _inputs(config)
    t = lambda m: torch.from_numpy(np.array(m, dtype=np.float64))  # noqa: E731
    a_t, b_t = t(a).requires_grad_(), t(b).requires_grad_()
    w = {n: t(getattr(weights, "w_" + n)) for n in LORA_TARGETS}
    w[target] = w[target] + scale * a_t.T @ b_t.T
    x = t(x_in)
    h, n, d = config.n_heads, config.n_tokens, config.d_model
    split = lambda m: m.reshape(n, h, d // h).transpose(0, 1)  # noqa: E731
    q, k, v = (split(x @ w[name]) for name in "qkv")
    scores = q @ k.transpose(1, 2) / (d // h) ** 0.5
    scores = scores.masked_fill(~torch.from_numpy(allowed), float("-inf"))
    p = torch.nan_to_num(torch.softmax(scores, dim=-1))  # an all-masked row: weights 0
    y = (p @ v).transpose(0, 1).reshape(n, d) @ w["o"]
    loss = 0.5 * ((y - t(goal)) ** 2).mean()
    loss.backward()
    return float(loss.detach()), a_t.grad.numpy(), b_t.grad.numpy()


@pytest.mark.parametrize("config", [LAB3, MASKED], ids=["lab3", "causal+padding"])
@pytest.mark.parametrize("target", LORA_TARGETS)
def test_gradients_match_torch_autograd(config, target):
    torch = pytest.importorskip("torch")
    weights, x_in, allowed = _inputs(config)
    d, rank = config.d_model, 3
    a, b = draw_lora(5, rank, d, d, "seed")
    scale = lora_scale(8, rank)
    goal = toy_target(x_in, weights, config.n_heads, allowed, config.scaled)
    loss, d_a, d_b = lora_gradients(x_in, weights, target, a, b, scale, config.n_heads, allowed,
                                    config.scaled, goal)
    t_loss, t_a, t_b = torch_lora_loss(torch, config, target, a, b, scale, goal)
    # backward runs the forward's sums again (one attention layer) plus the r-term products;
    # the loss adds its n·d mean; errors scale with the gradients' size times the softmax's
    # (a score's error is a relative error of its row's weights)
    reduction = attention_reduction(d, config.d_head, config.n_tokens) * 2 + rank
    scores = softmax_scale(forward(config).scores)
    assert_close(loss, t_loss, dtype="float64", reduction=reduction + config.n_tokens * d,
                 scale=scores * max(1.0, t_loss))
    for mine, theirs in ((d_a, t_a), (d_b, t_b)):
        assert_close(mine, theirs, dtype="float64", reduction=reduction,
                     scale=scores * float(np.abs(theirs).max()))
    assert np.abs(t_a).max() > 1e-4 and np.abs(t_b).max() > 1e-4  # both really move


def test_no_gradient_for_a_while_b_is_zero():
    weights, x_in, allowed = _inputs(LAB3)
    a, b = draw_lora(0, 2, 8, 8, "zero")
    goal = toy_target(x_in, weights, 2, allowed, True)
    _loss, d_a, d_b = lora_gradients(x_in, weights, "q", a, b, 4.0, 2, allowed, True, goal)
    assert not d_a.any() and np.abs(d_b).max() > 0


def test_previous_token_pattern_keeps_rows_without_an_open_previous_key():
    weights = np.full((4, 4), 0.25)
    allowed = np.ones((4, 4), bool)
    allowed[:, 1] = False  # key 1 is padding: row 2 keeps its weights
    pattern = previous_token_pattern(weights, allowed)
    np.testing.assert_array_equal(pattern[0], weights[0])
    np.testing.assert_array_equal(pattern[1], [1, 0, 0, 0])
    np.testing.assert_array_equal(pattern[2], weights[2])
    np.testing.assert_array_equal(pattern[3], [0, 0, 1, 0])


@pytest.mark.parametrize("target", LORA_TARGETS)
def test_training_lowers_the_toy_loss(target):
    result = peft_topic(PeftConfig(LAB3, target=target, b_init="trained", steps=20))
    losses = result.lora.losses
    assert len(losses) == 21 and losses[-1] < 0.8 * losses[0]
    assert result.lora.b.any() and result.lora.check.ok


def test_training_on_q_turns_head_0_towards_the_previous_token():
    result = peft_topic(PeftConfig(LAB3, target="q", b_init="trained", steps=30))
    before = np.diagonal(result.base_weights[0], offset=-1).mean()
    after = np.diagonal(result.weights[0], offset=-1).mean()
    assert after > before + 0.3


def test_training_stops_when_asked():
    weights, x_in, allowed = _inputs(LAB3)
    a, b = draw_lora(0, 2, 8, 8, "zero")
    with pytest.raises(Cancelled):
        train_lora(x_in, weights, "q", a, b, 4.0, 2, allowed, True, 50, should_stop=lambda: True)
