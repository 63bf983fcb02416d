"""The lessons "PEFT through attention" and "What raw attention hides": every number a step quotes
is what the app computes for what the step asks (the PEFT topic's core on the Lab 3 layer, the
course model's value norms and rollout, the bundled models through `dump`), in both languages.

Numbers are compared as the lesson prints them (two decimals, or the app's own format): a printed
number is the very string the rounding gives, so these comparisons are exact."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.app.lessons import builtin_lessons, find_lesson
from explorer.app.models.learned_state import DEFAULT_TEXT
from explorer.core import PRESETS, forward
from explorer.core.insight import max_tokens_for_flow, rollout
from explorer.core.insight.value_norms import course_value_norms, norm_disagreement
from explorer.core.topics.peft import PeftConfig, lora_scale, parameter_counts, peft_topic
from explorer.core.training import TrainConfig
from explorer.core.training.lora_config import LoraConfig, base_parameter_count, lora_parameter_count

LAB3 = PRESETS["course-lab3"].config
KOREAN = "나는 학교에 버스로 갔다"


def step(lesson: str, step_id: str):
    return next(s for s in find_lesson(lesson).steps if s.id == step_id)


def quoted(s, *numbers: str, answer: bool = False) -> None:
    """Every number is written in the step's English and Korean text (or its answer)."""
    for language in ("en", "ko"):
        text = (s.answer if answer else s.text).in_language(language)
        missing = [n for n in numbers if n not in text]
        assert missing == [], f"step {s.id} ({language}) does not say {missing}"


def row(values) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def peft(**settings):
    return peft_topic(PeftConfig(attention=LAB3, **settings))


def test_the_two_lessons_come_after_the_course_in_order():
    names = [lesson.name for lesson in builtin_lessons()]
    assert names[-2:] == ["peft", "inside-attention"]
    peft_lesson, inside = find_lesson("peft"), find_lesson("inside-attention")
    assert peft_lesson.title.en == "PEFT through attention" and inside.title.en == "What raw attention hides"
    assert {s.view for s in peft_lesson.steps} == {"peft", "train", "heads", "overview"}
    assert {s.model for s in inside.steps} == {"random", "minilm-l6", "smollm2-135m"}
    for s in (*peft_lesson.steps, *inside.steps):  # 2–5 sentences: a step, not a chapter
        assert 150 < len(s.text.en) < 600 and 80 < len(s.text.ko) < 600, s.id


# ----- PEFT through attention: the topic on Lab 3 ------------------------------------------------
def test_lora_with_b_zero_is_the_base_exactly():
    s = step("peft", "lora-b-zero")
    assert s.config == LAB3 and s.topic == "peft"
    r = peft()  # the topic's defaults: LoRA on W_Q, r = 2, α = 8, B = 0
    assert not r.lora.b.any()
    np.testing.assert_array_equal(r.weights, r.base_weights)  # bit for bit
    quoted(s, row(r.base_weights[0, 0]))
    assert r.lora.w.size == 64 and 2 * (8 + 8) == 32
    quoted(s, "32", "64", "65,536", answer=True)
    assert 8 * (4096 + 4096) == 65_536 and round(100 * 65_536 / 4096 ** 2, 1) == 0.4


def test_b_drawn_quotes_the_singular_values_and_the_head_change():
    r = peft(b_init="seed")
    sv = r.lora.delta_singular
    assert len(sv) == 2  # rank ≤ r: the other six are 0
    changes = np.abs(r.weights_difference).reshape(2, -1).max(axis=1)
    w_sv = r.lora.w_singular
    quoted(step("peft", "lora-b-drawn"), *(f"{v:.2f}" for v in (*sv, *changes)),
           row(w_sv[:3]), f"{w_sv[-1]:.2f}", row(r.weights[0, 0]))


def test_rank_four_and_rslora_quote_their_scales_and_values():
    s = step("peft", "rank-and-rslora")
    plain, rs = peft(b_init="seed", rank=4), peft(b_init="seed", rank=4, rslora=True)
    assert (plain.lora.scale, rs.lora.scale) == (2.0, 4.0)
    largest = np.abs(plain.weights_difference).max()
    quoted(s, row(plain.lora.delta_singular), row(rs.lora.delta_singular), f"{largest:.2f}")
    assert f"{lora_scale(8, 2, True):.2f}" == "5.66"
    quoted(s, "5.66", answer=True)


