"""The native encoders (core/checkpoints/encoders.py) against transformers' own eager forward.

For each family a tiny random model is made by transformers at test time (initializer_range 0.3:
peaked heads, so a wrong forward cannot pass), saved with save_pretrained as safetensors, read
back, built natively and compared layer by layer: every attention map (output_attentions, eager)
and the last hidden state, for random ids with and without padding (transformers'
attention_mask with zeros at the end against our key_mask). Both the bare AutoModel layout and a
task head's (prefixed names, head tensors to ignore) are read. Deliberately wrong variants
(RoBERTa positions without the padding_idx + 1 offset, the erf GELU for gelu_new, no token type,
no key mask) must fail the same comparison.
"""

import dataclasses
import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")

from explorer.core.checkpoints import encoders  # noqa: E402
from explorer.core.checkpoints.native import CheckpointError  # noqa: E402

from numeric import assert_close, close  # noqa: E402

D, LAYERS, HEADS, FFN, VOCAB, TABLE = 64, 2, 4, 96, 200, 64
SIZES = dict(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS, intermediate_size=FFN)
# the family's own details exercised: RoBERTa's eps, ELECTRA's projection and a tanh GELU
FAMILIES = {
    "bert": SIZES,
    "roberta": {**SIZES, "layer_norm_eps": 1e-5},
    "xlm-roberta": SIZES,
    "distilbert": dict(dim=D, n_layers=LAYERS, n_heads=HEADS, hidden_dim=FFN),
    "electra": {**SIZES, "embedding_size": 32, "hidden_act": "gelu_new"},
}
HEAD_CLASSES = ("AutoModel", "AutoModelForMaskedLM", "AutoModelForSequenceClassification")
# (length, padding tokens at the end)
SEQUENCES = ((12, 0), (16, 5), (9, 0))


def through_layers(layers: int, d_model: int, n: int) -> int:
    """The rule's reduction (as tests/learned/model_rounding.py): d_model per projection, the n keys
    in the softmax's normaliser and in weights @ V, per layer."""
    return layers * (d_model + 2 * n)


@dataclasses.dataclass
class Pair:
    family: str
    config: dict            # config.json as saved
    tensors: dict           # model.safetensors as saved
    reference: object       # transformers' base model, eager attention
    native: encoders.EncoderModel


def make_pair(family: str, head: str, tmp_path, **overrides) -> Pair:
    import json
    torch.manual_seed(sum(map(ord, family + head)))
    cfg = transformers.AutoConfig.for_model(family, vocab_size=VOCAB, max_position_embeddings=TABLE,
                                            initializer_range=0.3, **{**FAMILIES[family], **overrides})
    if head == "AutoModelForSequenceClassification":
        cfg.num_labels = 3
    model = getattr(transformers, head).from_config(cfg).eval()
    folder = tmp_path / f"{family}-{head}"
    model.save_pretrained(folder, safe_serialization=True)
    config = json.loads((folder / "config.json").read_text("utf-8"))
    tensors = safetensors_torch.load_file(folder / "model.safetensors")
    reference = transformers.AutoModel.from_pretrained(folder, attn_implementation="eager",
                                                       local_files_only=True).eval()
    return Pair(family, config, tensors, reference, encoders.BUILDERS[config["model_type"]](config, tensors))


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    """(family, head class) -> Pair, made once per module."""
    made = {}

    def get(family: str, head: str = "AutoModel") -> Pair:
        if (family, head) not in made:
            made[family, head] = make_pair(family, head, tmp_path_factory.mktemp("ckpt"))
        return made[family, head]
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny products: a second thread only waits (and the machine is shared)
    yield get
    torch.set_num_threads(before)


