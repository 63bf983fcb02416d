"""The logit lens against transformers: its output_hidden_states through the model's own final
norm and lm_head, in float64 (a tiny Llama: RMSNorm; a tiny GPT-2: LayerNorm, tied head)."""

import copy

import numpy as np
import pytest

from explorer.core.config import ConfigError
from explorer.core.insight import captured_run, logit_lens
from explorer.core.insight.lens import answer_rows
from numeric import assert_close

TEXT = "the cat sat on the mat and the dog sat on the log"


def final_norm(hf):
    return hf.model.norm if hasattr(hf, "model") else hf.transformer.ln_f


def reference(hf, ids):
    """(hidden states (L + 1, n, d), lens probabilities (L + 1, n, vocab)) from transformers in float64.
    Its last hidden state has the final norm applied already (checked: lm_head of it = logits)."""
    import torch
    model = copy.deepcopy(hf).double()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_hidden_states=True)
        states = [h[0] for h in out.hidden_states]
        logits = [model.lm_head(final_norm(model)(h)) for h in states[:-1]] + [model.lm_head(states[-1])]
        assert torch.allclose(logits[-1], out.logits[0])
        return torch.stack(states).numpy(), torch.softmax(torch.stack(logits), dim=-1).numpy()


@pytest.mark.parametrize("family", ["llama", "gpt2"])
def test_lens_equals_transformers_hidden_states_through_norm_and_head(tiny_pair, family):
    import torch
    pair = tiny_pair(family)
    ids = pair.ids(TEXT)
    states, probs = reference(pair.hf, ids)  # (L + 1, n, d), (L + 1, n, vocab)
    run = captured_run(pair.model, pair.model.tokenizer.encode_ids(ids))
    layers, d = pair.model.spec.layers, pair.model.spec.d_model
    reduction = layers * (d + 2 * len(ids)) + d
    # the captured stream is transformers' (its last entry before the final norm)
    assert_close(run.hidden_states[:-1], states[:-1], dtype="float32", reduction=reduction)
    with torch.no_grad():
        normed = final_norm(pair.hf)(torch.from_numpy(run.hidden_states[-1]))
    assert_close(normed, states[-1], dtype="float32", reduction=reduction)

    lens = logit_lens(pair.model, run.hidden_states)
    expected_ids = probs.argmax(-1)  # (L + 1, n)
    top2 = np.sort(probs, axis=-1)[..., -2:]
    clear = top2[..., 1] - top2[..., 0] > 1e-4  # not a near tie
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(lens.top_ids[clear], expected_ids[clear])
    assert_close(lens.top_p, probs.max(-1), dtype="float32", reduction=reduction)
    final = expected_ids[-1]
    assert_close(lens.final_p, probs[:, np.arange(len(ids)), final], dtype="float32", reduction=reduction)
    # the last row is the model's own prediction
    with torch.no_grad():
        logits = pair.model.weights.forward(ids)["logits"]
    np.testing.assert_array_equal(lens.final, logits.argmax(-1).numpy())


def test_first_and_settled_rows():
    top = np.array([[1, 2, 3, 4],
                    [5, 2, 9, 4],
                    [5, 7, 3, 4],
                    [5, 2, 3, 4]])  # (rows, n): the last row is the final answer
    first, settled = answer_rows(top)
    np.testing.assert_array_equal(first, [1, 0, 0, 0])
    np.testing.assert_array_equal(settled, [1, 3, 2, 0])


def test_an_encoder_has_no_lens(tiny_pair):
    pair = tiny_pair("bert")
    run = captured_run(pair.model, pair.model.tokenizer(TEXT))
    with pytest.raises(ConfigError, match="needs a decoder"):
        logit_lens(pair.model, run.hidden_states)


def test_chosen_positions_and_small_chunks_give_the_same_table(tiny_pair, monkeypatch):
    from explorer.core.insight import lens as lens_module
    pair = tiny_pair("llama")
    run = captured_run(pair.model, pair.model.tokenizer(TEXT))
    whole = logit_lens(pair.model, run.hidden_states)
    monkeypatch.setattr(lens_module, "CHUNK_LOGITS", 7 * pair.model.weights.vocab)  # 7 vectors a chunk
    some = logit_lens(pair.model, run.hidden_states, positions=[5, 0, 3])
    np.testing.assert_array_equal(some.top_ids, whole.top_ids[:, [5, 0, 3]])
    assert_close(some.top_p, whole.top_p[:, [5, 0, 3]], dtype="float32", reduction=pair.model.spec.d_model)
    assert_close(some.final_p, whole.final_p[:, [5, 0, 3]], dtype="float32", reduction=pair.model.spec.d_model)


def test_the_lens_can_be_stopped(tiny_pair):
    from explorer.core.cancel import Cancelled
    pair = tiny_pair("llama")
    run = captured_run(pair.model, pair.model.tokenizer(TEXT))
    with pytest.raises(Cancelled):
        logit_lens(pair.model, run.hidden_states, should_stop=lambda: True)
