"""A tiny model's LoRA saved in peft's layout: adapter_config.json + adapter_model.safetensors.

peft 0.21.2 (`PeftModel.from_pretrained(TinyTransformer(...) with the base's weights, folder)`)
loads it onto the app's own nn.Module: peft wraps any nn.Linear named in `target_modules`.

The layout. The module paths are TinyTransformer's: `layers.<i>.qkv` (the fused W_Q/W_K/W_V
Linear, (3d, d)) and `layers.<i>.out` (W_O, (d, d)). Keys, as peft writes them:
`base_model.model.layers.<i>.qkv.lora_A.weight` and `….lora_B.weight`, likewise `.out`.

- "o" targeted: `out` gets the LoRA as trained, A (r, d), B (d, r), r and lora_alpha as set.
- k of q, k, v targeted (k = 1 … 3): peft sees one LoRA on the fused `qkv` of rank k·r. Its A
  (k·r, d) stacks the blocks' A's, in q, k, v order; its B (3d, k·r) is block-structured: the
  rows of block q (0 … d−1) hold B_q in the columns of A_q and zeros elsewhere, likewise k and v,
  and a block without a LoRA has all-zero rows. So B·A = [B_q·A_q; B_k·A_k; B_v·A_v] (a zero
  block where none): exactly the separate per-block LoRAs, and the untargeted rows unchanged.
  The scale must stay α / r although the fused rank is k·r: `rank_pattern` {"qkv": k·r} and
  `alpha_pattern` {"qkv": k·α} (scale k·α / k·r = α / r). With k = 1 no pattern is needed.
  The zeros are stored: a fused B holds 3d·k·r numbers, d·k·r of them trained
  (`trainable_parameters` counts only those).
- use_rslora is false: the fine-tune scales by α / r. (rsLoRA's α / √r would be α_f / √(k·r)
  on the fused module; saying that needs an alpha_pattern, which peft refuses beside rsLoRA.)

The safetensors metadata holds {"format": "pt"} (as peft writes it) and, for readers that want
the separate blocks back, "attention_explorer" = JSON {"blocks", "rank", "alpha", "task", "steps"}.

Written only through core/files/output_files: the folder is created if missing (and removed
again, if this run created it, when writing fails); the two files are staged and committed
together, never over a FIFO, a device or a symlink; an existing adapter is refused unless
on_exists="overwrite" (the CLI's --force, the window's question).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..files.output_files import (ExportError, check_folder, check_targets, make_folders,
                                  remove_empty, write_files)
from .checkpoint import require_safetensors
from .lora_config import LoraConfig

CONFIG_NAME = "adapter_config.json"
WEIGHTS_NAME = "adapter_model.safetensors"
ADAPTER_FILES = (CONFIG_NAME, WEIGHTS_NAME)
PEFT_VERSION = "0.21.2"   # the layout written is this version's (tests/training/test_lora_peft.py)
PREFIX = "base_model.model."
QKV_BLOCKS = ("q", "k", "v")


def _number(x: float):
    """α as JSON: an int when whole (peft writes ints), else the float."""
    return int(x) if float(x).is_integer() else float(x)


def fused_qkv(module, d: int, rank: int):
    """(A (k·r, d), B (3d, k·r)) of the fused qkv LoRA equal to `module`'s per-block LoRAs."""
    import torch
    blocks = module.blocks
    a = torch.cat([module.lora_A[b].detach() for b in blocks], dim=0)  # (k·r, d)
    b = torch.zeros(3 * d, len(blocks) * rank, dtype=a.dtype, device=a.device)  # (3d, k·r)
    for j, block in enumerate(blocks):
        i = QKV_BLOCKS.index(block)
        b[i * d:(i + 1) * d, j * rank:(j + 1) * rank] = module.lora_B[block].detach()
    return a, b


def adapter_tensors(model) -> dict:
    """peft's keys → CPU float32 tensors for a core.training.lora.LoraModel."""
    d, r = model.config.d_model, model.lora.rank
    tensors = {}
    for index, name, module in model.lora_modules():
        if name == "qkv":
            a, b = fused_qkv(module, d, r)
        else:
            a, b = module.lora_A.detach(), module.lora_B.detach()
        key = f"{PREFIX}layers.{index}.{name}"
        tensors[f"{key}.lora_A.weight"] = a.float().cpu().contiguous()
        tensors[f"{key}.lora_B.weight"] = b.float().cpu().contiguous()
    return tensors


