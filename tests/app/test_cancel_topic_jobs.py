"""Topic jobs give way to a newer request: the encoder block polls its stop check (between steps
and inside the exact GELU), stops with ``Cancelled``, and gives the same numbers when not stopped."""

import threading

import numpy as np
import pytest

from explorer.app.course.topics import compute_encoder
from explorer.core import AttentionConfig, Cancelled
from explorer.core.topics import EncoderConfig
from explorer.core.topics import encoder as encoder_module
from explorer.core.topics.encoder import encoder_block

CONFIG = AttentionConfig(tokens=tuple(f"t{i}" for i in range(24)), d_model=32, n_heads=4, seed=5)


class CountingStop:
    """should_stop that says stop at its `stop_at`-th call (never when None)."""

    def __init__(self, stop_at=None):
        self.calls, self.stop_at = 0, stop_at

    def __call__(self) -> bool:
        self.calls += 1
        return self.stop_at is not None and self.calls >= self.stop_at


@pytest.mark.parametrize("norm_first", [False, True])
def test_not_stopped_gives_the_same_numbers(monkeypatch, norm_first):
    monkeypatch.setattr(encoder_module, "GELU_CHUNK", 64)  # several GELU pieces at this size
    config = EncoderConfig(CONFIG, norm_first=norm_first, activation="gelu")
    stop = CountingStop()
    polled = encoder_block(config, should_stop=stop)
    plain = encoder_block(config)
    assert stop.calls > 6  # polled between steps and between the GELU's pieces
    np.testing.assert_array_equal(polled.output, plain.output)
    np.testing.assert_array_equal(polled.ffn_hidden, plain.ffn_hidden)


@pytest.mark.parametrize("stop_at", [1, 2, 3, 5, 8])
def test_stops_at_any_poll(monkeypatch, stop_at):
    monkeypatch.setattr(encoder_module, "GELU_CHUNK", 64)
    stop = CountingStop(stop_at)
    with pytest.raises(Cancelled):
        encoder_block(EncoderConfig(CONFIG, activation="gelu"), should_stop=stop)
    assert stop.calls == stop_at  # nothing more was computed after it said stop
    assert compute_encoder(CONFIG, False, "gelu", None, should_stop=CountingStop(stop_at)) is None


def test_topic_runner_stops_a_running_encoder_for_a_newer_request(qtbot, monkeypatch):
    """A newer submit makes the running encoder's token stale: it stops, delivers nothing, and
    the newer request's result arrives."""
    from explorer.gui.topics.runner import TopicRunner
    started, release = threading.Event(), threading.Event()
    real_gelu = encoder_module.gelu

    def slow_gelu(x):  # the first request waits here until the newer one is submitted
        if not release.is_set():
            started.set()
            release.wait(10)
        return real_gelu(x)

    monkeypatch.setattr(encoder_module, "gelu", slow_gelu)
    returned = {}

    def job(config, *args, should_stop):
        returned[config.seed] = compute_encoder(config, *args, should_stop=should_stop)
        return returned[config.seed]

    job.cancellable = True
    runner = TopicRunner()
    got = []
    runner.finished.connect(got.append)
    runner.submit_cancellable(job, CONFIG, False, "gelu", None)
    assert started.wait(10)
    newer = CONFIG.replace(seed=6)
    runner.submit_cancellable(job, newer, False, "gelu", None)
    release.set()
    qtbot.waitUntil(lambda: bool(got), timeout=20_000)
    assert runner.wait()  # the thread is idle: it has posted everything it ever will
    qtbot.waitUntil(runner._channel.is_idle, timeout=20_000)  # and every post has been handled
    assert [block.config.attention.seed for block in got] == [6]
    assert returned[5] is None  # the first one stopped (Cancelled), it did not run to the end
    assert returned[6] is not None
