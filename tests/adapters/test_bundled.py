"""LoRA and IA³ on the bundled MiniLM and SmolLM2, against PeftModel on transformers' model of the
same weights (MiniLM: BertModel read from the package's own safetensors; SmolLM2: LlamaForCausalLM
built from our dequantised tensors with q/k un-permuted back to Hugging Face's row order, as
tests/learned/test_smollm2.py builds it). The merge happens in Hugging Face's order and is permuted
back into llama.cpp's: a LoRA on q_proj lands on the rows it was trained for only if both moves
are right, which the comparison checks (IA³ on k_proj too)."""

from __future__ import annotations

import warnings

import pytest
from peft import IA3Config, LoraConfig, PrefixTuningConfig, get_peft_model

from explorer.core.adapters.bundled import permute, unpermute
from explorer.core.adapters.errors import AdapterError
from explorer.core.adapters.load import load_adapted
from explorer.core.learned import get_spec, is_installed, load_model, weights_path
from explorer.core.learned.analysis import tokenize

from adapter_support import perturb, score_size  # noqa: E402
from numeric import assert_close  # noqa: E402

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _installed(name: str):
    spec = get_spec(name)
    if not is_installed(spec):
        pytest.skip(f"{name} is not installed ({spec.install_command})")
    return load_model(name)


@pytest.fixture(scope="module")
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # small memory-bound products (tests/learned/conftest.py says why)
    yield
    torch.set_num_threads(before)


def hf_smollm2(model):
    w = model.weights
    config = transformers.LlamaConfig(
        vocab_size=w.embed.shape[0], hidden_size=w.embed.shape[1], intermediate_size=w.layers[0]["gate"].shape[0],
        num_hidden_layers=len(w.layers), num_attention_heads=w.heads, num_key_value_heads=w.kv_heads,
        rms_norm_eps=w.eps, rope_theta=w.rope_theta, tie_word_embeddings=True, max_position_embeddings=2048,
        attn_implementation="eager")
    state = {"model.embed_tokens.weight": w.embed, "model.norm.weight": w.out_norm, "lm_head.weight": w.output}
    names = {"attn_norm": "input_layernorm", "q": "self_attn.q_proj", "k": "self_attn.k_proj",
             "v": "self_attn.v_proj", "o": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "gate": "mlp.gate_proj", "up": "mlp.up_proj", "down": "mlp.down_proj"}
    for i, p in enumerate(w.layers):
        for key, name in names.items():
            t = p[key]
            if key in ("q", "k"):  # an independent un-permute (the test file's own, not bundled.py's)
                heads = w.heads if key == "q" else w.kv_heads
                out, d_in = t.shape
                t = t.reshape(heads, out // heads // 2, 2, d_in).transpose(1, 2).reshape(out, d_in)
            state[f"model.layers.{i}.{name}.weight"] = t.clone()
    with torch.device("meta"):
        hf = transformers.LlamaForCausalLM(config)
    hf.load_state_dict(state, assign=True)
    hf.model.rotary_emb = type(hf.model.rotary_emb)(config=config)
    return hf.eval()


def hf_minilm(model):
    folder = weights_path(model.spec).parent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return transformers.BertModel.from_pretrained(folder, attn_implementation="eager",
                                                      local_files_only=True).eval()


def saved_adapter(hf, config, folder, seed: int):
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peft = get_peft_model(hf, config)
        perturb(peft, seed)
        peft.save_pretrained(folder)
    return peft.eval()


CASES = {
    "smollm2-lora-qkvo": ("smollm2-135m", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=[
        "q_proj", "k_proj", "v_proj", "o_proj"], layers_to_transform=[0, 1, 17])),
    "smollm2-ia3-k": ("smollm2-135m", lambda: IA3Config(target_modules=["k_proj", "down_proj"],
                                                        feedforward_modules=["down_proj"])),
    "minilm-lora": ("minilm-l6", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=["query", "value", "dense"])),
}


@pytest.mark.parametrize("case", CASES)
def test_bundled_adapter_equals_peft(case, tmp_path, one_thread):
    name, config = CASES[case]
    model = _installed(name)
    hf = hf_smollm2(model) if name == "smollm2-135m" else hf_minilm(model)
    peft = saved_adapter(hf, config(), tmp_path / case, seed=sum(map(ord, case)))
    adapted = load_adapted(name, tmp_path / case)
    ids = list(tokenize(model, "The quick brown fox jumps over the lazy dog").ids)
    with torch.inference_mode():
        ours = adapted.weights.forward(ids)["attentions"]
        plain = model.weights.forward(ids)["attentions"]
    with torch.no_grad():
        expected = torch.stack(peft(input_ids=torch.tensor([ids]), output_attentions=True).attentions)[:, 0]
    assert float((ours - plain).abs().max()) > 0.1, "the adapter hardly changes the attention"
    w = adapted.weights
    width = max(w.d_model, w.ffn, w.heads * w.d_head)
    assert_close(ours, expected, dtype="float32", reduction=len(w.layers) * (width + 2 * len(ids)),
                 scale=score_size(expected))
    # the bundled model itself is unchanged and still the one cached
    assert load_model(name) is model
    with torch.inference_mode():
        assert torch.equal(model.weights.forward(ids)["attentions"], plain)


def test_permute_undoes_unpermute():
    w = torch.arange(4 * 8 * 3, dtype=torch.float32).reshape(32, 3)
    assert torch.equal(permute(unpermute(w, 4), 4), w)
    assert not torch.equal(unpermute(w, 4), w)


def test_prefix_tuning_on_a_bundled_model_is_refused(tmp_path, bases, adapter):
    _installed("smollm2-135m")
    folder = adapter("llama", "llama-prefix-for-bundled", PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=2))
    with pytest.raises(AdapterError) as err:
        load_adapted("smollm2-135m", folder)
    assert "prefix tuning on the bundled smollm2-135m is not supported" in str(err.value)
    assert "\n" not in str(err.value)


def test_an_adapter_for_another_base_is_refused_by_a_bundled_model(bases, adapter):
    _installed("minilm-l6")
    folder = adapter("bert", "bert-lora-for-minilm", LoraConfig(r=2, target_modules=["query"]))
    with pytest.raises(AdapterError, match="adapter for another base"):
        load_adapted("minilm-l6", folder)
