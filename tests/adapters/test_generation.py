"""An adapted decoder generates as PeftModel does (greedy), through the shared run_generation:
the NativeModel's new_cache (pre-filled with the virtual positions for prefix and prompt tuning)
and step. Every cached step is checked against the full pass on the way.

The oracle is PeftModel's forward, its argmax fed back token by token (what peft trains and
evaluates with); for LoRA and IA³ PeftModel.generate gives the same tokens and is checked too.
For prefix and prompt tuning, peft 0.21.2's generate with transformers 5.24 disagrees with its own
forward (measured with output_scores: prefix tuning's logits differ from the forward's at the
first generated token already, prompt tuning's from the second, its first cached step, by whole
units), so generate is no oracle for them."""

from __future__ import annotations

import warnings

import pytest
from peft import IA3Config, LoraConfig, PrefixTuningConfig, PromptTuningConfig

from explorer.core.adapters.load import load_adapted
from explorer.core.learned.analysis import tokenize
from explorer.core.learned.generation import run_generation

from adapter_support import load_peft  # noqa: E402

torch = pytest.importorskip("torch")

TEXT = "the cat sat on the mat"
K = 5
CASES = {
    "llama-gen-lora": ("llama", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"])),
    "llama-gen-ia3": ("llama", lambda: IA3Config(target_modules=["k_proj", "v_proj", "down_proj"],
                                                 feedforward_modules=["down_proj"])),
    "llama-gen-prefix": ("llama", lambda: PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "llama-gen-prompt": ("llama", lambda: PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "gpt2-gen-prefix": ("gpt2", lambda: PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=2)),
    "gpt2-gen-lora": ("gpt2", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"], fan_in_fan_out=True)),
}


def peft_greedy(model, ids: list[int], k: int) -> list[int]:
    """PeftModel's forward over the growing sequence, its argmax appended each time (no cache)."""
    seq = list(ids)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(k):
            seq.append(int(model(input_ids=torch.tensor([seq])).logits[0, -1].argmax()))
    return seq[len(ids):]


def peft_generate(model, ids: list[int], k: int) -> list[int]:
    """PeftModel.generate, greedy, never stopping early (run_generation does not stop at EOS)."""
    model.generation_config.eos_token_id = None
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = model.generate(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                             max_new_tokens=k, do_sample=False, pad_token_id=0)
    return out[0, -k:].tolist()


@pytest.mark.parametrize("case", CASES)
def test_greedy_generation_equals_peft(case, bases, adapter):
    family, config = CASES[case]
    base, folder = bases(family), adapter(family, case, config())
    model = load_adapted(base, folder)
    tokens = tokenize(model, TEXT)
    records, cache, generated = run_generation(model, tokens, K, check=True)
    peft = load_peft(base, folder, family)
    assert list(generated.ids) == peft_greedy(peft, list(tokens.ids), K)
    if not model.virtual_tokens:  # see the module docstring
        assert list(generated.ids) == peft_generate(peft, list(tokens.ids), K)
    v = model.virtual_tokens
    assert cache.length == v + len(tokens.ids) + K
    for record in records:  # every cached step equals the full pass (logits and attention rows)
        assert record.max_diff <= record.tolerance, (case, record.position, record.max_diff)
    assert records[0].cached == v + 1


def test_prefix_cache_starts_with_the_virtual_keys(bases, adapter):
    base = bases("llama")
    model = load_adapted(base, adapter("llama", "llama-gen-prefix", CASES["llama-gen-prefix"][1]()))
    cache = model.weights.new_cache()
    again = model.weights.new_cache()
    assert cache.length == 3 and again.length == 3
    model.weights.step(cache, 5)
    assert cache.length == 4 and again.length == 3  # each new cache is its own
