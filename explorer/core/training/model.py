"""A tiny attention-only transformer that returns its attention weights (torch; imported lazily).

tokens → token embedding + learned position embedding → n_layers × (x + causal multi-head
attention(x)) → unembedding → logits. No MLPs and no LayerNorm: every path from input to output
goes through attention heads, so what the heads do is all the model can do (the setting of
Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits").
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .config import TrainConfig


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.out = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x: torch.Tensor, head_mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, T, d); head_mask (h,) of 0/1 multiplies each head's weights (0: pruned)."""
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)  # (B, T, d) each
        q, k, v = (m.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2)
                   for m in (q, k, v))  # (B, h, T, d_head)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, h, T, T)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()  # (T, T)
        attn = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)  # (B, h, T, T)
        if head_mask is not None:  # as transformers' head_mask: the weights returned are masked too
            attn = attn * head_mask.view(1, -1, 1, 1)  # (B, h, T, T)
        heads = attn @ v  # (B, h, T, d_head)
        return self.out(heads.transpose(1, 2).reshape(b, t, d)), attn  # (B, T, d), (B, h, T, T)


class TinyTransformer(nn.Module):
    def __init__(self, config: TrainConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.d_model)
        self.pos = nn.Embedding(config.seq_len, config.d_model)
        self.layers = nn.ModuleList(CausalSelfAttention(config.d_model, config.n_heads)
                                    for _ in range(config.n_layers))
        self.unembed = nn.Linear(config.d_model, config.vocab, bias=False)

    def forward(self, tokens: torch.Tensor, head_mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """tokens (B, T) → logits (B, T, vocab) and one (B, h, T, T) attention per layer.

        head_mask (layers, heads) of 0/1 switches heads off (pruning); None: all on."""
        positions = torch.arange(tokens.shape[1], device=tokens.device)  # (T,)
        # one-hot @ table rather than an index lookup: its backward is a matmul, which CUDA runs
        # deterministically; an embedding lookup's backward accumulates with atomics there. (Not yet
        # measured on a GPU: tests/training/test_trainer.py has the CUDA reproducibility test.)
        onehot = nn.functional.one_hot(tokens, self.config.vocab).to(self.embed.weight.dtype)  # (B, T, V)
        x = onehot @ self.embed.weight + self.pos(positions)  # (B, T, d)
        attentions = []
        for index, layer in enumerate(self.layers):
            update, attn = layer(x, None if head_mask is None else head_mask[index])
            x = x + update  # (B, T, d) the residual stream
            attentions.append(attn)
        return self.unembed(x), attentions  # (B, T, vocab), [(B, h, T, T)] * n_layers


def build_model(config: TrainConfig) -> TinyTransformer:
    """A freshly initialised model on the CPU; the same seed gives the same weights everywhere.

    Drawn from a private generator (not torch's global one), so other torch work in the process
    cannot shift the draw. Embeddings N(0, 1); linear maps N(0, 1/fan_in).
    """
    model = TinyTransformer(config)
    gen = torch.Generator().manual_seed(config.seed)
    with torch.no_grad():
        for name, p in model.named_parameters():  # in definition order: the draw is stable
            is_table = name in ("embed.weight", "pos.weight")
            p.normal_(0.0, 1.0 if is_table else 1.0 / math.sqrt(p.shape[-1]), generator=gen)
    return model
