"""Padding for pretrained models: padding tokens appended and masked as keys, checked against the unpadded run."""

import numpy as np
import pytest

from explorer.core.config import ConfigError
from explorer.core.learned.analysis import MAX_PADDING, run, tokenize

from model_rounding import llama_logits_size, logits_reduction, model_reduction
from numeric import assert_close
from test_learned_gui import choose, settle_learned

TEXT = "the cat sat on the mat"


@pytest.mark.parametrize("name", ["minilm", "e5", "smollm2"])
def test_padding_keys_get_zero_weight_and_real_rows_equal_the_unpadded_run(name, request):
    model = request.getfixturevalue(name)
    tokens = tokenize(model, TEXT)
    n = len(tokens.ids)
    plain, padded = run(model, tokens), run(model, tokens, padding=4)
    assert padded.attentions.shape[-1] == n + 4
    assert padded.tokens.ids[n:] == (model.spec.pad_id,) * 4 and padded.tokens.ids[:n] == tokens.ids
    assert np.all(padded.attentions[..., n:] == 0)  # no query, in no layer or head, sees a pad
    # the padded run has longer matrix products: other blocking, other rounding, every layer
    assert_close(padded.attentions[..., :n, :n], plain.attentions, reduction=model_reduction(model, n + 4))
    # pad rows attend to real keys; the softmax's normaliser and this sum: n + 4 terms each
    assert_close(padded.attentions.sum(-1), 1.0, reduction=2 * (n + 4), scale=1.0)
    if model.is_decoder:  # a mean cross-entropy: the logits' error, plus a log-sum-exp over the vocabulary
        vocab = model.weights.embed.shape[0]
        assert_close(padded.loss, plain.loss, dtype="float32", reduction=logits_reduction(model, n + 4) + vocab,
                     scale=llama_logits_size(model, tokens.ids))
        assert [t[2] for t in padded.next_top] == [t[2] for t in plain.next_top]
    else:
        assert_close(padded.hidden, plain.hidden, reduction=model_reduction(model, n + 4))


def test_without_the_mask_an_encoders_real_rows_change(minilm):
    """The comparison above can fail: the same pads left unmasked move the real tokens' attention."""
    import torch
    from explorer.core.learned import bert
    tokens = tokenize(minilm, TEXT)
    n = len(tokens.ids)
    with torch.inference_mode():
        unmasked = bert.forward(minilm.weights, list(tokens.ids) + [minilm.spec.pad_id] * 4)
    plain = run(minilm, tokens)
    assert np.abs(unmasked["attentions"][..., :n, :n].numpy() - plain.attentions).max() > 1e-2


def test_padding_is_bounded(minilm):
    with pytest.raises(ConfigError, match="padding takes"):
        run(minilm, tokenize(minilm, TEXT), padding=MAX_PADDING + 1)


def test_the_padding_box_pads_the_pretrained_picture(make_window, qtbot, minilm):
    window = make_window()
    choose(qtbot, window, "minilm-l6")
    plain = window.learned.analysis
    window.model_source.padding.setValue(3)
    qtbot.waitUntil(lambda: window.learned.analysis is not None and window.learned.analysis.padding == 3,
                    timeout=60_000)
    settle_learned(qtbot, window)
    a, n = window.learned.analysis, plain.n_tokens
    assert a.labels == plain.labels + ("[PAD]",) * 3 and a.n_real == n
    assert [(r.role, r.score) for r in a.roles] == [(r.role, r.score) for r in plain.roles]
    picture = window.learned.picture()
    assert not picture.mask[:, n:].any() and picture.mask[:, :n].all()
    image = window.heads_grid.head_image(2)
    assert image.shape == (n + 3, n + 3) and np.all(image[:, n:] == 0)
    assert_close(image[:n, :n], plain.attentions[0, 2], dtype="float32",  # layer 0: one layer's rounding
                 reduction=model_reduction(minilm, n + 3, layers=1))
    assert "padding" in picture.describe_cell(2, 1, n + 1)
    window.model_source.padding.setValue(0)
    qtbot.waitUntil(lambda: window.learned.analysis.padding == 0, timeout=60_000)
    assert window.learned.analysis.labels == plain.labels
