"""Adapters made by peft 0.21.2 on tiny random checkpoints, applied by core.adapters, against
peft's own PeftModel (eager attention, output_attentions=True).

Every case perturbs the adapter's trainable tensors before saving, and checks first that the
adapted attention differs from the base's by a lot (so an implementation that ignored the adapter,
or applied it to the wrong module, scale or axis, fails), then that every layer's attention and
the logits (decoders) or last hidden states (encoders) equal PeftModel's to tests/numeric.py's
float32 rule. LoRA is merged here (W + scale·B·A) while peft runs it unmerged, so the two differ by
rounding only.
"""

from __future__ import annotations

import numpy as np
import pytest
from peft import IA3Config, LoraConfig, PrefixTuningConfig, PromptTuningConfig

from explorer.core.adapters.load import load_adapted
from explorer.core.checkpoints.load import load_checkpoint

from adapter_support import DECODERS, reduction, score_size  # noqa: E402
from numeric import assert_close  # noqa: E402

TEXT = "the cat sat on the mat and the dog sat on the log"
ATTENTION = ["q_proj", "k_proj", "v_proj", "o_proj"]
MLP = ["gate_proj", "up_proj", "down_proj"]
BERT_ALL = ["query", "key", "value", "dense"]

# case -> (family, peft config): what each one exercises is in its name
CASES = {
    "llama-lora-qv": ("llama", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])),
    "llama-lora-all-rslora": ("llama", lambda: LoraConfig(r=4, lora_alpha=6, use_rslora=True,
                                                           target_modules=ATTENTION + MLP)),
    "llama-lora-patterns": ("llama", lambda: LoraConfig(
        r=4, lora_alpha=8, target_modules=ATTENTION, rank_pattern={"k_proj": 2, r"layers\.1\.self_attn\.q_proj": 6},
        alpha_pattern={"v_proj": 3, "o_proj": 12})),
    "llama-lora-layer1": ("llama", lambda: LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj"],
                                                     layers_to_transform=[1])),
    "gpt2-lora-c_attn": ("gpt2", lambda: LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"],
                                                     fan_in_fan_out=True)),
    "gpt2-lora-conv1d-all": ("gpt2", lambda: LoraConfig(r=3, lora_alpha=5, target_modules=["c_attn", "c_proj", "c_fc"],
                                                         fan_in_fan_out=True, bias="all")),
    "bert-lora-all-rslora": ("bert", lambda: LoraConfig(r=4, lora_alpha=4, use_rslora=True, target_modules=BERT_ALL)),
    "bert-lora-bias": ("bert", lambda: LoraConfig(r=2, lora_alpha=4, target_modules=["query", "value"],
                                                   lora_bias=True, bias="lora_only")),
    "llama-ia3": ("llama", lambda: IA3Config(target_modules=["k_proj", "v_proj", "down_proj"],
                                             feedforward_modules=["down_proj"])),
    "gpt2-ia3": ("gpt2", lambda: IA3Config(target_modules=["c_attn", "mlp.c_proj"], feedforward_modules=["mlp.c_proj"],
                                           fan_in_fan_out=True)),
    "bert-ia3": ("bert", lambda: IA3Config(target_modules=["key", "value", "output.dense"],
                                           feedforward_modules=["output.dense"])),
    "llama-prefix": ("llama", lambda: PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "llama-prefix-projection": ("llama", lambda: PrefixTuningConfig(
        task_type="CAUSAL_LM", num_virtual_tokens=4, prefix_projection=True, encoder_hidden_size=24)),
    "gpt2-prefix": ("gpt2", lambda: PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "llama-prompt": ("llama", lambda: PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=3)),
    "gpt2-prompt": ("gpt2", lambda: PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=2)),
    "bert-prompt": ("bert", lambda: PromptTuningConfig(task_type="FEATURE_EXTRACTION", num_virtual_tokens=3)),
    "roberta-prompt": ("roberta", lambda: PromptTuningConfig(task_type="FEATURE_EXTRACTION", num_virtual_tokens=2)),
}


def made(bases, adapter, case):
    family, config = CASES[case]
    return family, bases(family), adapter(family, case, config())


def real_block(attentions: np.ndarray, v: int, prompt: bool) -> np.ndarray:
    """The text's queries on the text's keys (the base's axes) of an adapted map."""
    return attentions[:, :, v:, v:] if prompt else attentions[:, :, :, v:]


@pytest.mark.parametrize("case", CASES)
def test_adapted_attention_equals_peft(case, bases, adapter, peft_run):
    family, base, folder = made(bases, adapter, case)
    model = load_adapted(base, folder)
    ids = list(model.tokenizer(TEXT).ids)
    with torch_inference():
        ours = model.weights.forward(ids)
    attentions = ours["attentions"].numpy()
    v, prompt = model.virtual_tokens, model.virtual_queries
    n = len(ids)
    assert attentions.shape[2:] == ((v + n) if prompt else n, v + n)
    plain = load_checkpoint(base).weights.forward(ids)["attentions"].numpy()
    change = np.abs(real_block(attentions, v, prompt) - plain).max()
    assert change > 0.1, f"{case}: the adapter hardly changes the attention ({change:.3g}): nothing is tested"

    expected = peft_run(base, folder, ids, family)
    red = reduction(model.weights, v + n)
    assert_close(attentions, expected["attentions"], dtype="float32", reduction=red,
                 scale=score_size(expected["attentions"]), err_msg=f"{case} attentions")
    if family in DECODERS:
        logits = expected["logits"][-n:]  # prompt tuning: peft's logits include the virtual positions
        assert_close(ours["logits"].numpy(), logits, dtype="float32", reduction=red + model.weights.d_model,
                     err_msg=f"{case} logits")
    else:
        assert_close(ours["hidden"].numpy(), expected["hidden"][-n:], dtype="float32", reduction=red,
                     err_msg=f"{case} hidden")


def torch_inference():
    import torch
    return torch.inference_mode()


def test_the_cases_cover_what_the_issue_names():
    names = " ".join(CASES)
    for needed in ("lora-qv", "lora-all-rslora", "c_attn", "patterns", "ia3", "prefix", "prefix-projection",
                   "prompt", "bert-lora", "bert-prompt"):
        assert needed in names
