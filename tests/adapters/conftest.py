"""Fixtures that BUILD tiny random checkpoints and PEFT adapters for them at test time, and run
peft's own PeftModel (eager attention) as the oracle.

    base = bases("llama")                                   # a save_pretrained folder (per session)
    folder = adapter("llama", "lora-qv", LoraConfig(...))   # peft's save_pretrained, trainable tensors perturbed
    expected = peft_run(base, folder, ids)                  # {"attentions" (L, H, nq, nk), "logits" | "hidden"}

The checkpoints are tests/checkpoints/conftest.build_checkpoint's (initializer_range 0.3: peaked
heads). Every trainable tensor of an adapter gets noise added before saving (peft's own
initialisation makes LoRA's B zero and IA³'s vectors one: an adapter that changes nothing would
test nothing), so the adapted attention differs from the base's by a lot (each test checks that
too). Every test gets an empty HF cache, offline, and empty model caches.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from adapter_support import DECODERS, base_model, load_peft, perturb  # noqa: E402
from checkpoints.conftest import build_checkpoint  # noqa: E402  (tests/ is on sys.path)


def perturb_vectors(folder: Path, seed: int = 7) -> Path:
    """Noise on every 1-D tensor of the checkpoint (biases start at 0, norms at 1): an adapter
    step that forgot a bias (IA³ scales the output's, lora_bias adds to it) must show."""
    from safetensors.torch import load_file, save_file
    path = folder / "model.safetensors"
    tensors = load_file(path)
    g = torch.Generator().manual_seed(seed)
    for name, t in tensors.items():
        if t.dim() == 1 and t.is_floating_point():
            tensors[name] = t + torch.randn(t.shape, generator=g) * 0.2
    save_file(tensors, path, metadata={"format": "pt"})
    return folder


@pytest.fixture(scope="session")
def bases(tmp_path_factory):
    """bases(family) -> a tiny checkpoint folder of `family` (biases and norms perturbed), built
    once per session."""
    built: dict = {}

    def make(family: str) -> Path:
        if family not in built:
            built[family] = perturb_vectors(build_checkpoint(tmp_path_factory.mktemp("base") / family, family))
        return built[family]
    return make


@pytest.fixture(scope="session")
def adapter(bases, tmp_path_factory):
    """adapter(family, name, peft_config, perturbed=True) -> a saved adapter folder (once per name)."""
    made: dict = {}

    def make(family: str, name: str, config, perturbed: bool = True) -> Path:
        if name not in made:
            from peft import get_peft_model
            torch.manual_seed(sum(map(ord, name)))  # peft draws A (and the prompts) from the global generator
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = get_peft_model(base_model(bases(family), family), config)
                if perturbed:
                    perturb(model, seed=sum(map(ord, name)))
                folder = tmp_path_factory.mktemp("adapter") / name
                model.save_pretrained(folder)
            made[name] = folder
        return made[name]
    return make


@pytest.fixture(scope="session")
def peft_run():
    """peft_run(base, adapter_folder, ids, family) -> numpy {"attentions" (L, H, nq, nk), "logits"
    (n, vocab) for decoders | "hidden" (n, d) for encoders}: PeftModel's eager forward."""
    def run(base: Path, folder: Path, ids: list[int], family: str) -> dict:
        model = load_peft(base, folder, family)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # transformers' deprecation of past_key_values, inside peft
            out = model(input_ids=torch.tensor([ids]), output_attentions=True)
        result = {"attentions": torch.stack([a[0] for a in out.attentions]).numpy()}
        if family in DECODERS:
            result["logits"] = out.logits[0].numpy()
        else:
            result["hidden"] = out.last_hidden_state[0].numpy()
        return result
    return run


@pytest.fixture(autouse=True)
def _fresh_caches(tmp_path_factory, monkeypatch):
    """An empty HF cache (offline) and no model left loaded by another test."""
    from explorer.core.adapters import load as adapters_load
    from explorer.core.checkpoints import load as checkpoints_load
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.mktemp("hf-cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    adapters_load.forget()
    checkpoints_load.forget()
    yield
    adapters_load.forget()
    checkpoints_load.forget()