def sequence(pair: Pair, n: int, pad: int, seed: int) -> tuple[list[int], list[bool]]:
    """Random ids (no special ids) with `pad` padding tokens at the end, and the key mask."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, VOCAB, (n,), generator=g).tolist()
    pad_id = pair.config.get("pad_token_id", 0)
    ids[n - pad:] = [pad_id] * pad
    return ids, [True] * (n - pad) + [False] * pad


def reference_run(pair: Pair, ids, keys):
    with torch.inference_mode():
        out = pair.reference(input_ids=torch.tensor([ids]), attention_mask=torch.tensor([keys]).long(),
                             output_attentions=True, output_hidden_states=True)
    attentions = torch.stack([a[0] for a in out.attentions])  # (layers, heads, n, n)
    return attentions, out.last_hidden_state[0], out.hidden_states


def score_size(model: encoders.EncoderModel, layer_inputs) -> float:
    """max |q·k / √d_head| over the layers (from transformers' own layer inputs): the size the
    softmax's rounding scales with."""
    size = 1.0
    for p, x in zip(model.blocks, layer_inputs):
        x = x[0]
        q = torch.nn.functional.linear(x, p["q_w"], p["q_b"]).view(len(x), model.heads, -1).transpose(0, 1)
        k = torch.nn.functional.linear(x, p["k_w"], p["k_b"]).view(len(x), model.heads, -1).transpose(0, 1)
        size = max(size, float((q @ k.transpose(1, 2)).abs().max()) / math.sqrt(model.d_head))
    return size


def compare(pair: Pair, model=None, use_key_mask: bool = True, check: bool = True) -> dict:
    """Every sequence of SEQUENCES through `model` (the pair's native one by default) and
    transformers: {"attentions": max difference, "hidden": ..., "entropy": mean row entropy / ln n};
    with check=False, returns False at the first disagreement instead of asserting."""
    model = model or pair.native
    worst = {"attentions": 0.0, "hidden": 0.0, "entropy": 0.0}
    for seed, (n, pad) in enumerate(SEQUENCES):
        ids, keys = sequence(pair, n, pad, seed)
        expected, hidden, inputs = reference_run(pair, ids, keys)
        with torch.inference_mode():
            out = model.forward(ids, key_mask=torch.tensor(keys) if use_key_mask else None)
        assert out["attentions"].shape == (LAYERS, HEADS, n, n) and out["hidden"].shape == (n, D)
        assert out["attentions"].dtype == torch.float32 and out["hidden"].dtype == torch.float32
        reduction = through_layers(LAYERS, D, n)
        scale = score_size(pair.native, inputs)
        where = f"{pair.family} n={n} pad={pad}"
        if not check:
            if not (close(out["attentions"], expected, reduction=reduction, scale=scale)
                    and close(out["hidden"], hidden, reduction=reduction, scale=scale)):
                return False
            continue
        worst["attentions"] = max(worst["attentions"], assert_close(
            out["attentions"], expected, reduction=reduction, scale=scale, err_msg=f"{where} attentions"))
        worst["hidden"] = max(worst["hidden"], assert_close(
            out["hidden"], hidden, reduction=reduction, scale=max(scale, float(hidden.abs().max())),
            err_msg=f"{where} hidden"))
        p = expected.double()
        entropy = -(p * torch.log(p.clamp_min(1e-30))).sum(-1).mean()
        worst["entropy"] = max(worst["entropy"], float(entropy) / math.log(n - pad))
        if pad:
            assert torch.all(out["attentions"][..., n - pad:] == 0)  # no query sees a padding key
    return worst if check else True


@pytest.mark.parametrize("head", HEAD_CLASSES)
@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_layers_attention_and_the_hidden_state_match_transformers(pairs, family, head):
    pair = pairs(family, head)
    worst = compare(pair)
    # peaked heads: far from uniform rows (ln n), so a wrong forward moves them visibly
    assert worst["entropy"] < 0.6, worst


def test_electra_without_a_projection_matches_transformers(tmp_path, pairs):
    """embedding_size == hidden_size: no embeddings_project tensor, none applied."""
    pair = make_pair("electra", "AutoModel", tmp_path, embedding_size=D)
    assert not any("embeddings_project" in k for k in pair.tensors) and pair.native.project is None
    compare(pair)


def test_the_contract_attributes(pairs):
    for family in FAMILIES:
        m = pairs(family).native
        assert (m.kind, m.layers, m.heads, m.kv_heads, m.d_model, m.d_head, m.ffn, m.vocab) == \
            ("encoder", LAYERS, HEADS, HEADS, D, D // HEADS, FFN, VOCAB), family
        assert m.device == torch.device("cpu")
        # RoBERTa's positions start at padding_idx + 1 = 2: two rows of the table are never a token's
        assert m.max_positions == (TABLE - 2 if family in ("roberta", "xlm-roberta") else TABLE), family
        assert all(t.dtype == torch.float32 for p in m.blocks for t in p.values())
        # the config's activation and LayerNorm eps (DistilBERT's eps is transformers' fixed 1e-12)
        act = FAMILIES[family].get("hidden_act", "gelu")
        assert m.act is encoders.ACTIVATIONS[act], family
        assert m.eps == FAMILIES[family].get("layer_norm_eps", 1e-12), family


def test_the_longest_roberta_input_matches_transformers(pairs):
    pair = pairs("roberta")
    n = pair.native.max_positions
    ids = torch.randint(5, VOCAB, (n,), generator=torch.Generator().manual_seed(3)).tolist()
    expected, hidden, inputs = reference_run(pair, ids, [True] * n)
    with torch.inference_mode():
        out = pair.native.forward(ids)
    assert_close(out["attentions"], expected, reduction=through_layers(LAYERS, D, n),
                 scale=score_size(pair.native, inputs))
    with pytest.raises(ValueError):
        pair.native.forward(ids + [7])


@pytest.mark.parametrize("family,wrong", [
    ("roberta", {"padding_idx": None}),              # positions 0..n-1: no padding_idx + 1 offset
    ("xlm-roberta", {"padding_idx": None}),
    ("bert", {"type0": None}),                       # token type 0 left out
    ("distilbert", {"padding_idx": 0}),              # RoBERTa's positions where DistilBERT counts from 0
])
def test_a_wrong_variant_fails_the_comparison(pairs, family, wrong):
    pair = pairs(family)
    assert not compare(pair, dataclasses.replace(pair.native, **wrong), check=False)


def test_the_activations_are_transformers_own():
    """Every name of encoders.ACTIVATIONS computes what transformers' ACT2FN gives that name.
    (Tested here, not through the forward: the erf GELU and the tanh one differ by 5e-4 at most,
    which two layers of a tiny model do not carry above the forward's tolerance.)"""
    from transformers.activations import ACT2FN
    x = torch.linspace(-12, 12, 4001)
    for name, act in encoders.ACTIVATIONS.items():
        expected = ACT2FN[name](x)
        assert_close(act(x), expected, scale=12.0, err_msg=name)
    assert not close(encoders.ACTIVATIONS["gelu"](x), ACT2FN["gelu_new"](x), scale=12.0)


def test_without_the_key_mask_the_padded_sequence_fails(pairs):
    pair = pairs("bert")
    assert not compare(pair, use_key_mask=False, check=False)


def test_a_head_mask_zero_mixes_nothing_and_leaves_the_maps(pairs):
    """head_mask 0 for head h of layer 0 equals that head's values being 0; the maps returned are
    the unmasked softmax (layer 0's do not change), the later layers' do."""
    m = pairs("bert").native
    ids = list(range(10, 24))
    mask = torch.ones(LAYERS, HEADS)
    with torch.inference_mode():
        plain = m.forward(ids)
        ones = m.forward(ids, head_mask=mask)
        mask[0, 1] = 0
        masked = m.forward(ids, head_mask=mask)
        blocks = [dict(p) for p in m.blocks]
        dh = m.d_head
        blocks[0]["v_w"] = blocks[0]["v_w"].clone()
        blocks[0]["v_b"] = blocks[0]["v_b"].clone()
        blocks[0]["v_w"][dh:2 * dh] = 0
        blocks[0]["v_b"][dh:2 * dh] = 0
        silenced = dataclasses.replace(m, blocks=blocks).forward(ids)
    assert torch.equal(ones["attentions"], plain["attentions"]) and torch.equal(ones["hidden"], plain["hidden"])
    assert torch.equal(masked["attentions"][0], plain["attentions"][0])
    reduction = through_layers(LAYERS, D, len(ids))
    assert_close(masked["attentions"], silenced["attentions"], reduction=reduction)
    assert_close(masked["hidden"], silenced["hidden"], reduction=reduction)
    assert not close(masked["attentions"][1], plain["attentions"][1], reduction=reduction)


def test_half_precision_weights_are_widened_to_float32(pairs):
    pair = pairs("electra")
    build = encoders.BUILDERS["electra"]
    half = build(pair.config, {k: v.bfloat16() for k, v in pair.tensors.items()})
    widened = build(pair.config, {k: v.bfloat16().float() for k, v in pair.tensors.items()})
    assert half.word.dtype == torch.float32 and half.project[0].dtype == torch.float32
    ids = list(range(20, 32))
    with torch.inference_mode():
        a, b = half.forward(ids), widened.forward(ids)
    assert torch.equal(a["attentions"], b["attentions"]) and torch.equal(a["hidden"], b["hidden"])


def test_tf_era_layernorm_names_are_read(pairs):
    """gamma / beta for LayerNorm weight / bias (old BERT checkpoints), as transformers accepts."""
    pair = pairs("bert")
    renamed = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
               for k, v in pair.tensors.items()}
    m = encoders.BUILDERS["bert"](pair.config, renamed)
    ids = list(range(30, 40))
    with torch.inference_mode():
        assert torch.equal(m.forward(ids)["hidden"], pair.native.forward(ids)["hidden"])


def _one_line_error(family, config, tensors) -> str:
    with pytest.raises(CheckpointError) as caught:
        encoders.BUILDERS[family](config, tensors)
    text = str(caught.value)
    assert "\n" not in text and text
    # a catalogue template (shown in the UI's language), filled in to the same English line
    assert caught.value.template in (encoders.SHAPE_MISMATCH, encoders.MISSING_TENSOR,
                                     encoders.NOT_NATIVE_SETTING)
    return text


@pytest.mark.parametrize("family,name", [
    ("bert", "encoder.layer.1.attention.self.key.weight"),
    ("distilbert", "transformer.layer.0.ffn.lin2.weight"),
    ("electra", "embeddings_project.weight"),
])
def test_a_tensor_of_the_wrong_shape_is_one_line_naming_it(pairs, family, name):
    pair = pairs(family, "AutoModelForMaskedLM")
    key = next(k for k in pair.tensors if k.endswith(name))
    good = tuple(pair.tensors[key].shape)
    bad = (good[0], good[1] - 1)
    text = _one_line_error(family, pair.config, {**pair.tensors, key: torch.zeros(bad)})
    assert key in text and str(good) in text and str(bad) in text, text


def test_a_config_that_contradicts_the_tensors_names_the_tensor(pairs):
    pair = pairs("roberta")
    text = _one_line_error("roberta", {**pair.config, "intermediate_size": 128}, pair.tensors)
    assert "encoder.layer.0.intermediate.dense.weight" in text and "(96, 64)" in text and "(128, 64)" in text


def test_a_missing_tensor_and_unknown_settings_are_one_line(pairs):
    pair = pairs("bert")
    tensors = {k: v for k, v in pair.tensors.items() if "layer.1.output.dense.bias" not in k}
    assert "encoder.layer.1.output.dense.bias" in _one_line_error("bert", pair.config, tensors)
    assert "gelu_wrong" in _one_line_error("bert", {**pair.config, "hidden_act": "gelu_wrong"}, pair.tensors)
    assert "relative_key" in _one_line_error("bert", {**pair.config, "position_embedding_type": "relative_key"},
                                             pair.tensors)
