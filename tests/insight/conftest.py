"""Tiny random checkpoints (transformers, initializer_range 0.3: peaked heads) loaded twice: by the
app's own forward (core.checkpoints.load) and by transformers, the oracle; and the bundled models
where they are installed.

    pair = tiny_pair("llama")      # pair.model: LoadedModel (native), pair.hf: the transformers model
    pair.ids("the cat sat")        # exactly what the model is fed (tokenizer.json)
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from checkpoints.conftest import build_checkpoint  # tests/checkpoints: the tiny checkpoint builder


@dataclass
class Pair:
    folder: object
    model: object       # core.learned LoadedModel (the app's forward)
    hf: object          # transformers model, eager attention, eval mode

    def ids(self, text: str) -> list[int]:
        return list(self.model.tokenizer(text).ids)


@pytest.fixture(scope="session")
def tiny_pair(tmp_path_factory):
    built: dict = {}

    def make(family: str, **sizes) -> Pair:
        key = (family, tuple(sorted(sizes.items())))
        if key not in built:
            transformers = pytest.importorskip("transformers", reason="transformers is the test oracle")
            from explorer.core.checkpoints.load import load_checkpoint
            folder = build_checkpoint(tmp_path_factory.mktemp("insight") / family, family, **sizes)
            auto = transformers.AutoModel if family in ("bert", "roberta") else transformers.AutoModelForCausalLM
            hf = auto.from_pretrained(folder, local_files_only=True, use_safetensors=True,
                                      attn_implementation="eager").eval()
            built[key] = Pair(folder, load_checkpoint(str(folder), "cpu"), hf)
        return built[key]
    return make


@pytest.fixture(scope="session")
def minilm():
    from explorer.core.learned import get_spec, is_installed, load_model
    spec = get_spec("minilm-l6")
    if not is_installed(spec):
        pytest.skip(f"minilm-l6 is not installed ({spec.install_command})")
    return load_model("minilm-l6")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
