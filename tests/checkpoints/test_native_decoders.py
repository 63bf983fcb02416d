"""The native decoders (core/checkpoints/decoders.py) against transformers' own eager forward.

For each family (and Llama's RoPE scalings) a tiny random model is made by transformers at test
time (initializer_range 0.3 and perturbed norm weights and biases: peaked heads, every tensor
matters, so a wrong forward cannot pass), saved with save_pretrained as safetensors, read back and
built natively. Compared: every layer's attention (output_attentions, eager) and the logits, over
a sequence longer than the sliding windows; then the KV-cached steps against our own full pass
and transformers' logits. Deliberately wrong variants (no window, no soft-capping, RoPE on
adjacent pairs, no q/k norms, ...) must fail the same comparison. Last, run_generation,
analysis.run and pruning on an own Gemma 2 with a trained byte-level BPE: the shared code works
on a new family through the NativeModel contract alone.
"""

import dataclasses
import json
import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")

from explorer.core.checkpoints import decoders  # noqa: E402
from explorer.core.checkpoints.native import CheckpointError  # noqa: E402

from numeric import assert_close, close  # noqa: E402

D, LAYERS, HEADS, KV, FFN, VOCAB, TABLE, WINDOW, N = 64, 3, 4, 2, 96, 200, 128, 6, 20
SIZES = dict(hidden_size=D, num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=KV,
             intermediate_size=FFN, vocab_size=VOCAB, max_position_embeddings=TABLE)
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 16, "rope_theta": 10000.0}
# case -> (model_type, config overrides): each family's own details exercised
CASES = {
    "gpt2": ("gpt2", dict(n_embd=D, n_layer=LAYERS, n_head=HEADS, n_inner=FFN, vocab_size=VOCAB, n_positions=TABLE)),
    "gpt2-by-layer": ("gpt2", dict(n_embd=D, n_layer=LAYERS, n_head=HEADS, n_inner=FFN, vocab_size=VOCAB,
                                   n_positions=TABLE, scale_attn_by_inverse_layer_idx=True)),
    "llama": ("llama", SIZES),
    "llama-linear": ("llama", {**SIZES, "rope_scaling": {"rope_type": "linear", "factor": 4.0}}),
    "llama-dynamic": ("llama", {**SIZES, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}),
    "llama-llama3": ("llama", {**SIZES, "rope_parameters": LLAMA3}),
    "llama-bias-tied": ("llama", {**SIZES, "attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True,
                                  "rope_theta": 500.0}),
    "mistral": ("mistral", {**SIZES, "sliding_window": WINDOW, "head_dim": None}),
    "qwen2": ("qwen2", {**SIZES, "sliding_window": WINDOW, "use_sliding_window": True, "max_window_layers": 1}),
    "qwen3": ("qwen3", {**SIZES, "head_dim": 24}),
    "gemma2": ("gemma2", {**SIZES, "head_dim": 24, "sliding_window": WINDOW, "query_pre_attn_scalar": 16,
                          "attn_logit_softcapping": 5.0, "final_logit_softcapping": 3.0}),
}


def through_layers(layers: int, width: int, n: int) -> int:
    """The rule's reduction (as tests/learned/model_rounding.py): the widest sum a layer makes
    (d_model, the MLP's width, heads × d_head) and the n keys twice (normaliser, weights @ V)."""
    return layers * (width + 2 * n)


@dataclasses.dataclass
class Pair:
    case: str
    config: dict                # config.json as saved
    tensors: dict               # model.safetensors as saved
    reference: object           # transformers' causal LM, eager attention
    native: decoders.Decoder

    @property
    def reduction(self) -> int:
        m = self.native
        return through_layers(m.layers, max(m.d_model, m.ffn, m.heads * m.d_head), N)


