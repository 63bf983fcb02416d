"""The task batches say what they claim: where the copy is, what is scored, what the target is."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.training import TASKS, probe_tokens
from explorer.core.training.tasks import probe_half

B, V, T = 200, 64, 32


def batch(task: str, seed: int = 0):
    return TASKS[task].batch(np.random.default_rng(seed), B, V, T)


def test_induction_scores_only_tokens_whose_answer_is_the_token_after_an_earlier_occurrence():
    inputs, targets, mask = batch("induction")
    assert inputs.shape == targets.shape == mask.shape == (B, T)
    np.testing.assert_array_equal(targets[:, :-1], inputs[:, 1:])  # next-token prediction
    for row in range(B):
        scored = np.flatnonzero(mask[row])
        assert 4 <= scored.size <= 14  # a 5–15-token copy, minus its first token
        assert np.all(np.diff(scored) == 1)  # one contiguous stretch
        for i in scored:  # the answer is what followed an earlier occurrence of the current token
            earlier = np.flatnonzero(inputs[row, :i] == inputs[row, i])
            assert any(inputs[row, j + 1] == targets[row, i] for j in earlier)


def test_induction_copies_sit_at_many_offsets_but_the_fixed_variant_always_at_half():
    def copy_starts(task):
        _, _, mask = batch(task, seed=3)
        return {int(np.flatnonzero(m)[0]) for m in mask}
    assert len(copy_starts("induction")) > 10
    assert copy_starts("induction-fixed") == {T // 2}


def test_the_fixed_variant_is_solved_by_looking_half_the_sequence_back():
    inputs, targets, mask = batch("induction-fixed")
    rows, cols = np.nonzero(mask)
    np.testing.assert_array_equal(targets[rows, cols], inputs[rows, cols - T // 2 + 1])


def test_previous_token_targets():
    inputs, targets, mask = batch("previous-token")
    np.testing.assert_array_equal(targets[:, 1:], inputs[:, :-1])
    assert not mask[:, 0].any() and mask[:, 1:].all()


@pytest.mark.parametrize("task, transform", [("reverse", lambda x: x[::-1]), ("sort", np.sort)])
def test_list_tasks_score_the_transformed_list_after_the_separator(task, transform):
    inputs, targets, mask = batch(task)
    k, sep = 10, V - 1
    assert (inputs[:, k] == sep).all() and (inputs[:, :k] < sep).all()
    for row in range(5):
        np.testing.assert_array_equal(targets[row][mask[row]], transform(inputs[row, :k]))


@pytest.mark.parametrize("task", list(TASKS))
def test_the_same_generator_seed_gives_the_same_batch(task):
    for a, b in zip(batch(task, 5), batch(task, 5)):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(batch(task, 5)[0], batch(task, 6)[0])


def test_the_probe_repeats_distinct_tokens_at_a_distance_unlike_the_fixed_offset():
    probe = probe_tokens(V, T)
    half = probe_half(T)
    assert probe.shape == (2 * half,) and half != T // 2
    assert len(set(probe[:half].tolist())) == half
    np.testing.assert_array_equal(probe[:half], probe[half:])
    np.testing.assert_array_equal(probe, probe_tokens(V, T))  # fixed


@settings(max_examples=60, deadline=None)
@given(task=st.sampled_from(sorted(TASKS)), seq_len=st.integers(8, 80), extra_vocab=st.integers(0, 40),
       seed=st.integers(0, 2**32 - 1))
def test_any_valid_size_gives_well_formed_batches(task, seq_len, extra_vocab, seed):
    vocab = max(3, probe_half(seq_len)) + extra_vocab
    TASKS[task].check(vocab, seq_len)
    inputs, targets, mask = TASKS[task].batch(np.random.default_rng(seed), 4, vocab, seq_len)
    assert inputs.shape == targets.shape == mask.shape == (4, seq_len)
    assert mask.any(axis=1).all()  # every sequence has something to learn
    assert 0 <= inputs.min() and inputs.max() < vocab and 0 <= targets.min() and targets.max() < vocab
    if task.startswith("induction"):  # every scored answer follows an earlier occurrence
        for row, i in zip(*np.nonzero(mask)):
            earlier = np.flatnonzero(inputs[row, :i] == inputs[row, i])
            assert any(inputs[row, j + 1] == targets[row, i] for j in earlier)
