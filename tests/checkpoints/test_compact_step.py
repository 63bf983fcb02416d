"""The compact step (core/learned/compact/packing.py, stepping.py) on own native decoders of every family.

Oracle: the float32 full causal pass of the same Decoder (which test_native_decoders.py checks
against transformers). Each family's tiny checkpoint is made there (`make_pair`, transformers at test
time); its matrices are scaled by 1/3 here (initializer_range 0.3 → 0.1: heads still far from
uniform, Qwen3's q/k norms keep its heads very peaked) because at 0.3 the three random layers are
chaotic enough that bfloat16 rounding moves attention rows by 0.1. The tolerance is the app's own
for the compact step: check_tolerance(..., "bfloat16", rows) = COMPACT_ULPS · eps(bfloat16) ·
√layers · max(1, |logits|, the scores' spread); measured here up to 2.8 of its 8 ULPs. Wrong compact
steps (RoPE on the wrong pairs, no sliding window, no soft-capping) must fail the same check.
Also: the packing itself (grids kept exactly, 8-bit blocks, padding, chunks) and that packing
happens at the first compact generation, not at load.
"""

import dataclasses
import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from explorer.core.checkpoints import decoders  # noqa: E402
from explorer.core.learned.compact import packing, stepping  # noqa: E402
from explorer.core.learned.generation import check_tolerance, run_generation  # noqa: E402

from test_native_decoders import CASES, LAYERS, ids_of, make_pair  # noqa: E402

BF16 = 2.0 ** -7
needs_kernel = pytest.mark.skipif(not packing.kernel_available(), reason="torch has no 4-bit CPU kernel")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """case -> the family's tiny Decoder, matrices scaled by 1/3 (module docstring)."""
    made = {}

    def get(case: str) -> decoders.Decoder:
        if case not in made:
            pair = make_pair(case, tmp_path_factory.mktemp(case))
            tensors = {k: (v / 3 if v.dim() == 2 else v) for k, v in pair.tensors.items()}
            made[case] = decoders.BUILDERS[pair.config["model_type"]](pair.config, tensors)
        return made[case]
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield get
    torch.set_num_threads(before)


def worst_ratio(model, packed, ids) -> float:
    """max over the steps of max |compact step − full pass| (logits, attention rows) / tolerance."""
    worst = 0.0
    with torch.inference_mode():
        full = model.forward(ids)
        cache = model.new_cache()
        for t, token in enumerate(ids):
            out = stepping.step(packed, cache, token)
            diff = max(float((full["logits"][t] - out["logits"]).abs().max()),
                       float((full["attentions"][:, :, t, :t + 1] - out["rows"]).abs().max()))
            worst = max(worst, diff / check_tolerance(out["logits"], model.layers, "bfloat16", out["rows"]))
    return worst


@needs_kernel
@pytest.mark.parametrize("case", list(CASES))
def test_the_compact_step_equals_the_float32_pass_within_the_bfloat16_tolerance(models, case):
    model = models(case)
    packed = stepping.compact_model(model)
    assert packed.kinds == ("int8", "int8")  # random weights lie on no 4-bit grid
    for seed in (1, 2):
        ratio = worst_ratio(model, packed, ids_of(seed))
        assert ratio <= 1.0, f"{case}: {ratio:.2f} × the bfloat16 tolerance"
    with torch.inference_mode():  # the first layer's queries: one int8 matmul, bfloat16 rounding
        ids = ids_of(3, 4)
        ref_cache, cache = model.new_cache(), model.new_cache()
        for token in ids:
            ref, out = model.step(ref_cache, token), packed.step(cache, token)
        q_err = float((ref["q"][0] - out["q"][0]).abs().max() / ref["q"][0].abs().max())
        assert q_err <= 2 * BF16, q_err
        assert out["rows"].shape == ref["rows"].shape and out["attn_out"].shape == ref["attn_out"].shape
        assert cache.keys[0].dtype == torch.float32 and cache.keys[0].shape == ref_cache.keys[0].shape


@needs_kernel
@pytest.mark.parametrize("case, wrong", [
    ("llama", lambda model, p: {"rotation": stepping._rotation(model.inv_freq, pairs=True)}),  # GGUF's pairs
    ("gemma2", lambda model, p: {"windows": [None] * LAYERS}),
    ("gemma2", lambda model, p: {"attn_softcap": None, "final_softcap": None}),
    ("qwen3", lambda model, p: {"blocks": [dataclasses.replace(b, q_norm=None, k_norm=None) for b in p.blocks]})])
def test_a_wrong_compact_step_fails_the_same_check(models, case, wrong):
    model = models(case)
    packed = stepping.compact_model(model)
    bad = dataclasses.replace(packed, **wrong(model, packed))
    assert worst_ratio(model, bad, ids_of(1)) > 1.0