def make_pair(case: str, folder, model_class: str = "AutoModelForCausalLM", **overrides) -> Pair:
    model_type, sizes = CASES[case]
    torch.manual_seed(sum(map(ord, case)))
    cfg = transformers.AutoConfig.for_model(model_type, initializer_range=0.3, **{**sizes, **overrides})
    model = getattr(transformers, model_class).from_config(cfg, attn_implementation="eager").eval()
    with torch.no_grad():  # norms start at 1 (Gemma: 0) and biases at 0: make them count too
        for name, p in model.named_parameters():
            if p.dim() == 1:
                p.add_(torch.randn_like(p) * 0.3)
            if name.endswith(("q_norm.weight", "k_norm.weight")):
                p.mul_(3.0)  # Qwen3's normed q, k: larger, so its heads are peaked as well
    model.save_pretrained(folder, safe_serialization=True)
    config = json.loads((folder / "config.json").read_text("utf-8"))
    tensors = safetensors_torch.load_file(folder / "model.safetensors")
    return Pair(case, config, tensors, model, decoders.BUILDERS[config["model_type"]](config, tensors))


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    made = {}

    def get(case: str) -> Pair:
        if case not in made:
            made[case] = make_pair(case, tmp_path_factory.mktemp(case))
        return made[case]
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny products: a second thread only waits (and the machine is shared)
    yield get
    torch.set_num_threads(before)


def ids_of(seed: int, n: int = N, vocab: int = VOCAB) -> list[int]:
    return torch.randint(0, vocab, (n,), generator=torch.Generator().manual_seed(seed)).tolist()


def reference_run(pair: Pair, ids):
    with torch.inference_mode():
        out = pair.reference(input_ids=torch.tensor([ids]), output_attentions=True)
    return torch.stack([a[0] for a in out.attentions]), out.logits[0]  # (layers, heads, n, n), (n, vocab)


def score_size(attentions) -> float:
    """The spread of the scores each row's softmax saw, max log w − min log w over its unmasked
    keys (what its rounding scales with; soft-capped scores stay within twice the cap)."""
    p = attentions.double()
    logp = torch.log(p)
    spread = logp.masked_fill(p == 0, -math.inf).amax(-1) - logp.masked_fill(p == 0, math.inf).amin(-1)
    return max(1.0, float(spread.max()))


def mean_entropy_ratio(attentions) -> float:
    """Mean row entropy / mean ln(keys the row may see), rows that see more than one key."""
    p = attentions.double()
    keys = (p > 0).sum(-1)
    entropy = -(p * torch.log(p.clamp_min(1e-300))).sum(-1)
    seen = keys > 1
    return float(entropy[seen].mean() / torch.log(keys[seen].double()).mean())


def compare(pair: Pair, model=None, check: bool = True):
    """Our forward (the pair's own model by default) against transformers over two sequences:
    max differences {"attentions", "logits", "entropy"} (asserted), or with check=False, whether
    everything is close."""
    model = model or pair.native
    worst = {"attentions": 0.0, "logits": 0.0, "entropy": 0.0}
    for seed in (1, 2):
        ids = ids_of(seed)
        attentions, logits = reference_run(pair, ids)
        with torch.inference_mode():
            out = model.forward(ids)
        assert out["attentions"].shape == (LAYERS, HEADS, N, N) and out["logits"].shape == (N, VOCAB)
        assert out["attentions"].dtype == torch.float32 and out["logits"].dtype == torch.float32
        scale = score_size(attentions)
        if not check:
            if not (close(out["attentions"], attentions, reduction=pair.reduction, scale=scale)
                    and close(out["logits"], logits, reduction=pair.reduction + D)):
                return False
            continue
        where = f"{pair.case} seed {seed}"
        worst["attentions"] = max(worst["attentions"], assert_close(
            out["attentions"], attentions, reduction=pair.reduction, scale=scale, err_msg=f"{where} attentions"))
        worst["logits"] = max(worst["logits"], assert_close(
            out["logits"], logits, reduction=pair.reduction + D, err_msg=f"{where} logits"))
        worst["entropy"] = max(worst["entropy"], mean_entropy_ratio(attentions))
    return worst if check else True


@pytest.mark.parametrize("case", list(CASES))
def test_every_layers_attention_and_the_logits_match_transformers(pairs, case):
    pair = pairs(case)
    worst = compare(pair)
    assert worst["entropy"] < 0.5, worst  # peaked heads: far from uniform rows
    windows = pair.native.windows
    if pair.config.get("sliding_window") and pair.config["model_type"] != "qwen3":
        # the window is real: a sliding layer's rows see WINDOW keys at most
        layer = windows.index(WINDOW)
        attentions, _ = reference_run(pair, ids_of(1))
        assert int((attentions[layer] > 0).sum(-1).max()) == WINDOW


