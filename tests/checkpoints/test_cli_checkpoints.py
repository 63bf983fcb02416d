"""`dump --model FOLDER | ORG/NAME` and `models` for a user's own checkpoints; bad input: one line, exit 2."""

import json

import numpy as np
import pytest

from explorer.cli import main
from explorer.core.learned import MODELS, is_installed

from numeric import assert_close

TEXT = "the cat sat on the mat and the dog sat"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def dump(capsys, model, *extra, text=TEXT):
    code, out, err = run_cli(capsys, "dump", "--model", model, "--text", text, *extra)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("family", ["bert", "llama", "gpt_neox"])
def test_dump_of_a_folder_equals_transformers_eager_attentions(tiny_checkpoint, hf_attentions, capsys, family):
    from tokenizers import Tokenizer
    folder = tiny_checkpoint(family)
    doc = dump(capsys, folder)
    assert doc["ids"] == Tokenizer.from_file(str(folder / "tokenizer.json")).encode(TEXT).ids
    weights = np.array(doc["weights"])
    expected = hf_attentions(folder, doc["ids"])
    layers, heads, n, _ = expected.shape
    assert weights.shape == expected.shape and doc["model"]["layers"] == layers and doc["model"]["heads"] == heads
    entropy = -(expected * np.log(expected + 1e-12)).sum(-1).mean()
    assert entropy < 0.8 * np.log(n)  # peaked heads: a wrong forward could not match
    d_model = doc["model"]["d_model"]
    assert_close(weights, expected, dtype="float32", reduction=d_model * layers)
    assert len(doc["tokens"]) == len(doc["labels"]) == n
    if family != "bert":
        assert doc["loss"] > 0 and len(doc["next_top5"]) == 5


def test_a_sharded_copy_dumps_the_same(tiny_checkpoint, capsys):
    a, b = dump(capsys, tiny_checkpoint("llama")), dump(capsys, tiny_checkpoint("llama", sharded=True))
    assert a["ids"] == b["ids"] and a["weights"] == b["weights"]


def test_a_cached_repo_dumps_by_its_id(tiny_checkpoint, hf_cache, capsys):
    hf_cache(tiny_checkpoint("llama"), "org/tiny-llama")
    by_id, by_folder = dump(capsys, "org/tiny-llama"), dump(capsys, tiny_checkpoint("llama"))
    assert by_id["model"]["name"] == "org/tiny-llama" and by_id["weights"] == by_folder["weights"]


def test_a_native_decoder_generates_with_its_kv_cache(tiny_checkpoint, capsys):
    doc = dump(capsys, tiny_checkpoint("llama"), "--generate", "3", "--kv")
    assert len(doc["generated"]) == 3 and doc["kv_cache"]["kv_heads"] == 2
    assert all(r["max_diff"] is not None and r["max_diff"] < 1e-4 for r in doc["kv"])


def test_a_model_through_transformers_does_not_generate(tiny_checkpoint, capsys):
    code, out, err = run_cli(capsys, "dump", "--model", tiny_checkpoint("gpt_neox"), "--text", TEXT, "--generate", "2")
    assert code == 2 and out == "" and err.count("\n") == 1 and "goes through transformers" in err


@pytest.mark.skipif(not is_installed(MODELS["minilm-l6"]), reason="minilm-l6 is not installed")
def test_a_bundled_model_dump_has_its_ids(capsys):
    doc = dump(capsys, "minilm-l6", text="the cat sat")
    assert doc["ids"][0] == 101 and doc["ids"][-1] == 102 and len(doc["ids"]) == len(doc["tokens"])


