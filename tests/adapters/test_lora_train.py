"""LoRA fine-tuned on typed sentences (core.adapters.lora_train), saved in peft's layout (lora_write).

The oracle: the saved adapter loads in peft 0.21.2 (`PeftModel.from_pretrained` on
`AutoModelForCausalLM.from_pretrained(base, attn_implementation="eager")`), and its
output_attentions equal the app's adapted model (core.adapters.load.load_adapted of the same
checkpoint and adapter) to tests/numeric.py's float32 rule, while differing from the base's by a
clear margin: a fine-tune that trained nothing, or an adapter saved under the wrong keys (peft
then warns and keeps B = 0), would fail that margin; wrong rows or a wrong scale would fail the
equality. The bases are tests/adapters/conftest.py's tiny Llama and GPT-2 (peaked heads, biases
perturbed). The base's tensors are compared with torch.equal before and after.
"""

from __future__ import annotations

import json
import warnings

import pytest

from explorer.core.adapters import lora_train as lt
from explorer.core.adapters.load import load_adapted
from explorer.core.adapters.lora_write import adapter_files, save_adapter
from explorer.core.cancel import Cancelled
from explorer.core.checkpoints.load import load_checkpoint

from adapter_support import reduction, score_size  # noqa: E402
from numeric import assert_close  # noqa: E402

torch = pytest.importorskip("torch")

TEXT = ("the cat sat on the mat and the dog sat on the log\nattention heads look at earlier tokens\n"
        "고양이가 매트 위에 앉았다")
PROBE = "the cat sat on the mat"
SETTINGS = lt.TuneSettings(rank=4, alpha=8, steps=8, lr=1e-2, seed=3)
FAMILIES = {"llama": ("q_proj", "v_proj"), "gpt2": ("c_attn",)}


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny products: threads only contend on a shared machine
    yield
    torch.set_num_threads(before)


def snapshot(weights) -> dict:
    """Every tensor of a Decoder's blocks, embeddings and norms, cloned."""
    out = {f"{i}.{k}": t.clone() for i, block in enumerate(weights.blocks) for k, t in block.items()}
    out.update(embed=weights.embed.clone(), output=weights.output.clone(), out_norm=weights.out_norm.clone())
    return out


def assert_unchanged(weights, before: dict) -> None:
    now = snapshot(weights)
    assert now.keys() == before.keys()
    assert all(torch.equal(now[k], before[k]) for k in before), "the base model's tensors changed"
    assert not any(t.requires_grad for block in weights.blocks for t in block.values())


def peft_attentions(base, folder, ids):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AutoModelForCausalLM.from_pretrained(base, attn_implementation="eager", local_files_only=True)
        peft = PeftModel.from_pretrained(model, folder).eval()
        with torch.no_grad():
            out = peft(input_ids=torch.tensor([ids]), output_attentions=True)
    return torch.stack([a[0] for a in out.attentions]), out.logits[0]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_fine_tune_lowers_the_loss_keeps_the_base_and_loads_in_peft(family, bases, tmp_path):
    base = bases(family)
    model = load_checkpoint(base)
    before = snapshot(model.weights)
    steps = []
    tuned = lt.fine_tune(model, TEXT, SETTINGS, str(base), progress=lambda *a: steps.append(a))
    # the loss goes down, one progress call per step
    assert len(tuned.losses) == SETTINGS.steps and [s[0] for s in steps] == list(range(1, SETTINGS.steps + 1))
    assert tuned.final_loss < tuned.losses[-1] < tuned.losses[0] - 0.5
    assert tuned.settings.targets == FAMILIES[family] and tuned.fan_in_fan_out == (family == "gpt2")
    assert_unchanged(model.weights, before)
    # saved in peft's layout
    folder = tmp_path / "adapter"
    save_adapter(tuned, folder)
    config = json.loads((folder / "adapter_config.json").read_text())
    assert config["peft_type"] == "LORA" and config["task_type"] == "CAUSAL_LM"
    assert config["r"] == 4 and config["lora_alpha"] == 8 and config["target_modules"] == sorted(FAMILIES[family])
    assert config["base_model_name_or_path"] == str(base) and config["fan_in_fan_out"] == (family == "gpt2")
    # peft's model of the same checkpoint and adapter against the app's adapted model
    ids = list(model.tokenizer(PROBE).ids)
    expected, logits = peft_attentions(base, folder, ids)  # (layers, heads, n, n)
    adapted = load_adapted(base, folder)
    mine = adapted.weights.forward(ids)
    n = len(ids)
    assert_close(mine["attentions"], expected, dtype="float32", reduction=reduction(adapted.weights, n),
                 scale=score_size(expected))
    assert_close(mine["logits"], logits, dtype="float32", reduction=reduction(adapted.weights, n),
                 scale=float(logits.abs().max()))
    base_attentions = model.weights.forward(ids)["attentions"]
    assert (expected - base_attentions).abs().max() > 0.05  # the fine-tune really changed the heads
    assert_unchanged(model.weights, before)