def test_trained_b_quotes_its_losses_and_the_merge_check():
    r = peft(b_init="trained")
    lora = r.lora
    assert len(lora.losses) == 21 and lora.check.ok and lora.check.max_difference < 1e-13
    quoted(step("peft", "trained-merged"), f"{lora.losses[0]:.3g}", f"{lora.losses[-1]:.3g}", "20")


def test_lora_on_w_v_moves_no_weight_only_the_output():
    r = peft(b_init="seed", target="v")
    np.testing.assert_array_equal(r.weights, r.base_weights)
    quoted(step("peft", "lora-on-v"), f"{np.abs(r.output_difference).max():.2f}")


def test_ia3_moves_head_zero_from_one_key_to_another():
    base, r = peft(), peft(method="ia3")
    before, after = base.base_weights[0, 0], r.weights[0, 0]  # head 0, query 나는
    assert (LAB3.tokens[before.argmax()], LAB3.tokens[after.argmax()]) == ("버스로", "학교에")
    quoted(step("peft", "ia3"), f"{before.max():.2f}", f"{after.max():.2f}", "16")


def test_prefix_and_prompt_quote_their_shapes_and_shares():
    prefix, prompt = peft(method="prefix"), peft(method="prompt")
    assert prefix.weights.shape == (2, 4, 6) and prompt.weights.shape == (2, 6, 6)
    np.testing.assert_array_equal(prefix.weights.sum(-1).round(12), 1.0)
    real = prefix.weights[:, :, 2:].sum(-1).mean()
    quoted(step("peft", "prefix"), f"{100 * real:.1f} %", "4 × 6", "32",
           *(f"⟨p{i + 1}⟩ {w:.2f}" for i, w in enumerate(prefix.weights[0, 0, :2])),
           row(prefix.weights[0, 0, 2:]))
    quoted(step("peft", "prompt"), "6 × 6", "16")


def test_the_parameter_table_step_quotes_the_counts():
    counts = {c.key: c for c in parameter_counts(8, 1, 2, 2)}
    s = step("peft", "parameter-table")
    quoted(s, *(f"{counts[k].trainable}" for k in counts), *(f"{100 * counts[k].share:g} %"
                                                            for k in ("lora", "lora_qv", "lora_all")))
    lora_qv = 2 * 8 * (4096 + 4096)
    assert (lora_qv, 4 * 4096 ** 2) == (131_072, 67_108_864) and f"{100 * lora_qv / 67_108_864:.3f}" == "0.195"


def test_the_train_tab_step_quotes_the_default_base_and_lora():
    base, lora = TrainConfig(), LoraConfig()
    assert (base.n_layers, base.n_heads, base.d_model) == (2, 4, 64)
    assert (lora.task, lora.rank, lora.alpha, lora.targets) == ("previous-token", 4, None, ("q", "v"))
    trainable, full = lora_parameter_count(lora, base), base_parameter_count(base)
    quoted(step("peft", "train-lora"), f"{trainable:,}", f"{full:,}", f"{trainable + full:,}",
           f"{100 * trainable / (trainable + full):.1f} %")


def test_the_smollm2_lora_step_quotes_peft_s_default_count():
    from explorer.core.adapters.lora_train import LLAMA_DEFAULT, TuneSettings
    from explorer.core.learned.registry import MODELS
    spec, tune = MODELS["smollm2-135m"], TuneSettings()
    assert (tune.rank, tune.alpha, tune.steps, LLAMA_DEFAULT) == (8, 16.0, 20, ("q_proj", "v_proj"))
    d, kv = spec.d_model, spec.d_model // spec.heads * spec.kv_heads  # v_proj: d → kv_heads · d_head
    count = spec.layers * tune.rank * ((d + d) + (d + kv))
    quoted(step("peft", "fine-tune-smollm2"), f"{count:,}")