def test_the_layers_that_slide_are_transformers_own(pairs):
    assert pairs("mistral").native.windows == [WINDOW] * LAYERS
    assert pairs("qwen2").native.windows == [None, WINDOW, WINDOW]  # max_window_layers = 1
    assert pairs("gemma2").native.windows == [WINDOW, None, WINDOW]  # even layers slide
    assert pairs("qwen3").native.windows == [None] * LAYERS  # use_sliding_window false
    assert pairs("llama").native.windows == [None] * LAYERS
    gemma = pairs("gemma2")
    assert gemma.config["layer_types"] == ["sliding_attention", "full_attention", "sliding_attention"]
    # older configs without layer_types: the family's rule gives the same layers
    for case in ("qwen2", "gemma2"):
        pair = pairs(case)
        config = {k: v for k, v in pair.config.items() if k != "layer_types"}
        rebuilt = decoders.BUILDERS[config["model_type"]](config, pair.tensors)
        assert rebuilt.windows == pair.native.windows, case


@pytest.mark.parametrize("case", ["gpt2", "llama-llama3", "mistral", "qwen2", "qwen3", "gemma2"])
def test_the_cached_steps_match_the_full_pass_and_transformers(pairs, case):
    pair, m = pairs(case), pairs(case).native
    ids = ids_of(3)
    attentions, logits = reference_run(pair, ids)
    with torch.inference_mode():
        full = m.forward(ids)
        cache = m.new_cache()
        for t, token in enumerate(ids):
            out = m.step(cache, token)
            assert cache.length == t + 1
            assert out["rows"].shape == (LAYERS, HEADS, t + 1) and out["q"].shape == (LAYERS, HEADS, m.d_head)
            assert out["attn_out"].shape == (LAYERS, D) and out["logits"].shape == (VOCAB,)
            scale = score_size(attentions[:, :, t, :t + 1])
            for reference, name in ((full["attentions"], "ours"), (attentions, "transformers")):
                assert_close(out["rows"], reference[:, :, t, :t + 1], reduction=pair.reduction, scale=scale,
                             err_msg=f"{case} step {t} rows vs {name}")
            for reference, name in ((full["logits"], "ours"), (logits, "transformers")):
                assert_close(out["logits"], reference[t], reduction=pair.reduction + D,
                             scale=float(reference.abs().max()), err_msg=f"{case} step {t} logits vs {name}")
            # q is the query as it meets the cached keys: its scores give the row again
            for layer in range(LAYERS):
                keys = cache.keys[layer].repeat_interleave(HEADS // m.kv_heads, dim=0)[:, :t + 1]
                scores = torch.einsum("hd,hkd->hk", out["q"][layer], keys) * m.scaling[layer]
                if m.attn_softcap:
                    scores = torch.tanh(scores / m.attn_softcap) * m.attn_softcap
                if m.windows[layer]:
                    scores[:, :max(0, t + 1 - m.windows[layer])] = -math.inf
                assert_close(torch.softmax(scores, -1), out["rows"][layer], reduction=pair.reduction, scale=scale)
    assert [tuple(k.shape) for k in cache.keys] == [(m.kv_heads, N, m.d_head)] * LAYERS
    assert cache.nbytes == 2 * LAYERS * m.kv_heads * N * m.d_head * 4


def _adjacent_pairs(x, cos, sin):
    """RoPE as llama.py computes it for GGUF's permuted weights: right there, wrong on HF's."""
    half = x.shape[-1] // 2
    c, s = cos[..., :half], sin[..., :half]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)


