"""Attention sinks: the share of attention on the first token and on the separators."""

import numpy as np

from explorer.core.insight import separator_positions, sink_shares
from numeric import assert_close


def test_shares_of_a_hand_made_encoder_layer():
    pieces = ["[CLS]", "the", "cat", "[SEP]"]
    a = np.zeros((1, 2, 4, 4))
    a[0, 0, :, 0] = 1.0                      # head 0: every row on [CLS]
    a[0, 1] = [[0.5, 0, 0, 0.5]] * 4         # head 1: half on [CLS], half on [SEP]
    shares = sink_shares(a, pieces)
    assert shares.separator_positions == (3,) and shares.first_piece == "[CLS]" and shares.queries == 4
    assert_close(shares.first, [[1.0, 0.5]], dtype="float64")
    assert_close(shares.separators, [[0.0, 0.5]], dtype="float64")
    assert_close(shares.first_by_layer, [0.75], dtype="float64")


def test_a_decoder_leaves_out_query_zero_and_padding_rows():
    a = np.tril(np.ones((4, 4)))
    a = (a / a.sum(-1, keepdims=True))[None, None]  # uniform causal rows: 1, 1/2, 1/3, 1/4 on token 0
    shares = sink_shares(a, ["The", "Ġcat", "Ġsat", "<pad>"], causal=True, n_real=3)
    assert shares.queries == 2  # rows 1 and 2: row 0 sees only itself, row 3 is padding
    assert_close(shares.first, [[(1 / 2 + 1 / 3) / 2]], dtype="float64")
    assert shares.separator_positions == () and np.all(shares.separators == 0)


def test_separators_by_piece_or_by_id():
    assert separator_positions(["<s>", "▁a", "</s>", "</s>"]) == (2, 3)
    assert separator_positions(["<|im_start|>", "hi", "<|im_end|>"]) == (2,)
    assert separator_positions(["a", "b", "c"], ids=(5, 6, 7), separator_ids=(7,)) == (2,)


def test_minilm_puts_a_layer_on_cls_and_sep(minilm):
    import torch
    tokens = minilm.tokenizer("The cat sat on the mat.")
    with torch.inference_mode():
        att = minilm.weights.forward(list(tokens.ids))["attentions"].numpy()
    shares = sink_shares(att, tokens.pieces)
    assert shares.separator_positions == (len(tokens.ids) - 1,)
    # a trained encoder's heads park weight on [CLS] and [SEP] far above 2/n
    assert (shares.first + shares.separators).max() > 0.5 > 2 / len(tokens.ids)