@pytest.mark.parametrize("family, targets", [("llama", ("q_proj", "k_proj", "o_proj", "down_proj")),
                                             ("gpt2", ("c_attn", "c_proj", "c_fc"))])
def test_the_tuners_own_forward_is_the_saved_adapters(family, targets, bases, tmp_path):
    """What the fine-tune computed with (its rows, its scale) is what load_adapted merges from the
    saved files, and so what peft computes (the test above)."""
    base = bases(family)
    model = load_checkpoint(base)
    settings = SETTINGS.replace(targets=targets, steps=3)
    tuner = lt.LoraTuner(model, TEXT, settings, str(base))
    while not tuner.done:
        tuner.step()
    save_adapter(tuner.result(), tmp_path / "a")
    ids = list(model.tokenizer(PROBE).ids)
    with torch.no_grad():
        tuner._install()
        own = tuner._shadow.forward(ids)["attentions"]
    merged = load_adapted(base, tmp_path / "a").weights.forward(ids)["attentions"]
    assert_close(own, merged, dtype="float32", reduction=reduction(model.weights, len(ids)), scale=score_size(merged))
    assert len(tuner.result().modules) == 4 * model.weights.layers
    assert (merged - model.weights.forward(ids)["attentions"]).abs().max() > 0.05


def test_the_same_seed_gives_the_same_fine_tune(bases):
    model = load_checkpoint(bases("gpt2"))
    first = lt.fine_tune(model, TEXT, SETTINGS.replace(steps=3))
    second = lt.fine_tune(model, TEXT, SETTINGS.replace(steps=3))
    other = lt.fine_tune(model, TEXT, SETTINGS.replace(steps=3, seed=4))
    assert first.losses == second.losses and torch.equal(first.lora_a[0], second.lora_a[0])
    assert not torch.equal(first.lora_a[0], other.lora_a[0])
    assert first.losses[0] == other.losses[0]  # B = 0: step 1 is the base whatever A is


def test_cancel_stops_within_a_step_and_changes_nothing(bases):
    model = load_checkpoint(bases("llama"))
    tuner = lt.LoraTuner(model, TEXT, SETTINGS)
    tuner.step()
    b = [t.detach().clone() for t in tuner.lora_b]
    polls = []

    def stop_after_one_sentence():
        polls.append(1)
        return len(polls) > 1  # the second sentence of the step finds it true

    with pytest.raises(Cancelled):
        tuner.step(stop_after_one_sentence)
    assert len(polls) == 2 and len(tuner.losses) == 1
    assert all(torch.equal(x, y) for x, y in zip(b, tuner.lora_b))  # no update made
    with pytest.raises(Cancelled):
        lt.fine_tune(model, TEXT, SETTINGS, should_stop=lambda: True)


@pytest.mark.parametrize("change, words", [
    (dict(rank=0), "rank"), (dict(rank=lt.MAX_RANK + 1), "rank"), (dict(rank=2.5), "rank"),
    (dict(alpha=0), "alpha"), (dict(alpha=float("nan")), "alpha"), (dict(alpha=-1), "alpha"),
    (dict(steps=0), "steps"), (dict(steps=lt.MAX_STEPS + 1), "steps"), (dict(lr=0), "learning rate"),
    (dict(lr=2.0), "learning rate"), (dict(lr=float("inf")), "learning rate"), (dict(seed=-1), "seed"),
    (dict(targets=("x_proj",)), "x_proj"), (dict(targets=("q_proj", "q_proj")), "twice"),
    (dict(targets=("",)), "at least one"), (dict(targets="q_proj"), "at least one"),
    (dict(targets=("c_attn",)), "c_attn"),
])
def test_bad_settings_are_one_line(change, words):
    with pytest.raises(lt.LoraTuneError) as caught:
        lt.check_settings(SETTINGS.replace(**change), "llama")
    message = str(caught.value)
    assert words in message and "\n" not in message