def _wrong(case: str, pair: Pair, monkeypatch):
    m = pair.native
    dh = m.d_head
    without = {
        "no window": lambda: dataclasses.replace(m, windows=[None] * m.layers),
        "windows swapped": lambda: dataclasses.replace(m, windows=[None if w else WINDOW for w in m.windows]),
        "no score softcap": lambda: dataclasses.replace(m, attn_softcap=None),
        "no logit softcap": lambda: dataclasses.replace(m, final_softcap=None),
        "no embedding scale": lambda: dataclasses.replace(m, embed_scale=None),
        "w not 1 + w": lambda: dataclasses.replace(m, norm="rms"),
        "1/sqrt(d_head)": lambda: dataclasses.replace(m, scaling=[dh ** -0.5] * m.layers),
        "no q/k norm": lambda: dataclasses.replace(m, blocks=[{k: v for k, v in p.items() if k not in
                                                               ("q_norm", "k_norm")} for p in m.blocks]),
        "no q/k/v bias": lambda: dataclasses.replace(m, blocks=[{k: v for k, v in p.items() if k not in
                                                                 ("q_b", "k_b", "v_b")} for p in m.blocks]),
        "no rope scaling": lambda: decoders.BUILDERS[pair.config["model_type"]](
            {k: v for k, v in pair.config.items() if k not in ("rope_parameters", "rope_scaling")}, pair.tensors),
        "unscaled scores": lambda: dataclasses.replace(m, scaling=[1.0] * m.layers),
        "no layer scaling": lambda: dataclasses.replace(m, scaling=[dh ** -0.5] * m.layers),
        "adjacent pairs": lambda: monkeypatch.setattr(decoders, "apply_rope", _adjacent_pairs) or m,
    }
    return without[case]()


@pytest.mark.parametrize("case,wrong", [
    ("mistral", "no window"), ("qwen2", "no window"), ("gemma2", "windows swapped"),
    ("gemma2", "no score softcap"), ("gemma2", "no logit softcap"), ("gemma2", "no embedding scale"),
    ("gemma2", "w not 1 + w"), ("gemma2", "1/sqrt(d_head)"), ("qwen3", "no q/k norm"),
    ("qwen2", "no q/k/v bias"), ("llama-linear", "no rope scaling"), ("llama-llama3", "no rope scaling"),
    ("llama", "adjacent pairs"), ("gpt2", "unscaled scores"), ("gpt2-by-layer", "no layer scaling"),
])
def test_a_wrong_variant_fails_the_comparison(pairs, case, wrong, monkeypatch):
    pair = pairs(case)
    assert not compare(pair, _wrong(wrong, pair, monkeypatch), check=False)


