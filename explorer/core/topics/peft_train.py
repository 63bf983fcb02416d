"""The toy objective the PEFT topic trains LoRA on, with its gradients written out (numpy float64).

Objective: "head 0 should attend to the previous token". The target T (n, d) is the base layer's
output with head 0's weights replaced by the previous-token pattern: query i puts all its weight
on key i − 1 when that key is open; the other rows (query 0, a closed key i − 1) keep the base's
own weights. The loss is ½ · mean((Y − T)²) over the adapted layer's output Y (n, d), so it is
0 for the base only if head 0 already looked back. LoRA on W_Q or W_K can reach T by moving
head 0's pattern; on W_V or W_O it cannot move any pattern and changes what the heads pass on
instead. Only A and B are trained (W frozen) by Adam (β₁ 0.9, β₂ 0.999), as peft trains its
adapters, at lr = LEARNING_RATE / √d_in: A's entries are about 1/√d_in, so a step moves them by
the same fraction at every width (a fixed lr made the loss grow at d_model 256). The gradients
are backpropagation by hand through the projections, the masked softmax and W_O (the tests check
them against torch's autograd).

Qt-free and independent of `peft` (this module imports no other topic module).
"""

from __future__ import annotations

import math

import numpy as np

from ..backends.numpy_ops import merge_heads, split_heads
from ..cancel import StopCheck, check
from ..masks import masked_softmax
from ..weights import Weights

LEARNING_RATE = 0.15  # divided by √d_in
BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


def previous_token_pattern(weights0: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """(n, n): row i one-hot on key i − 1 where that key is open, else `weights0`'s row i."""
    pattern = np.array(weights0, dtype=np.float64)  # (n, n)
    for i in range(1, pattern.shape[0]):
        if allowed[i, i - 1]:
            pattern[i] = 0.0
            pattern[i, i - 1] = 1.0
    return pattern


def _matrices(weights: Weights) -> dict[str, np.ndarray]:
    return {"q": weights.w_q, "k": weights.w_k, "v": weights.w_v, "o": weights.w_o}


def layer_forward(x_in, w: dict, n_heads: int, allowed, scaled: bool) -> dict:
    """One attention layer with everything the backward pass needs (w: q, k, v, o)."""
    q, k, v = x_in @ w["q"], x_in @ w["k"], x_in @ w["v"]  # (n, d)
    qh, kh, vh = (split_heads(m, n_heads) for m in (q, k, v))  # (h, n, d_head)
    div = math.sqrt(qh.shape[-1]) if scaled else 1.0
    p = masked_softmax(qh @ kh.transpose(0, 2, 1) / div, allowed)  # (h, n, n)
    concat = merge_heads(p @ vh)  # (n, d)
    return {"qh": qh, "kh": kh, "vh": vh, "p": p, "concat": concat, "div": div,
            "output": concat @ w["o"]}  # (n, d)


def toy_target(x_in, weights: Weights, n_heads: int, allowed, scaled: bool) -> np.ndarray:
    """(n, d) T: the base output with head 0 looking at the previous token."""
    base = layer_forward(x_in, _matrices(weights), n_heads, allowed, scaled)
    p = base["p"].copy()  # (h, n, n)
    p[0] = previous_token_pattern(p[0], allowed)
    return merge_heads(p @ base["vh"]) @ weights.w_o  # (n, d)


def weight_gradients(x_in, w: dict, n_heads: int, allowed, scaled: bool, target):
    """(loss, {q, k, v, o: ∂loss/∂W (d, d)}) of ½ · mean((Y − target)²)."""
    f = layer_forward(x_in, w, n_heads, allowed, scaled)
    diff = f["output"] - target  # (n, d)
    loss = 0.5 * float(np.mean(diff * diff))
    d_y = diff / diff.size  # (n, d)
    grads = {"o": f["concat"].T @ d_y}  # (d, d)
    d_out = split_heads(d_y @ w["o"].T, n_heads)  # (h, n, d_head)
    p = f["p"]
    d_p = d_out @ f["vh"].transpose(0, 2, 1)  # (h, n, n)
    d_vh = p.transpose(0, 2, 1) @ d_out  # (h, n, d_head)
    d_s = p * (d_p - (p * d_p).sum(axis=-1, keepdims=True)) / f["div"]  # (h, n, n), masked: 0
    d_qh = d_s @ f["kh"]  # (h, n, d_head)
    d_kh = d_s.transpose(0, 2, 1) @ f["qh"]  # (h, n, d_head)
    for name, dh in (("q", d_qh), ("k", d_kh), ("v", d_vh)):
        grads[name] = x_in.T @ merge_heads(dh)  # (d, d)
    return loss, grads


def lora_gradients(x_in, weights: Weights, target: str, a, b, scale: float, n_heads: int,
                   allowed, scaled: bool, goal):
    """(loss, ∂loss/∂A (r, d_in), ∂loss/∂B (d_out, r)) with W_target + scale · Aᵀ·Bᵀ.

    With G = ∂loss/∂W': ∂A = scale · Bᵀ·Gᵀ and ∂B = scale · Gᵀ·Aᵀ (so ∂A = 0 while B = 0:
    the first step moves only B, as in peft)."""
    w = _matrices(weights)
    w[target] = w[target] + scale * (a.T @ b.T)  # (d_in, d_out)
    loss, grads = weight_gradients(x_in, w, n_heads, allowed, scaled, goal)
    g = grads[target]  # (d_in, d_out)
    return loss, scale * (b.T @ g.T), scale * (g.T @ a.T)


def train_lora(x_in, weights: Weights, target: str, a, b, scale: float, n_heads: int, allowed,
               scaled: bool, steps: int, should_stop: StopCheck = None):
    """(A, B, losses) after `steps` Adam steps on the toy objective; losses[0] is before the
    first step, losses[-1] after the last (len steps + 1)."""
    goal = toy_target(x_in, weights, n_heads, allowed, scaled)
    a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    moments = [np.zeros_like(a), np.zeros_like(a), np.zeros_like(b), np.zeros_like(b)]
    lr = LEARNING_RATE / math.sqrt(a.shape[1])
    losses = []
    for t in range(1, steps + 1):
        check(should_stop, "LoRA training")
        loss, d_a, d_b = lora_gradients(x_in, weights, target, a, b, scale, n_heads, allowed,
                                        scaled, goal)
        losses.append(loss)
        a = a - lr * _adam(moments, 0, d_a, t)
        b = b - lr * _adam(moments, 2, d_b, t)
    losses.append(lora_gradients(x_in, weights, target, a, b, scale, n_heads, allowed, scaled,
                                 goal)[0])
    return a, b, tuple(losses)


def _adam(moments: list, i: int, grad: np.ndarray, t: int) -> np.ndarray:
    """One Adam direction (times lr: the update) for the parameter whose moments are moments[i],
    moments[i + 1]."""
    b1, b2 = BETAS
    moments[i] = b1 * moments[i] + (1 - b1) * grad
    moments[i + 1] = b2 * moments[i + 1] + (1 - b2) * grad * grad
    m_hat = moments[i] / (1 - b1 ** t)
    v_hat = moments[i + 1] / (1 - b2 ** t)
    return m_hat / (np.sqrt(v_hat) + ADAM_EPS)