@pytest.mark.parametrize("text, words", [("", "type a few sentences"), (" \n\t\n", "type a few sentences"),
                                         ("\n".join(["a b"] * (lt.MAX_SENTENCES + 1)), "at most")])
def test_bad_sentences_are_one_line(bases, text, words):
    model = load_checkpoint(bases("llama"))
    with pytest.raises(lt.LoraTuneError, match=words):
        lt.LoraTuner(model, text, SETTINGS)


def test_a_rank_above_a_modules_size_is_one_line(bases):
    model = load_checkpoint(bases("llama"))  # v_proj: (16, 32)
    with pytest.raises(lt.LoraTuneError, match="from 1 to 16, got 17"):
        lt.LoraTuner(model, TEXT, SETTINGS.replace(rank=17))


def test_an_encoder_and_an_adapted_model_are_refused(bases, adapter):
    from peft import LoraConfig
    encoder = load_checkpoint(bases("bert"))
    with pytest.raises(lt.LoraTuneError, match="is an encoder"):
        lt.LoraTuner(encoder, TEXT, SETTINGS)
    folder = adapter("llama", "lora-train-refused", LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj"]))
    adapted = load_adapted(bases("llama"), folder)
    with pytest.raises(lt.LoraTuneError, match="already carries an adapter"):
        lt.LoraTuner(adapted, TEXT, SETTINGS)


def test_the_files_name_every_module_once_in_peft_keys(bases):
    from safetensors.torch import load
    model = load_checkpoint(bases("gpt2"))
    tuned = lt.fine_tune(model, TEXT, SETTINGS.replace(steps=1, targets=("c_attn", "mlp.c_proj")))
    files = dict(adapter_files(tuned))
    tensors = load(files["adapter_model.safetensors"])
    layers = model.weights.layers
    assert sorted(tensors) == sorted(f"base_model.model.transformer.h.{i}.{m}.lora_{p}.weight" for i in range(layers)
                                     for m in ("attn.c_attn", "mlp.c_proj") for p in "AB")
    assert tensors["base_model.model.transformer.h.0.attn.c_attn.lora_B.weight"].shape == (96, 4)
    assert tensors["base_model.model.transformer.h.0.mlp.c_proj.lora_A.weight"].shape == (4, 128)
    assert json.loads(files["adapter_config.json"])["target_modules"] == ["c_attn", "mlp.c_proj"]


def test_smollm2_lora_on_q_and_k_lands_on_the_rows_it_was_trained_for(tmp_path):
    """The bundled SmolLM2's q and k rows are in llama.cpp's order: the fine-tune's update (made
    in Hugging Face's order) must be permuted exactly as load_adapted permutes a saved one."""
    from explorer.core.learned import get_spec, is_installed, load_model
    if not is_installed(get_spec("smollm2-135m")):
        pytest.skip("SmolLM2 is not installed")
    torch.set_num_threads(2)
    model = load_model("smollm2-135m")
    settings = lt.TuneSettings(targets=("q_proj", "k_proj"), rank=2, alpha=4, steps=2, lr=0.05)
    tuner = lt.LoraTuner(model, "The capital of France is Paris.", settings, lt.base_name_of(model))
    while not tuner.done:
        tuner.step()
    tuned = tuner.result()
    assert json.loads(dict(adapter_files(tuned))["adapter_config.json"])["base_model_name_or_path"] == \
        "HuggingFaceTB/SmolLM2-135M-Instruct"
    save_adapter(tuned, tmp_path / "smol")
    ids = tuner.sequences[0]
    with torch.no_grad():
        tuner._install()
        own = tuner._shadow.forward(ids)["attentions"]
        merged = load_adapted("smollm2-135m", tmp_path / "smol").weights.forward(ids)["attentions"]
        base = model.weights.forward(ids)["attentions"]
    n = len(ids)
    assert_close(own, merged, dtype="float32", reduction=30 * (1536 + 2 * n), scale=score_size(merged))
    assert (merged - base).abs().max() > 0.05