def test_the_contract_attributes(pairs):
    for case, (model_type, _) in CASES.items():
        m = pairs(case).native
        dh = {"qwen3": 24, "gemma2": 24}.get(model_type, D // HEADS)
        kv = HEADS if model_type == "gpt2" else KV
        assert (m.kind, m.layers, m.heads, m.kv_heads, m.d_model, m.d_head, m.ffn, m.max_positions, m.vocab) == \
            ("decoder", LAYERS, HEADS, kv, D, dh, FFN, TABLE, VOCAB), case
        assert m.device == torch.device("cpu")
        assert all(t.dtype == torch.float32 for p in m.blocks for t in p.values()), case
    assert pairs("llama-bias-tied").native.output is pairs("llama-bias-tied").native.embed
    assert pairs("gemma2").native.output is pairs("gemma2").native.embed
    assert pairs("llama").native.output is not pairs("llama").native.embed


def test_a_head_mask_zero_mixes_nothing_and_leaves_the_maps(pairs):
    m = pairs("qwen2").native
    ids = ids_of(4)
    mask = torch.ones(LAYERS, HEADS)
    mask[0, 1] = 0
    with torch.inference_mode():
        plain, masked = m.forward(ids), m.forward(ids, head_mask=mask)
        cache = m.new_cache()
        steps = [m.step(cache, token, head_mask=mask) for token in ids]
    assert torch.equal(masked["attentions"][0], plain["attentions"][0])
    assert not close(masked["attentions"][1:], plain["attentions"][1:])
    assert_close(steps[-1]["logits"], masked["logits"][-1], reduction=through_layers(LAYERS, FFN, N) + D)


def test_half_precision_weights_are_widened_to_float32(pairs):
    pair = pairs("qwen3")
    build = decoders.BUILDERS["qwen3"]
    half = build(pair.config, {k: v.bfloat16() for k, v in pair.tensors.items()})
    widened = build(pair.config, {k: v.bfloat16().float() for k, v in pair.tensors.items()})
    assert all(t.dtype == torch.float32 for p in half.blocks for t in p.values())
    with torch.inference_mode():
        a, b = half.forward(ids_of(5)), widened.forward(ids_of(5))
    assert torch.equal(a["attentions"], b["attentions"]) and torch.equal(a["logits"], b["logits"])


def test_a_bare_gpt2_model_without_the_transformer_prefix(tmp_path):
    """GPT2Model saved alone: names without `transformer.`, the tied lm_head computed from wte."""
    pair = make_pair("gpt2", tmp_path, "AutoModel")
    assert "wte.weight" in pair.tensors and not any(k.startswith("transformer.") for k in pair.tensors)
    ids = ids_of(6)
    with torch.inference_mode():
        expected = pair.reference(input_ids=torch.tensor([ids]), output_attentions=True)
        out = pair.native.forward(ids)
    assert_close(out["attentions"], torch.stack([a[0] for a in expected.attentions]), reduction=pair.reduction,
                 scale=score_size(out["attentions"]))
    hidden = expected.last_hidden_state[0]  # the logits are this times wte
    assert_close(out["logits"], hidden @ pair.tensors["wte.weight"].T, reduction=pair.reduction + D)


def _one_line_error(model_type, config, tensors) -> str:
    with pytest.raises(CheckpointError) as caught:
        decoders.BUILDERS[model_type](config, tensors)
    text = str(caught.value)
    assert "\n" not in text and text
    assert caught.value.template in (decoders.SHAPE_MISMATCH, decoders.MISSING_TENSOR, decoders.NOT_NATIVE_SETTING)
    return text


@pytest.mark.parametrize("case,name", [
    ("gpt2", "transformer.h.1.attn.c_attn.weight"),
    ("qwen3", "model.layers.0.self_attn.k_proj.weight"),
    ("gemma2", "model.layers.2.mlp.down_proj.weight"),
])
def test_a_tensor_of_the_wrong_shape_is_one_line_naming_it(pairs, case, name):
    pair = pairs(case)
    good = tuple(pair.tensors[name].shape)
    bad = (good[0], good[1] - 1)
    text = _one_line_error(pair.config["model_type"], pair.config, {**pair.tensors, name: torch.zeros(bad)})
    assert name in text and str(good) in text and str(bad) in text, text


def test_a_config_that_contradicts_the_tensors_names_the_tensor(pairs):
    pair = pairs("qwen3")
    text = _one_line_error("qwen3", {**pair.config, "head_dim": 16}, pair.tensors)
    assert "model.layers.0.self_attn.q_proj.weight" in text and "(96, 64)" in text and "(64, 64)" in text, text


def test_a_missing_tensor_and_unknown_settings_are_one_line(pairs):
    pair = pairs("llama")
    tensors = {k: v for k, v in pair.tensors.items() if k != "lm_head.weight"}
    assert "lm_head.weight" in _one_line_error("llama", pair.config, tensors)
    for key, value, shown in (("rope_parameters", {"rope_type": "yarn", "factor": 2.0, "rope_theta": 1e4}, "yarn"),
                              ("rope_parameters", {"rope_type": "linear", "rope_theta": 1e4}, "None"),
                              ("hidden_act", "gelu_wrong", "gelu_wrong"),
                              ("num_key_value_heads", 3, "3")):
        assert shown in _one_line_error("llama", {**pair.config, key: value}, pair.tensors), key
    # transformers 4.x wrote rope_theta beside rope_scaling ("type"): read as 5.x's rope_parameters
    old = {**{k: v for k, v in pair.config.items() if k != "rope_parameters"}, "rope_theta": 10000.0,
           "rope_scaling": {"type": "linear", "factor": 4.0}}
    linear = pairs("llama-linear")
    assert torch.equal(decoders.BUILDERS["llama"](old, pair.tensors).inv_freq, linear.native.inv_freq)


# -- the shared code on an own decoder


SENTENCES = ["the cat sat on the mat and the dog sat on the log",
             "a small model attends to the tokens before it",
             "sliding windows keep the last few keys in view", "the mat, the log, the cat and the dog"] * 4


def byte_bpe(vocab_size: int):
    """A byte-level BPE trained here, wrapped as the bundled SmolLM2's tokenizer is."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from explorer.core.learned.tokenization import ByteBPETokenizer
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<pad>"],
                                                           show_progress=False))
    model = json.loads(tok.to_str())["model"]
    tokens = [t for t, _ in sorted(model["vocab"].items(), key=lambda item: item[1])]
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    return ByteBPETokenizer(tokens, merges)


@pytest.fixture(scope="module")
def own_gemma(tmp_path_factory):
    from explorer.core.learned.loader import LoadedModel
    from explorer.core.learned.registry import ModelSpec
    tokenizer = byte_bpe(VOCAB)
    vocab = len(tokenizer._tokens)
    pair = make_pair("gemma2", tmp_path_factory.mktemp("own"), vocab_size=vocab, pad_token_id=0)
    m = pair.native
    spec = ModelSpec("own-gemma2", "decoder", m.layers, m.heads, m.kv_heads, m.d_model, 64, "", "", "", (), "",
                     0.0, "a tiny Gemma 2", pad_id=0, head_dim=m.d_head)
    assert spec.d_head == 24 != D // HEADS
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield LoadedModel(spec, tokenizer, m, m.device), pair
    torch.set_num_threads(before)


def test_generation_with_the_kv_check_on_an_own_gemma2(own_gemma):
    from explorer.core.learned.generation import run_generation, step_flops
    model, pair = own_gemma
    tokens = model.tokenizer("the cat sat on the mat and the dog")
    assert len(tokens.ids) > WINDOW  # the window matters in the steps checked
    for one_pass in (False, True):
        records, cache, new = run_generation(model, tokens, generate=6, check=True, keep_steps=True,
                                             one_pass=one_pass)
        assert len(records) == len(tokens.ids) + 6 and len(new.ids) == 6
        for r in records:
            assert r.max_diff <= r.tolerance, (one_pass, r.position, r.max_diff, r.tolerance)
            assert r.q.shape == (LAYERS, HEADS, 24) and r.rows.shape == (LAYERS, HEADS, r.cached)
            assert r.out.shape == (LAYERS, D)
            assert r.cache_bytes == 2 * LAYERS * KV * r.cached * 24 * 4 and r.cache_bytes_mha == r.cache_bytes * 2
            assert (r.flops_cached, r.flops_recompute) == step_flops(model.spec, FFN, r.position)
        assert cache.length == len(records)
    # greedy: the generated tokens are transformers' own greedy continuation
    with torch.inference_mode():
        expected = pair.reference.generate(torch.tensor([tokens.ids]), max_new_tokens=6, do_sample=False,
                                           pad_token_id=0)
    assert list(new.ids) == expected[0, len(tokens.ids):].tolist()


def test_the_heads_padding_and_pruning_on_an_own_gemma2(own_gemma):
    import numpy as np

    from explorer.core.learned.analysis import run
    from explorer.core.learned.pruning import mask_without, prune_effect
    model, pair = own_gemma
    tokens = model.tokenizer("sliding windows keep the last few keys")
    n = len(tokens.ids)
    result = run(model, tokens)
    expected, logits = reference_run(pair, list(tokens.ids))
    assert_close(result.attentions, expected, reduction=through_layers(LAYERS, FFN, n),
                 scale=score_size(expected))
    assert result.loss is not None and len(result.next_top) == 5
    # padding past the window: the pads' own rows see only pads in a sliding layer (no NaN)
    padded = run(model, tokens, padding=WINDOW + 4)
    assert np.isfinite(padded.attentions).all()
    assert_close(padded.attentions[:, :, :n, :n], result.attentions, reduction=through_layers(LAYERS, FFN, n))
    assert (padded.attentions[:, :, :, n:] == 0).all()
    assert padded.loss == pytest.approx(result.loss, rel=1e-5)
    effect = prune_effect(model, tokens, mask_without(model, [(0, 1), (2, 3)]))
    assert effect["heads_off"] == 2 and effect["loss_pruned"] != effect["loss"]


@pytest.mark.parametrize("case", ["gpt2", "qwen2", "gemma2"])  # gemma2: the final soft-capping in unembed
def test_the_final_capture_gives_the_residual_that_unembeds_to_the_logits(pairs, case):
    """capture "final": the residual stream after the last layer instead of the logits; unembedding
    it gives the plain forward's logits bit for bit (the same kernels on the same rows)."""
    model, ids = pairs(case).native, ids_of(3)
    with torch.inference_mode():
        plain, lean = model.forward(ids), model.forward(ids, capture=("final",))
        assert "logits" not in lean and lean["final"].shape == (N, D)
        assert torch.equal(lean["attentions"], plain["attentions"])
        assert torch.equal(model.unembed(lean["final"]), plain["logits"])
