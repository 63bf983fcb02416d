"""What an adapter is, for display: its method, rank, α, targets, trainable parameters, virtual tokens.

    info = adapter_info(adapter, plan)   # plan: targets.Plan for LoRA / IA³, None for the virtual methods
    info.label()                         # "LoRA r=8", "IA³", "prefix tuning v=20" (English: the CLI's)
    info.to_dict()                       # dump's "adapter": type, r, alpha, targets, trainable_parameters, ...

Qt-free, torch-free. Texts from the file (base_model_name_or_path) are kept as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass

from .adapter_files import Adapter
from .errors import METHOD_NAMES

PEFT_TYPES = {"lora": "LORA", "ia3": "IA3", "prefix": "PREFIX_TUNING", "prompt": "PROMPT_TUNING"}


@dataclass(frozen=True)
class AdapterInfo:
    """One adapter as the views and `dump` show it."""

    folder: str
    method: str                      # "lora", "ia3", "prefix", "prompt"
    r: int | None                    # LoRA: the config's r (rank_pattern may give some modules another)
    alpha: float | None              # LoRA: lora_alpha
    use_rslora: bool
    targets: tuple[str, ...]         # the module names adapted ("q_proj", "v_proj"), sorted
    modules: tuple[str, ...]         # every module changed (LoRA / IA³), in file order
    trainable_parameters: int        # elements of the saved tensors
    virtual_tokens: int              # v (prefix and prompt tuning; 0 otherwise)
    base_model: str | None           # base_model_name_or_path, as the file says (plain text)
    ignored: tuple[str, ...] = ()    # saved task-head tensors no native forward computes (classifier)
    scales: tuple[float, ...] = ()   # LoRA: the distinct α / r (or α / √r) of its modules

    @property
    def peft_type(self) -> str:
        return PEFT_TYPES[self.method]

    @property
    def method_name(self) -> str:
        """"LoRA", "IA³", "prefix tuning", "prompt tuning" (English; translate in the app)."""
        return METHOD_NAMES[self.method]

    def label(self) -> str:
        """"LoRA r=8", "LoRA r=8 (rsLoRA)", "IA³", "prefix tuning v=20" (English)."""
        if self.method == "lora":
            return f"LoRA r={self.r}" + (" (rsLoRA)" if self.use_rslora else "")
        if self.virtual_tokens:
            return f"{self.method_name} v={self.virtual_tokens}"
        return self.method_name

    def to_dict(self) -> dict:
        out = {"type": self.peft_type, "r": self.r, "alpha": self.alpha, "targets": list(self.targets),
               "trainable_parameters": self.trainable_parameters, "folder": self.folder}
        if self.method == "lora":
            out.update(use_rslora=self.use_rslora, scales=list(self.scales), modules=len(self.modules))
        if self.method == "ia3":
            out["modules"] = len(self.modules)
        if self.virtual_tokens:
            out["virtual_tokens"] = self.virtual_tokens
        if self.ignored:
            out["ignored"] = list(self.ignored)
        return out


def adapter_info(adapter: Adapter, plan=None) -> AdapterInfo:
    """The AdapterInfo of a checked adapter (and, for LoRA / IA³, its checked plan)."""
    s = adapter.settings
    lora = adapter.method == "lora"
    edits = () if plan is None else tuple(ed for ed in plan.edits if ed.kind != "replace")
    modules = tuple(ed.module for ed in edits)
    targets = tuple(sorted({m.rsplit(".", 1)[-1] for m in modules}))
    base = adapter.config.get("base_model_name_or_path")
    return AdapterInfo(
        folder=str(adapter.folder), method=adapter.method, r=s.r if lora else None,
        alpha=s.alpha if lora else None, use_rslora=lora and s.use_rslora, targets=targets, modules=modules,
        trainable_parameters=adapter.parameters,
        virtual_tokens=getattr(s, "num_virtual_tokens", 0),
        base_model=base if isinstance(base, str) else None,
        ignored=() if plan is None else plan.ignored,
        scales=tuple(sorted({round(ed.scale, 12) for ed in edits})) if lora else ())