def test_models_lists_the_cache_checkpoints(tiny_checkpoint, hf_cache, capsys):
    hf_cache(tiny_checkpoint("llama"), "org/tiny-llama")
    hf_cache(tiny_checkpoint("gpt_neox"), "org/tiny-neox")
    code, out, _ = run_cli(capsys, "models", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and set(MODELS) < set(rows)
    llama, neox = rows["org/tiny-llama"], rows["org/tiny-neox"]
    assert (llama["family"], llama["kind"], llama["shape"], llama["dtype"], llama["route"]) == \
        ("llama", "decoder", "2×4×32", "float32", "native")
    assert neox["route"] == "transformers" and llama["bytes"] > 0 and llama["problem"] is None
    code, out, _ = run_cli(capsys, "models")
    assert "org/tiny-llama  llama decoder 2×4×32 float32" in out and "through transformers" in out


def test_bad_checkpoints_are_one_line_and_exit_2(tiny_checkpoint, copy_checkpoint, pickle_only_checkpoint,
                                                  tmp_path, capsys):
    pickled, marker = pickle_only_checkpoint
    cut = copy_checkpoint(tiny_checkpoint("bert"), "cut")
    (cut / "model.safetensors").write_bytes((cut / "model.safetensors").read_bytes()[:100])
    cases = {tmp_path / "missing": "is not a model folder", pickled: "convert it once with transformers",
             "org/not-cached": "is not in the Hugging Face cache", cut: "not a valid safetensors file",
             "minilm": "unknown model 'minilm'"}
    for model, words in cases.items():
        code, out, err = run_cli(capsys, "dump", "--model", model, "--text", TEXT)
        assert (code, out, err.count("\n")) == (2, "", 1) and words in err, (model, err)
    assert not marker.exists()


def test_checkpoint_sources_declare_what_they_can_do(tiny_checkpoint, hf_cache):
    from explorer.app.models.checkpoint_source import cached_sources, source_for_folder
    llama, bert, neox = (source_for_folder(tiny_checkpoint(f)) for f in ("llama", "bert", "gpt_neox"))
    assert (llama.capabilities.generation, llama.capabilities.pruning, llama.capabilities.positions) == (True, True, "rope")
    assert (bert.capabilities.generation, bert.capabilities.pruning, bert.capabilities.positions) == (False, True, "learned")
    assert (neox.capabilities.generation, neox.capabilities.pruning) == (False, False)
    assert llama.name == str(tiny_checkpoint("llama")) and llama.label().endswith("(llama)")
    assert llama.description().startswith("llama · 2×4×32 · float32 · ") and llama.description().endswith("native")
    assert neox.description().endswith("through transformers") and llama.problem() is None
    hf_cache(tiny_checkpoint("bert"), "org/tiny-bert")
    assert [s.name for s in cached_sources()] == ["org/tiny-bert"]


def test_a_checkpoint_source_analyses_prunes_generates_and_cancels(tiny_checkpoint):
    from explorer.app.models.checkpoint_source import source_for_folder
    from explorer.core.config import ConfigError
    llama, bert, neox = (source_for_folder(tiny_checkpoint(f)) for f in ("llama", "bert", "gpt_neox"))
    analysis = llama.analyse("cpu", TEXT, padding=2)
    assert analysis.attentions.shape[:2] == (2, 4) and analysis.padding == 2 and analysis.loss > 0
    assert np.all(analysis.attentions[:, :, :, -2:] == 0)  # padding keys get no weight
    assert len(llama.analyse("cpu", "", "random", random_length=8).ids) == 16
    assert len(bert.analyse("cpu", "", "random", random_length=8).ids) == 18
    effect = llama.prune("cpu", TEXT, "text", 0, frozenset({(0, 1), (1, 2)}))
    assert effect["heads_off"] == 2 and effect["loss_pruned"] != effect["loss"]
    assert "sentence_cosine" in bert.prune("cpu", TEXT, "text", 0, frozenset({(0, 0)}))
    run = llama.generate("cpu", TEXT, 2)
    assert len(run.generated) == 2 and run.keys.shape[:2] == (2, 2)
    with pytest.raises(ConfigError, match="needs the native forward"):
        neox.prune("cpu", TEXT, "text", 0, frozenset({(0, 0)}))
    with pytest.raises(ConfigError, match="does not generate"):
        neox.generate("cpu", TEXT, 2)
    fresh = source_for_folder(tiny_checkpoint("qwen2"))
    assert fresh.analyse("cpu", TEXT, should_stop=lambda: True) is None
