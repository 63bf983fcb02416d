"""The adapted model as the shared code sees it: a core.learned LoadedModel that says which
adapter it carries and how many virtual tokens its weights put before the text."""

from __future__ import annotations

import dataclasses

from ..learned.loader import LoadedModel
from .info import AdapterInfo


@dataclasses.dataclass
class AdaptedModel(LoadedModel):
    """A LoadedModel whose weights carry an adapter (load.load_adapted, bundled.adapt_bundled)."""

    adapter: AdapterInfo | None = None

    @classmethod
    def of(cls, spec, tokenizer, weights, device, info: AdapterInfo) -> "AdaptedModel":
        """The adapted model, its spec named "<base> + <adapter label>"."""
        spec = dataclasses.replace(spec, name=f"{spec.name} + {info.label()}",
                                   description=f"{spec.description} · {info.label()}")
        return cls(spec, tokenizer, weights, device, adapter=info)

    @property
    def virtual_tokens(self) -> int:
        """v: positions the adapter puts before the text on the key axis (0 for LoRA / IA³)."""
        return getattr(self.weights, "virtual_tokens", 0)

    @property
    def virtual_queries(self) -> bool:
        """True when the virtual tokens are queries too (prompt tuning)."""
        return bool(getattr(self.weights, "virtual_queries", False))
