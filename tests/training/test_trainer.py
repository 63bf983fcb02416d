"""The step-wise trainer: logging, snapshots, stopping between steps, reproducibility."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from explorer.core import DeviceUnavailableError  # noqa: E402
from explorer.core.training import TrainConfig, Trainer  # noqa: E402

from numeric import assert_close  # noqa: E402

SMALL = TrainConfig(steps=30, log_every=10, snapshot_every=20, batch=16, d_model=32, seed=4)


def curves(trainer):
    """Every logged number (nan → None: nan != nan would fail a plain comparison)."""
    return [(r.step, None if np.isnan(r.train_loss) else r.train_loss, r.heldout_loss, r.accuracy,
             r.scores.tolist()) for r in trainer.records]


def test_logs_at_zero_every_interval_and_the_end_and_snapshots_likewise():
    trainer = Trainer(SMALL.replace(steps=35))
    records = list(trainer.run())
    assert [r.step for r in trainer.records] == [0, 10, 20, 30, 35]
    assert [r.step for r in records] == [10, 20, 30, 35]  # run() yields what it logged
    assert np.isnan(trainer.records[0].train_loss) and not np.isnan(records[-1].train_loss)
    assert [s.step for s in trainer.snapshots] == [0, 20, 35]
    snap = trainer.snapshots[-1]
    assert snap.attention.shape == (2, 4, 24, 24) and snap.scores.shape == (2, 4, 2)
    assert_close(snap.attention.sum(-1), 1.0, reduction=2 * 24, scale=1.0)  # softmax and sum over T = 24
    np.testing.assert_array_equal(snap.attention, trainer.probe_attention())


def test_snapshots_do_not_depend_on_the_log_interval():
    trainer = Trainer(SMALL.replace(steps=30, log_every=20, snapshot_every=7))
    list(trainer.run())
    assert [r.step for r in trainer.records] == [0, 20, 30]
    assert [s.step for s in trainer.snapshots] == [0, 7, 14, 21, 28, 30]


def test_the_held_out_loss_falls_and_the_accuracy_rises():
    """previous-token with one layer is learnt in a few dozen steps."""
    trainer = Trainer(TrainConfig(task="previous-token", n_layers=1, steps=120, log_every=40, seed=1))
    list(trainer.run())
    first, last = trainer.records[0], trainer.records[-1]
    assert last.heldout_loss < first.heldout_loss - 2.0
    assert last.accuracy > 0.9 > first.accuracy
    assert last.scores[0, :, 0].max() > 0.8  # and a previous-token head does the job


def test_should_stop_is_checked_between_steps_and_training_resumes():
    trainer = Trainer(SMALL)
    list(trainer.run(should_stop=lambda: trainer.step_count >= 7))
    assert trainer.step_count == 7 and not trainer.done
    assert trainer.step(100)[-1].step == 30  # never past config.steps
    assert trainer.done and trainer.step(5) == []


def test_same_seed_same_curves_and_another_seed_other_curves():
    a, b, c = Trainer(SMALL), Trainer(SMALL), Trainer(SMALL.replace(seed=5))
    for t in (a, b, c):
        list(t.run())
    assert curves(a) == curves(b)
    assert curves(a) != curves(c)
    np.testing.assert_array_equal(a.snapshots[-1].attention, b.snapshots[-1].attention)


def test_stepping_in_pieces_gives_the_same_curves_as_one_run():
    whole, pieces = Trainer(SMALL), Trainer(SMALL)
    list(whole.run())
    for n in (3, 1, 9, 17):
        pieces.step(n)
    assert curves(whole) == curves(pieces)


def test_the_trainer_pins_its_threads_and_puts_the_old_count_back():
    before = torch.get_num_threads()
    seen = []
    trainer = Trainer(SMALL.replace(steps=2), threads=1)
    trainer._train_one = lambda wrapped=trainer._train_one: seen.append(torch.get_num_threads()) or wrapped()
    trainer.step(2)
    assert seen == [1, 1] and torch.get_num_threads() == before


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_cuda_without_a_gpu_is_a_clear_device_error():
    with pytest.raises(DeviceUnavailableError, match="CUDA was requested"):
        Trainer(SMALL.replace(device="cuda"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_training_is_reproducible():
    a, b = Trainer(SMALL.replace(device="cuda")), Trainer(SMALL.replace(device="cuda"))
    for t in (a, b):
        list(t.run())
    assert curves(a) == curves(b)


@pytest.mark.parametrize("task", ["induction", "induction-fixed", "previous-token", "reverse", "sort"])
@pytest.mark.parametrize("size", [dict(seq_len=8, vocab=3, d_model=2, n_heads=2, n_layers=1),
                                  dict(seq_len=40, vocab=20, d_model=24, n_heads=3, n_layers=2)])
def test_every_task_trains_at_small_and_odd_sizes(task, size):
    config = TrainConfig(task=task, steps=3, log_every=1, batch=4, **size)
    trainer = Trainer(config)
    list(trainer.run())
    assert [r.step for r in trainer.records] == [0, 1, 2, 3]
    assert all(np.isfinite(r.heldout_loss) for r in trainer.records)
    probe = 2 * (3 * size["seq_len"] // 8)
    assert trainer.snapshots[-1].attention.shape == (size["n_layers"], size["n_heads"], probe, probe)
