"""LoRA on the tiny transformer: a frozen base, low-rank updates on W_Q, W_K, W_V, W_O (torch).

Each targeted weight W (d_out, d_in) gets two trainable matrices, A (r, d_in) and B (d_out, r),
and the layer computes W·x + (α / r)·B·(A·x) (Hu et al. 2021). A is drawn like peft draws it
(kaiming-uniform, a = √5: U(−1/√d_in, 1/√d_in)) from a generator seeded with the config's seed;
B starts at 0, so before the first step the adapted model *is* the base, bit for bit.

W_Q, W_K and W_V are the three row blocks of one fused Linear, `qkv` (3d, d): rows 0 … d−1 make
the queries, d … 2d−1 the keys, 2d … 3d−1 the values. `LoraQKV` keeps one (A, B) pair per
targeted block and adds its update to that block's rows only: a LoRA on "q" changes the queries
and nothing else, exactly as separate LoRAs on separate q, k, v Linears would (the untouched
blocks are the base's output, copied). How that is saved so that peft loads it onto the fused
Linear is in lora_save.py.

`LoraModel` wraps a *copy* of the base (the model handed in is never touched) whose tensors are
frozen (requires_grad False, and the optimiser is given the LoRA matrices only); `base_tensors`
are the copy's tensors under the base's own names, for the bit-identity check.
"""

from __future__ import annotations

import copy
import math
from contextlib import contextmanager

import torch
from torch import nn

from .lora_config import LoraConfig, validate_lora
from .model import TinyTransformer

QKV_BLOCKS = ("q", "k", "v")  # the row blocks of the fused qkv Linear, in order


def _draw_a(rank: int, d_in: int, generator: torch.Generator) -> nn.Parameter:
    bound = 1.0 / math.sqrt(d_in)  # kaiming_uniform_(a=√5), as peft's init_lora_weights=True
    a = torch.empty(rank, d_in).uniform_(-bound, bound, generator=generator)  # (r, d_in)
    return nn.Parameter(a)


class LoraLinear(nn.Module):
    """A frozen Linear (W_O: `out`) plus (α / r)·B·A."""

    def __init__(self, base: nn.Linear, rank: int, scale: float, generator: torch.Generator):
        super().__init__()
        self.base = base
        self.scale = scale
        self.enabled = True
        self.lora_A = _draw_a(rank, base.in_features, generator)  # (r, d_in)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))  # (d_out, r)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)  # (B, T, d_out)
        if not self.enabled:
            return y
        return y + self.scale * ((x @ self.lora_A.T) @ self.lora_B.T)  # (B, T, r) → (B, T, d_out)

    @torch.no_grad()
    def delta(self) -> torch.Tensor:
        """ΔW = (α / r)·B·A, (d_out, d_in)."""
        return self.scale * self.lora_B @ self.lora_A


class LoraQKV(nn.Module):
    """The fused qkv Linear (3d, d), frozen, plus one LoRA per targeted row block (q, k, v)."""

    def __init__(self, base: nn.Linear, blocks: tuple, rank: int, scale: float,
                 generator: torch.Generator):
        super().__init__()
        self.base = base
        self.blocks = tuple(b for b in QKV_BLOCKS if b in blocks)
        self.scale = scale
        self.enabled = True
        d = base.in_features
        self.lora_A = nn.ParameterDict()
        self.lora_B = nn.ParameterDict()
        for block in self.blocks:  # drawn in q, k, v order: the same seed gives the same A
            self.lora_A[block] = _draw_a(rank, d, generator)  # (r, d)
            self.lora_B[block] = nn.Parameter(torch.zeros(d, rank))  # (d, r)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)  # (B, T, 3d)
        if not self.enabled:
            return y
        parts = list(y.split(self.base.in_features, dim=-1))  # q, k, v: (B, T, d) each
        for block in self.blocks:
            i = QKV_BLOCKS.index(block)
            update = (x @ self.lora_A[block].T) @ self.lora_B[block].T  # (B, T, r) → (B, T, d)
            parts[i] = parts[i] + self.scale * update
        return torch.cat(parts, dim=-1)  # (B, T, 3d): untargeted blocks are the base's, copied

    @torch.no_grad()
    def delta(self) -> torch.Tensor:
        """ΔW of the fused weight (3d, d): zero rows where a block has no LoRA."""
        d = self.base.in_features
        delta = torch.zeros(3 * d, d, dtype=self.base.weight.dtype, device=self.base.weight.device)
        for block in self.blocks:
            i = QKV_BLOCKS.index(block)
            delta[i * d:(i + 1) * d] = self.scale * self.lora_B[block] @ self.lora_A[block]
        return delta


class LoraModel(nn.Module):
    """A frozen copy of a TinyTransformer with LoRA on the config's targets.

    forward(tokens, head_mask) is the base's (logits, attentions). `config` is the base's
    TrainConfig (the Trainer checks shapes against it); `lora` the LoraConfig.
    """

    def __init__(self, base: TinyTransformer, lora: LoraConfig):
        super().__init__()
        self.lora = validate_lora(lora, base.config)
        self.config = base.config
        self.model = copy.deepcopy(base)
        self.model.requires_grad_(False)
        self._base = dict(self.model.named_parameters())  # the base's names → frozen Parameters
        gen = torch.Generator().manual_seed(self.lora.seed)
        blocks = tuple(t for t in self.lora.targets if t in QKV_BLOCKS)
        for layer in self.model.layers:
            if blocks:
                layer.qkv = LoraQKV(layer.qkv, blocks, self.lora.rank, self.lora.scale, gen)
            if "o" in self.lora.targets:
                layer.out = LoraLinear(layer.out, self.lora.rank, self.lora.scale, gen)
        self.model.to(base.embed.weight.device)

    def forward(self, tokens: torch.Tensor, head_mask: torch.Tensor | None = None):
        return self.model(tokens, head_mask)

    def lora_modules(self) -> list[tuple[int, str, nn.Module]]:
        """(layer, "qkv" or "out", module) for every wrapped Linear."""
        found = []
        for index, layer in enumerate(self.model.layers):
            for name in ("qkv", "out"):
                module = getattr(layer, name)
                if isinstance(module, (LoraQKV, LoraLinear)):
                    found.append((index, name, module))
        return found

    def lora_parameters(self) -> list[nn.Parameter]:
        return [p for _, _, m in self.lora_modules() for n, p in m.named_parameters()
                if n.startswith("lora_")]

    def trainable_count(self) -> int:
        return sum(p.numel() for p in self.lora_parameters())

    def base_count(self) -> int:
        return sum(p.numel() for p in self._base.values())

    def base_tensors(self) -> dict[str, torch.Tensor]:
        """The frozen base's tensors under TinyTransformer's names (as in its state_dict)."""
        return {name: p.detach() for name, p in self._base.items()}

    @contextmanager
    def adapters_off(self):
        """The base alone while inside (exactly: the updates are skipped, not multiplied by 0)."""
        modules = [m for _, _, m in self.lora_modules()]
        for m in modules:
            m.enabled = False
        try:
            yield self
        finally:
            for m in modules:
                m.enabled = True

    @torch.no_grad()
    def merged(self) -> TinyTransformer:
        """A plain TinyTransformer with W + ΔW in every targeted weight (the merged adapter)."""
        merged = TinyTransformer(self.config).to(self.model.embed.weight.device)
        state = {name: t.clone() for name, t in self.base_tensors().items()}
        for index, name, module in self.lora_modules():
            state[f"layers.{index}.{name}.weight"] += module.delta()
        merged.load_state_dict(state, strict=True)
        return merged.eval()