def adapter_config(lora: LoraConfig, base_name: str | None) -> dict:
    """adapter_config.json's object, with every key peft 0.21.2's LoraConfig writes."""
    blocks = [t for t in lora.targets if t in QKV_BLOCKS]
    modules = (["qkv"] if blocks else []) + (["out"] if "o" in lora.targets else [])
    k = len(blocks)
    patterns = k > 1
    return {
        "alora_invocation_tokens": None,
        "alpha_pattern": {"qkv": _number(k * lora.lora_alpha)} if patterns else {},
        "arrow_config": None,
        "auto_mapping": {"base_model_class": "TinyTransformer",
                         "parent_library": "explorer.core.training.model"},
        "base_model_name_or_path": base_name,
        "bias": "none",
        "corda_config": None,
        "ensure_weight_tying": False,
        "eva_config": None,
        "exclude_modules": None,
        "fan_in_fan_out": False,
        "inference_mode": True,
        "init_lora_weights": True,
        "kasa_config": None,
        "layer_replication": None,
        "layers_pattern": None,
        "layers_to_transform": None,
        "loftq_config": {},
        "lora_alpha": _number(lora.lora_alpha),
        "lora_bias": False,
        "lora_dropout": 0.0,
        "lora_ga_config": None,
        "megatron_config": None,
        "megatron_core": "megatron.core",
        "modules_to_save": None,
        "monteclora_config": None,
        "peft_type": "LORA",
        "peft_version": PEFT_VERSION,
        "qalora_group_size": 16,
        "r": lora.rank,
        "rank_pattern": {"qkv": k * lora.rank} if patterns else {},
        "revision": None,
        "target_modules": modules,
        "target_parameters": None,
        "task_type": None,
        "trainable_token_indices": None,
        "use_bdlora": None,
        "use_dora": False,
        "use_qalora": False,
        "use_rslora": False,
        "velora_config": None,
    }


def adapter_files(model, steps: int, base_name: str | None) -> list[tuple[str, bytes]]:
    """[(adapter_config.json, bytes), (adapter_model.safetensors, bytes)] of a LoraModel."""
    st_torch = require_safetensors()[1]
    lora = model.lora
    about = {"blocks": list(lora.targets), "rank": lora.rank, "alpha": _number(lora.lora_alpha),
             "task": lora.task, "steps": int(steps)}
    weights = st_torch.save(adapter_tensors(model),
                            metadata={"format": "pt", "attention_explorer": json.dumps(about)})
    config = json.dumps(adapter_config(lora, base_name), indent=2, sort_keys=True) + "\n"
    return [(CONFIG_NAME, config.encode("utf-8")), (WEIGHTS_NAME, weights)]


def check_adapter_folder(folder, on_exists: str = "error") -> None:
    """ExportError now if the adapter could not be written to `folder` later: an existing
    folder must take both files (not over a non-regular file; an existing adapter only with
    "overwrite"), a missing one needs its nearest existing parent to be a writable folder."""
    path = Path(folder).expanduser()
    if path.exists() or path.is_symlink():
        check_targets(path, list(ADAPTER_FILES), on_exists)
        return
    parent = next(p for p in path.parents if p.exists() or p.is_symlink())
    check_folder(parent)


def write_adapter(folder, files: list[tuple[str, bytes]], on_exists: str = "error") -> list[Path]:
    """Write the adapter's files into `folder` (created if missing) through the one writer;
    a failure leaves nothing: no staged file, and no folder this call created. ExportError."""
    path = Path(folder).expanduser()
    created = make_folders(path)
    try:
        return write_files(path, files, on_exists)
    except BaseException:
        remove_empty(created)
        raise


__all__ = ["ADAPTER_FILES", "CONFIG_NAME", "WEIGHTS_NAME", "ExportError", "adapter_config",
           "adapter_files", "adapter_tensors", "check_adapter_folder", "write_adapter"]