# ----- What raw attention hides: the course model's numbers --------------------------------------
def test_value_weighted_step_quotes_the_lab3_norms():
    s = step("inside-attention", "value-weighted")
    assert s.config == LAB3 and s.model == "random" and (s.tab, s.insight) == ("insight", "values")
    result = forward(LAB3)
    norms = course_value_norms(result)  # (1, heads, n, n)
    alpha, weighted = result.weights[0, 0], norms[0, 0, 0]  # head 0, query 나는
    own = weighted / np.where(alpha > 0, alpha, 1)  # ‖v_j W_O‖ per key
    shares = weighted / weighted.sum()
    tv = norm_disagreement(result.weights[None], norms)[0]
    assert own.argmax() == 0  # 나는's own vector is the longest
    quoted(s, row(alpha), row(weighted), f"{own[0]:.2f}", f"{shares[0]:.2f}", f"{shares[3]:.2f}",
           f"{tv[0]:.2f}", f"{tv[1]:.2f}")


def test_rollout_question_is_the_lab3_rollout():
    s = step("inside-attention", "rollout")
    result = forward(LAB3)
    mean = result.weights.mean(axis=0)[0]  # (n,) the heads' mean row of 나는
    assert row(mean) in s.question.en and row(mean) in s.question.ko
    quoted(s, row(rollout(result.weights[None])[0, 0]), answer=True)
    assert max_tokens_for_flow(6) == 14
    quoted(s, "14", "16")


# ----- What raw attention hides: the bundled models ---------------------------------------------
def dump(capsys, *args) -> dict:
    from explorer.cli import main
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def installed(name: str) -> None:
    from explorer.core.learned import get_spec, is_installed
    spec = get_spec(name)
    if not is_installed(spec):
        pytest.skip(f"{name} is not installed ({spec.install_command})")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_smollm2_steps_quote_the_default_sentence(capsys):
    installed("smollm2-135m")
    doc = dump(capsys, "dump", "--model", "smollm2-135m", "--text", DEFAULT_TEXT, "--layer", "0",
               "--sinks", "--logit-lens")
    sinks = doc["sinks"]
    by_layer = np.array(sinks["first_by_layer"])
    top = int(by_layer.argmax())
    sink = step("inside-attention", "sink")
    assert sink.layer == top and sinks["first_piece"] == "The"
    quoted(sink, f"{by_layer.mean():.0%}".replace("%", " %"), f"{by_layer[top]:.0%}".replace("%", " %"),
           str(top))
    # the next token after the sentence (the Generate tab's table) and the top-p question
    next5 = doc["next_top5"]
    shown = [(t["token"].replace("▁", ""), f"{t['p']:.2f}") for t in next5]
    sampling = step("inside-attention", "sampling")
    quoted(sampling, *(f"{token} {p}" for token, p in shown))
    p1, p2 = next5[0]["p"], next5[1]["p"]
    assert p1 < 0.3 <= p1 + p2
    quoted(sampling, f"{p1 + p2:.2f}", f"{p1 / (p1 + p2):.2f}", f"{p2 / (p1 + p2):.2f}", answer=True)
    # the logit lens: after "it" the final answer and the first layer that has it
    lens = doc["logit_lens"]
    at = doc["tokens"].index("Ġit")
    final, first, settled = lens["final"][at], lens["first_row"][at], lens["settled_row"][at]
    assert final == "▁was" and first == settled  # found, and kept to the last layer
    assert lens["rows"][first] == "layer 25"
    quoted(step("inside-attention", "logit-lens"), '"it"', '"was"', "25")


def test_the_words_step_quotes_the_korean_pieces(capsys):
    installed("smollm2-135m")
    installed("minilm-l6")
    smol = dump(capsys, "dump", "--model", "smollm2-135m", "--text", KOREAN, "--layer", "0", "--words")
    sizes = [len(g) for g in smol["words"]["groups"]]
    assert smol["words"]["words"] == KOREAN.split() and sum(sizes) == len(smol["tokens"])
    s = step("inside-attention", "words-not-pieces")
    quoted(s, KOREAN.split()[0], str(len(smol["tokens"])), " + ".join(map(str, sizes)))
    mini = dump(capsys, "dump", "--model", "minilm-l6", "--text", KOREAN, "--layer", "0", "--words")
    assert mini["words"]["words"][-2:] == ["[UNK]", "[SEP]"]  # 갔다: one unknown piece
    assert str(len(mini["tokens"])) in s.question.en and str(len(mini["tokens"])) in s.question.ko
    default = dump(capsys, "dump", "--model", "minilm-l6", "--text", DEFAULT_TEXT, "--layer", "0")
    assert len(default["tokens"]) == 16 > max_tokens_for_flow(6)
