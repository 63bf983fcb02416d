"""Value-weighted attention ‖α_ij · v_j W_O^h‖ against an independent float64 computation from
transformers' own hidden states, attentions and weights (a tiny BERT, a tiny Llama with grouped
KV heads, the bundled MiniLM), and for the course model from its drawn weights."""

import copy

import numpy as np
import pytest

from explorer.core import AttentionConfig, forward
from explorer.core.insight import captured_run, course_value_norms, key_norms, norm_disagreement, value_norms
from explorer.core.weights import draw_weights
from numeric import assert_close

TEXT = "the cat sat on the mat and the dog sat on the log"


def hf_float64(hf, ids):
    """transformers' forward in float64: hidden states (layers + 1, n, d) and attentions (L, H, n, n)."""
    import torch
    model = copy.deepcopy(hf).double()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    return model, [h[0] for h in out.hidden_states], torch.stack([a[0] for a in out.attentions])


def reference_norms(attentions, layer_values, w_o_of, heads):
    """α · ‖v_j^h W_O^h‖, written from the definition: one head, one key at a time (float64)."""
    layers, _, n, _ = attentions.shape
    out = np.zeros(attentions.shape)
    for layer in range(layers):
        v = layer_values(layer)  # (n, kv_heads, d_head)
        w_o = w_o_of(layer)  # (d_model, heads · d_head): out, in
        kv_heads, d_head = v.shape[1], v.shape[2]
        for h in range(heads):
            w_h = w_o[:, h * d_head:(h + 1) * d_head]  # (d_model, d_head)
            for j in range(n):
                f = w_h @ v[j, h // (heads // kv_heads)]  # (d_model,): what key j adds per unit weight
                out[layer, h, :, j] = attentions[layer, h, :, j] * np.linalg.norm(f)
    return out


def bert_reference(hf, ids):
    model, states, att = hf_float64(hf, ids)
    heads = model.config.num_attention_heads

    def values(layer):
        a = model.encoder.layer[layer].attention.self
        v = (states[layer] @ a.value.weight.T + a.value.bias).detach().numpy()  # (n, d)
        return v.reshape(len(ids), heads, -1)

    def w_o(layer):
        return model.encoder.layer[layer].attention.output.dense.weight.detach().numpy()
    return reference_norms(att.numpy(), values, w_o, heads)


def llama_reference(hf, ids):
    model, states, att = hf_float64(hf, ids)
    cfg = model.config
    heads, kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads

    def values(layer):
        block = model.model.layers[layer]
        x = block.input_layernorm(states[layer])  # the normed stream the projections read
        return block.self_attn.v_proj(x).detach().numpy().reshape(len(ids), kv_heads, -1)

    def w_o(layer):
        return model.model.layers[layer].self_attn.o_proj.weight.detach().numpy()
    return reference_norms(att.numpy(), values, w_o, heads)


def ours(model, ids):
    run = captured_run(model, model.tokenizer.encode_ids(ids))
    return value_norms(run.attentions, run.key_norms)


def reduction(model, n):
    spec = model.spec
    return spec.layers * (spec.d_model + 2 * n) + spec.d_model  # the layers, then the norm's sum


@pytest.mark.parametrize("family, reference", [("bert", bert_reference), ("llama", llama_reference)])
def test_tiny_models_equal_transformers(tiny_pair, family, reference):
    pair = tiny_pair(family)
    ids = pair.ids(TEXT)
    expected = reference(pair.hf, ids)
    got = ours(pair.model, ids)
    assert got.shape == expected.shape and got.dtype == np.float32
    assert expected.max() > 2 * np.median(expected[expected > 0])  # not flat: a wrong slice would show
    assert_close(got, expected, dtype="float32", reduction=reduction(pair.model, len(ids)))
    # the norms are not the weights: their rows sum to something else, head by head
    assert not np.allclose(got.sum(-1), 1.0)


def test_numpy_key_norms_equal_the_capture_runs_torch_ones(tiny_pair):
    """value_norms.key_norms (numpy: the course model's path) on the forward's own values and W_O."""
    import torch
    pair = tiny_pair("llama")
    ids = pair.ids(TEXT)
    with torch.inference_mode():
        out = pair.model.weights.forward(ids, capture=("values",))
    numpy_norms = key_norms(out["values"].numpy(), [w.numpy() for w in out["w_o"]], pair.model.spec.heads)
    run = captured_run(pair.model, pair.model.tokenizer.encode_ids(ids), capture=("values",))
    assert run.hidden_states is None and run.key_norms.shape == (2, 4, len(ids))
    assert_close(run.key_norms, numpy_norms, dtype="float32", reduction=pair.model.spec.d_model)


def test_minilm_equals_transformers(minilm):
    transformers = pytest.importorskip("transformers", reason="transformers is the test oracle")
    from explorer.core.learned import weights_path
    hf = transformers.BertModel.from_pretrained(str(weights_path(minilm.spec).parent),
                                                attn_implementation="eager").eval()
    ids = list(minilm.tokenizer("The cat sat on the mat. 나는 학교에 갔다").ids)
    assert_close(ours(minilm, ids), bert_reference(hf, ids), dtype="float32",
                 reduction=reduction(minilm, len(ids)))


@pytest.mark.parametrize("positional", [False, True])
def test_course_model_equals_its_drawn_weights(positional):
    config = AttentionConfig(positional=positional)
    result = forward(config)
    w = draw_weights(config.seed, config.n_tokens, config.d_model, config.init)
    x = w.x + (result.pe if positional else 0)  # (n, d)
    v = x @ w.w_v  # (n, d)
    dh = config.d_head
    expected = np.zeros((1, config.n_heads, config.n_tokens, config.n_tokens))
    for h in range(config.n_heads):
        f = v[:, h * dh:(h + 1) * dh] @ w.w_o[h * dh:(h + 1) * dh, :]  # (n, d): concat @ W_O, head h's rows
        expected[0, h] = result.weights[h] * np.linalg.norm(f, axis=1)[None, :]
    assert_close(course_value_norms(result), expected, dtype="float64", reduction=2 * config.d_model)


def test_disagreement_is_zero_for_equal_norms_and_one_for_disjoint_mass():
    attentions = np.array([[[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]]])  # (1, 1, 3, 3)
    assert_close(norm_disagreement(attentions, 3.0 * attentions), np.zeros((1, 1)), dtype="float64")
    disjoint = np.array([[[[0.0, 0.0, 1.0], [0.2, 0.3, 0.5], [0.0, 2.0, 0.0]]]])
    # rows: TV 1, 0, 1 -> mean 2/3
    assert_close(norm_disagreement(attentions, disjoint), np.full((1, 1), 2 / 3), dtype="float64")


def test_a_model_through_transformers_refuses_in_one_line(tmp_path):
    pytest.importorskip("transformers", reason="the model goes through transformers")
    from explorer.core.checkpoints.load import load_checkpoint
    from explorer.core.config import ConfigError
    from checkpoints.conftest import build_checkpoint
    folder = build_checkpoint(tmp_path / "neox", "gpt_neox")
    model = load_checkpoint(str(folder), "cpu")
    with pytest.raises(ConfigError, match="need the app's own forward") as info:
        captured_run(model, model.tokenizer(TEXT))
    assert "\n" not in str(info.value)
