"""Words, not pieces: the grouping finds the words the pieces were cut from (every scheme, Korean
eojeol included), word attention rows sum to 1, and one-piece words keep the pieces' numbers."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from explorer.core.insight import group_attention, scheme_of, word_groups
from explorer.core.learned.labels import byte_decoder
from numeric import assert_close

WORD = st.text(alphabet="abcxyz가나다학교에", min_size=1, max_size=5)
BYTE_OF = {b: ch for ch, b in byte_decoder().items()}  # byte -> GPT-2's printable stand-in


def cut(text: str, data) -> list[str]:
    """`text` cut into 1 or more consecutive pieces at points hypothesis picks."""
    points = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text) - 1)))
    points = [p for p in points if 0 < p < len(text)]
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


def marked(words: list[str], scheme: str, data) -> tuple[list[str], list[list[int]]]:
    """The pieces a tokenizer of `scheme` would give for the words, and each word's piece positions."""
    pieces, groups = [], []
    for w, word in enumerate(words):
        if scheme == "wordpiece":
            parts = cut(word, data)
            parts = [parts[0]] + ["##" + p for p in parts[1:]]
        elif scheme == "metaspace":
            parts = cut("▁" + word, data)
        else:  # bytelevel: the bytes of " word" (no space before the first), stand-ins, cut anywhere
            raw = ("" if w == 0 else " ") + word
            parts = cut("".join(BYTE_OF[b] for b in raw.encode("utf-8")), data)
        groups.append(list(range(len(pieces), len(pieces) + len(parts))))
        pieces.extend(parts)
    return pieces, groups


SPECIALS = {"wordpiece": ("[CLS]", "[SEP]"), "metaspace": ("<s>", "</s>"),
            "bytelevel": ("<|endoftext|>", "<|endoftext|>")}


@settings(max_examples=150, deadline=None)
@given(words=st.lists(WORD, min_size=1, max_size=6), scheme=st.sampled_from(["wordpiece", "metaspace", "bytelevel"]),
       wrap=st.booleans(), data=st.data())
def test_the_grouping_finds_the_words_the_pieces_were_cut_from(words, scheme, wrap, data):
    pieces, groups = marked(words, scheme, data)
    labels = list(words)
    if wrap:
        first, last = SPECIALS[scheme]
        pieces = [first, *pieces, last]
        groups = [[0], *[[i + 1 for i in g] for g in groups], [len(pieces) - 1]]
        labels = [first, *labels, last]
    found = word_groups(pieces, scheme)
    assert [list(g) for g in found.groups] == groups
    assert list(found.labels) == labels
    if scheme != "bytelevel" or len(words) > 1:  # one byte-level word has no marker to tell
        assert scheme_of(pieces=pieces) == scheme


@settings(max_examples=150, deadline=None)
@given(words=st.lists(WORD, min_size=1, max_size=6), scheme=st.sampled_from(["wordpiece", "metaspace", "bytelevel"]),
       heads=st.integers(1, 3), causal=st.booleans(), seed=st.integers(0, 2 ** 31), data=st.data())
def test_word_rows_sum_to_one_and_one_piece_words_keep_their_numbers(words, scheme, heads, causal, seed, data):
    pieces, _ = marked(words, scheme, data)
    n = len(pieces)
    scores = np.random.default_rng(seed).standard_normal((2, heads, n, n)) * 3
    if causal:
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    a = np.exp(scores - scores.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)  # (2, heads, n, n)
    found = word_groups(pieces, scheme)
    w = group_attention(a, found)  # (2, heads, m, m)
    assert w.shape == (2, heads, found.n_words, found.n_words)
    assert_close(w.sum(-1), np.ones(w.shape[:-1]), dtype="float64", reduction=n)
    single = [(k, g[0]) for k, g in enumerate(found.groups) if len(g) == 1]
    for wa, i in single:
        for wb, j in single:
            np.testing.assert_array_equal(w[..., wa, wb], a[..., i, j])
    if all(len(g) == 1 for g in found.groups):
        np.testing.assert_array_equal(w, a)


def test_a_word_sums_its_key_pieces_and_averages_its_query_pieces():
    a = np.array([[0.5, 0.25, 0.25], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])  # "cat" = ca ##t, then "sat"
    words = word_groups(["ca", "##t", "sat"], "wordpiece")
    assert words.labels == ("cat", "sat")
    expected = np.array([[(0.75 + 0.7) / 2, (0.25 + 0.3) / 2], [0.4, 0.6]])
    assert_close(group_attention(a, words), expected, dtype="float64")


def test_real_tokenizers_give_the_whitespace_words(tiny_pair):
    text = "the cat sat on the mat 나는 학교에 갔다"
    for family in ("bert", "llama"):
        model = tiny_pair(family).model
        tokens = model.tokenizer(text)
        words = word_groups(tokens.pieces, scheme_of(model.tokenizer, tokens.pieces))
        plain = [w for w in words.labels if not w.startswith(("[", "<"))]
        assert plain == text.split(), family
        assert words.n_words < len(tokens.pieces)  # some words really were cut


@pytest.mark.parametrize("name, text", [("e5-small", "나는 학교에 버스로 갔다"),
                                        ("smollm2-135m", "The cats sat on mats"),
                                        ("minilm-l6", "the cats sat 나는 학교에")])
def test_bundled_tokenizers_give_the_whitespace_words(name, text):
    from explorer.core.learned import get_spec, is_installed, load_model
    if not is_installed(get_spec(name)):
        pytest.skip(f"{name} is not installed")
    model = load_model(name)
    tokens = model.tokenizer(text)
    words = word_groups(tokens.pieces, scheme_of(model.tokenizer, tokens.pieces))
    assert [w for w in words.labels if not w.startswith(("[", "<"))] == text.split()


def test_a_newline_is_a_word_and_the_next_line_starts_one():
    words = word_groups(["Hello", "Ġwor", "ld", "Ċ", "Next", "Ġline"], "bytelevel")
    assert words.labels == ("Hello", "world", "↵", "Next", "line")
    assert words.groups == ((0,), (1, 2), (3,), (4,), (5,))
