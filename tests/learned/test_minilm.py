"""MiniLM-L6: our BERT forward against transformers' BertModel, loaded from the package's own folder."""

import pytest

from explorer.core.learned import score_heads, weights_path
from explorer.core.learned.analysis import run, tokenize

from model_rounding import model_reduction
from numeric import assert_close

SENTENCES = ["The cat sat on the mat.", "Attention is all you need, they said in 2017!",
             "나는 학교에 버스로 갔다", "Seoul 서울 is big"]


@pytest.fixture(scope="module")
def bert_oracle(minilm, monkeypatch_module):
    transformers = pytest.importorskip("transformers", reason="transformers is the test oracle (test extra)")
    monkeypatch_module.setenv("HF_HUB_OFFLINE", "1")
    folder = weights_path(minilm.spec).parent
    model = transformers.BertModel.from_pretrained(str(folder), attn_implementation="eager")
    return model.eval()


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.parametrize("text", SENTENCES)
def test_attention_equals_transformers_bert(minilm, bert_oracle, text):
    import torch
    tokens = tokenize(minilm, text)
    ours = run(minilm, tokens)
    with torch.no_grad():
        theirs = bert_oracle(torch.tensor([tokens.ids]), output_attentions=True)
    expected = torch.stack(theirs.attentions)[:, 0].numpy()  # (layers, heads, n, n)
    assert ours.attentions.shape == expected.shape == (6, 12, len(tokens.ids), len(tokens.ids))
    n = len(tokens.ids)
    assert_close(ours.attentions, expected, reduction=model_reduction(minilm, n))
    assert_close(ours.hidden, theirs.last_hidden_state[0].numpy(), reduction=model_reduction(minilm, n))


def test_korean_pieces_are_readable(minilm):
    tokens = tokenize(minilm, "나는 학교에 버스로 갔다")
    assert tokens.pieces[1] == "\u1102"  # the model's piece: a conjoining jamo (NFD, lower-cased)
    assert tokens.labels[1] == "ㄴ" and "[UNK]" in tokens.pieces  # 갔다 is unknown to MiniLM


def test_layer0_has_a_previous_token_head(minilm):
    result = run(minilm, tokenize(minilm, "The quick brown fox jumps over the lazy dog."))
    layer0 = [r for r in score_heads(result.attentions, causal=False) if r.layer == 0]
    previous = [r for r in layer0 if r.role == "previous-token"]
    assert previous and max(r.score for r in previous) > 0.9


def test_pruned_heads_equal_bert_with_their_output_columns_zeroed(minilm, bert_oracle):
    """Switching head h of layer l off = removing its slice of the attention output projection's input."""
    import copy

    import torch

    from explorer.core.learned.pruning import mask_without, prune_effect
    tokens = tokenize(minilm, "The quick brown fox jumps over the lazy dog.")
    off = [(0, 2), (3, 5), (5, 11)]
    ours = run(minilm, tokens, mask_without(minilm, off))
    oracle = copy.deepcopy(bert_oracle)
    with torch.no_grad():
        for layer, head in off:
            oracle.encoder.layer[layer].attention.output.dense.weight[:, head * 32:(head + 1) * 32] = 0
        theirs = oracle(torch.tensor([tokens.ids])).last_hidden_state[0].numpy()
    assert_close(ours.hidden, theirs, reduction=model_reduction(minilm, len(tokens.ids)))
    effect = prune_effect(minilm, tokens, mask_without(minilm, off))
    assert effect["heads_off"] == 3 and 0 < effect["sentence_cosine"] < 1