@needs_kernel
def test_packing_happens_at_the_first_compact_generation_and_is_kept(models):
    from explorer.core.learned.loader import LoadedModel
    from explorer.core.learned.registry import ModelSpec
    from explorer.core.learned.tokenization import Tokens
    pair_model = models("qwen2")
    model = dataclasses.replace(pair_model, blocks=list(pair_model.blocks))  # a fresh object: not packed yet
    spec = ModelSpec("own-qwen2", "decoder", model.layers, model.heads, model.kv_heads, model.d_model, 64, "", "",
                     "", (), "", 0.0, "a tiny Qwen2")

    class Ids:  # the tokenizer calls run_generation makes
        def encode_ids(self, ids):
            return Tokens(list(ids), [str(i) for i in ids], [str(i) for i in ids])

        def piece(self, i):
            return str(i)

    loaded = LoadedModel(spec, Ids(), model, model.device)
    tokens = Ids().encode_ids(ids_of(4, 6))
    assert id(model) not in stepping._MADE
    plain, _, plain_new = run_generation(loaded, tokens, 4, check=True)
    assert id(model) not in stepping._MADE  # float32 generation packs nothing
    assert plain[0].precision == "float32" and plain[0].weights_read == stepping.float32_bytes(model)
    records, cache, new = run_generation(loaded, tokens, 4, check=True, precision="compact")
    packed = stepping._MADE[id(model)][1]
    assert stepping.compact_model(model) is packed  # made once, then kept
    assert all(r.precision == "bfloat16" and r.weights == "int8" for r in records)
    assert all(r.max_diff <= r.tolerance for r in records)
    assert records[0].weights_read == packed.nbytes < plain[0].weights_read / 2.5
    assert cache.length == len(tokens.ids) + 4 and len(new.ids) == 4


def dequantized(p: packing.Packed, inner: int) -> torch.Tensor:
    """The packed matrix (out, in) as the kernel computes it (its bfloat16 output rounds it)."""
    eye = torch.eye(inner)
    return torch.cat([p(eye[i:i + 1]) for i in range(inner)]).t()  # (out, in)


def q4_1_blocks(rows: int, inner: int, seed: int = 0) -> torch.Tensor:
    """Weights as GGUF's Q4_1 stores them: per 32, q·d + m with q 0..15 (both ends used), d, m float16."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randint(0, 16, (rows, inner // 32, 32), generator=g).float()
    q[..., 0], q[..., 1] = 0, 15
    d = (torch.rand(rows, inner // 32, 1, generator=g) * 0.01 + 1e-3).half().float()
    m = (-8 * d - torch.rand(rows, inner // 32, 1, generator=g) * 0.01).half().float()
    return (q * d + m).view(rows, inner)


@needs_kernel
def test_a_4bit_grid_is_kept_and_other_weights_get_8bit_blocks(monkeypatch):
    monkeypatch.setattr(packing, "CHUNK", 64)  # several chunks, the last one padded
    grid = q4_1_blocks(200, 64)
    p = packing.pack(grid)
    assert p.kind == "int4" and p.out == 200 and p.weight.shape == (256, 32)  # rows padded to 64s
    # only bfloat16 roundings: of the step and offset (|q − 8|·d and |m + 8d| at 2^-9) and of the output
    bound = (8 * grid.abs().amax() * 2 ** -9) * 3
    assert float((dequantized(p, 64) - grid).abs().max()) <= bound
    noise = torch.randn(130, 96, generator=torch.Generator().manual_seed(1))
    p8 = packing.pack(noise, torch.ones(130))
    assert p8.kind == "int8" and p8.scales.shape == (3, 2 * 192, 2)  # two 4-bit planes
    d = noise.view(130, 3, 32).abs().amax(-1, keepdim=True) / 127  # the 8-bit step per 32
    err = (dequantized(p8, 96) - 1.0 - noise).view(130, 3, 32).abs()
    assert bool((err <= d / 2 + noise.abs().amax() * 2 ** -7).all())  # half a step, bfloat16 rounding
    odd = packing.pack(noise[:, :40])  # 40 inputs: not a multiple of 32, the kernel's group
    x = torch.randn(1, 40)
    assert odd.kind == "float32" and torch.equal(odd(x), torch.nn.functional.linear(x, noise[:, :40]))


def test_the_measured_choice_is_made_once_per_process(monkeypatch):
    """Training changes torch's thread count; the choice must not be measured (and flip) again."""
    calls = []
    monkeypatch.setattr(packing, "_MEASURED", None)
    monkeypatch.setattr(packing, "_measure", lambda: calls.append(1) or len(calls) == 1)
    monkeypatch.setattr(packing, "kernel_available", lambda: True)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "DEFAULT")  # measured
    threads = torch.get_num_threads()
    try:
        first = packing.packed_is_faster()
        torch.set_num_threads(threads + 1)
        assert packing.packed_is_faster() is first is True
    finally:
        torch.set_num_threads(threads)
    assert packing.packed_is_faster() is True
    assert len(calls) == 1
    assert math.isfinite(check_tolerance(torch.ones(3), 2, "bfloat16"))


@pytest.mark.parametrize("capability, chosen", [("AVX512", True), ("AVX2", True), ("DEFAULT", None)])
def test_the_choice_is_known_where_torch_dispatches_to_avx_and_measured_elsewhere(monkeypatch, capability, chosen):
    """A timing on a busy machine flipped the choice from run to run (issue 21); where whole steps
    were measured faster packed (AVX-512, AVX2), nothing is timed."""
    calls = []
    monkeypatch.setattr(packing, "_MEASURED", None)
    monkeypatch.setattr(packing, "_measure", lambda: calls.append(1) or False)
    monkeypatch.setattr(packing, "kernel_available", lambda: True)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: capability)
    assert packing.packed_is_faster() is (chosen if chosen is not None else False)
    assert len(calls) == (chosen is None)
    monkeypatch.setattr(packing, "_MEASURED", None)
    monkeypatch.setattr(packing, "kernel_available", lambda: False)
    assert packing.packed_is_faster() is False  # no kernel: float32 whatever the CPU


def test_the_measurement_reads_more_than_a_cache_holds():
    """One 3.5 MB matrix measured the cache, not memory: float32 looked faster at AVX2."""
    weights = packing.measured_matrices()
    assert sum(w.numel() * w.element_size() for w in weights) >= packing.MEASURED_BYTES >= 64 << 20
    assert all(w.shape == (2048, 576) for w in weights)
