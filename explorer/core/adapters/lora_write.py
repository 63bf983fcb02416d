"""A LoRA fine-tuned on an own checkpoint or SmolLM2 (lora_train.TunedLora), saved in peft's layout.

    files = adapter_files(tuned)            # [(adapter_config.json, bytes), (adapter_model.safetensors, bytes)]
    save_adapter(tuned, folder)             # through core/files/output_files (ExportError: one line)

The keys are peft's for the family's *ForCausalLM, the model `PeftModel.from_pretrained(
AutoModelForCausalLM.from_pretrained(base), folder)` wraps: `base_model.model.<module path>
.lora_A.weight` (r, in) and `.lora_B.weight` (out, r), the module paths lora_train's
("model.layers.0.self_attn.q_proj", GPT-2's "transformer.h.0.attn.c_attn"). adapter_config.json
is core.training.lora_save's (every key peft 0.21.2 writes, the same writer, the same checks
before replacing an adapter) with what differs for a transformers model: target_modules as
chosen, task_type "CAUSAL_LM", no rank or alpha pattern (one r and α for every module),
fan_in_fan_out for GPT-2's Conv1D modules, no auto_mapping (peft's model class is transformers').
The safetensors metadata holds {"format": "pt"} and "attention_explorer" = JSON {"steps", "lr",
"seed", "sentences", "tokens", "losses"} (what the window shows of a fine-tune; peft ignores it).
Qt-free; safetensors (and so torch) is imported when the files are made.
"""

from __future__ import annotations

import json

from ..training.lora_config import LoraConfig
from ..training.lora_save import (ADAPTER_FILES, CONFIG_NAME, PREFIX, WEIGHTS_NAME, adapter_config,
                                  check_adapter_folder, write_adapter)
from .lora_train import TunedLora

__all__ = ["ADAPTER_FILES", "adapter_files", "adapter_json", "check_adapter_folder", "save_adapter"]


def adapter_json(tuned: TunedLora) -> dict:
    """adapter_config.json's object for `tuned`."""
    s = tuned.settings
    config = adapter_config(LoraConfig(rank=s.rank, alpha=s.alpha), tuned.base_name)
    config.update(target_modules=sorted(s.targets), task_type="CAUSAL_LM", rank_pattern={}, alpha_pattern={},
                  fan_in_fan_out=tuned.fan_in_fan_out, auto_mapping=None)
    return config


def adapter_tensors(tuned: TunedLora) -> dict:
    """peft's keys -> contiguous float32 CPU tensors."""
    tensors = {}
    for module, a, b in zip(tuned.modules, tuned.lora_a, tuned.lora_b):
        tensors[f"{PREFIX}{module}.lora_A.weight"] = a.float().contiguous()  # (r, in)
        tensors[f"{PREFIX}{module}.lora_B.weight"] = b.float().contiguous()  # (out, r)
    return tensors


def adapter_files(tuned: TunedLora) -> list[tuple[str, bytes]]:
    """[(adapter_config.json, bytes), (adapter_model.safetensors, bytes)]."""
    from ..training.checkpoint import require_safetensors
    st_torch = require_safetensors()[1]
    s = tuned.settings
    about = {"steps": len(tuned.losses), "lr": s.lr, "seed": s.seed, "sentences": tuned.sentences,
             "tokens": tuned.tokens, "losses": [round(x, 6) for x in (*tuned.losses, tuned.final_loss)]}
    weights = st_torch.save(adapter_tensors(tuned), metadata={"format": "pt", "attention_explorer": json.dumps(about)})
    config = json.dumps(adapter_json(tuned), indent=2, sort_keys=True) + "\n"
    return [(CONFIG_NAME, config.encode("utf-8")), (WEIGHTS_NAME, weights)]


def save_adapter(tuned: TunedLora, folder, on_exists: str = "error") -> list:
    """Write the adapter into `folder` (created if missing; an adapter there only replaced with
    on_exists="overwrite"): the written paths. ExportError (one line) when it cannot be written."""
    return write_adapter(folder, adapter_files(tuned), on_exists)
