"""A train loader without ``len()`` (an ``IterableDataset``, streamed data): every batch trains with the values it
trains with when the loader has a length (docs/stepping.md, "A loader without a length").

An epoch of unknown length is known to have ended only when the loader's next ``next()`` raises
``StopIteration``, after the schedulers stepped for its last batch; the trainer then steps the schedules that read
its clock again, so the first batch of the next epoch trains with the values of its own epoch (it trained with
those of the epoch before, when nothing stepped again). The reference is Composer's own ``Trainer``, recorded in
tests/composer_unsized_reference.py, where a loader without a length changes no value either. The lr a batch trains
with is read in an ``optimizer.register_step_pre_hook``.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from composer_unsized_reference import BATCHES_PER_PASS, COMPOSER_LRS, RUN_BATCHES, halving_per_epoch
from torch.optim.lr_scheduler import StepLR

import schedulers.cerebras as cerebras
from schedulers import MultiStepScheduler
from trainer import Callback, LRMonitor, Trainer

_GENERATOR = torch.Generator().manual_seed(0)
ROWS = [(torch.randn(2, generator=_GENERATOR), torch.randn(1, generator=_GENERATOR)) for _ in range(14)]


class Streamed(torch.utils.data.IterableDataset):
    """The 14 rows, streamed: a loader of it has no ``len()``; 7 batches of 2 a pass."""

    def __iter__(self):
        return iter(ROWS)


def _loader(sized: bool) -> torch.utils.data.DataLoader:
    return torch.utils.data.DataLoader(ROWS if sized else Streamed(), batch_size=2)


def _schedule(name: str):
    return halving_per_epoch if name == "halving_per_epoch" else MultiStepScheduler(["7ba", "14ba"], gamma=0.5)


def _trainer(sized: bool, schedulers, max_duration: str = f"{RUN_BATCHES}ba", **options) -> Trainer:
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    return Trainer(
        model,
        _loader(sized),
        max_duration,
        optimizer,
        schedulers=schedulers,
        loss_fn=F.mse_loss,
        progress_bar=False,
        **options,
    )


def _fit(trainer: Trainer) -> tuple[list[float], list[int]]:
    """The lr of each optimizer step, and the epoch count of the trainer's clock just before it."""
    lrs, epochs = [], []

    def before_step(optimizer, args, kwargs) -> None:
        lrs.append(optimizer.param_groups[0]["lr"])
        epochs.append(trainer.state.timestamp.epoch.value)

    trainer.optimizer.register_step_pre_hook(before_step)
    trainer.fit()
    return lrs, epochs


def _by_epoch(*alphas: float) -> list[float]:
    return [alpha for alpha in alphas for _ in range(BATCHES_PER_PASS)]


@pytest.mark.parametrize("max_duration", ["21ba", "3ep"])
@pytest.mark.parametrize("stepping", ["per_batch", "per_epoch"])
@pytest.mark.parametrize("name", ["halving_per_epoch", "multistep"])
def test_without_len_every_batch_trains_as_with_len(name: str, stepping: str, max_duration: str) -> None:
    every_batch = stepping == "per_batch"
    sized = _fit(_trainer(True, _schedule(name), max_duration, step_schedulers_every_batch=every_batch))
    unsized = _fit(_trainer(False, _schedule(name), max_duration, step_schedulers_every_batch=every_batch))
    assert unsized == sized
    lrs, epochs = unsized
    assert epochs == [0] * 7 + [1] * 7 + [2] * 7
    assert lrs == _by_epoch(1.0, 0.5, 0.25)  # both schedules halve at each epoch's first batch: 7 and 14


@pytest.mark.parametrize("sized", [True, False], ids=["len", "no-len"])
def test_per_batch_is_composers_lr_one_batch_earlier_with_or_without_len(sized: bool) -> None:
    """Deviation 4: batch k trains with α at k, Composer's with α at k − 1 (Composer's batch k + 1), at the first
    batch of an epoch of unknown length too; before the fix batch 7 trained with 1.0 and batch 14 with 0.5."""
    for name in ("halving_per_epoch", "multistep"):
        lrs, _ = _fit(_trainer(sized, _schedule(name), step_schedulers_every_batch=True))
        composer = COMPOSER_LRS[name, "per_batch"]
        assert lrs[:-1] == composer[1:] and (lrs[7], lrs[14]) == (0.5, 0.25)


@pytest.mark.parametrize("sized", [True, False], ids=["len", "no-len"])
def test_per_epoch_is_composers_staircase_with_or_without_len(sized: bool) -> None:
    """A schedule of batches held per epoch: Composer's values exactly. A function of the epoch count: Composer
    steps before it counts the epoch, so epoch e holds f(e − 1) (and epoch 0 f(0)); Cadence holds f(e), the value at
    the epoch's start (docs/composer-deviations.md, deviation 4)."""
    multistep, _ = _fit(_trainer(sized, _schedule("multistep"), step_schedulers_every_batch=False))
    assert multistep == COMPOSER_LRS["multistep", "per_epoch"]
    halving, _ = _fit(_trainer(sized, halving_per_epoch, step_schedulers_every_batch=False))
    assert halving == _by_epoch(1.0, 0.5, 0.25)
    assert COMPOSER_LRS["halving_per_epoch", "per_epoch"] == _by_epoch(1.0, 1.0, 0.5)


@pytest.mark.parametrize(
    "make",
    [
        lambda optimizer: StepLR(optimizer, step_size=5, gamma=0.5),
        lambda optimizer: cerebras.StepLR(optimizer, initial_learning_rate=1.0, step_size=5, gamma=0.5),
    ],
    ids=["torch-StepLR", "cerebras-StepLR"],
)
def test_a_scheduler_that_counts_its_steps_is_not_stepped_again_when_the_loader_runs_out(make) -> None:
    """Only the schedules that read the clock step again at an epoch's end: one that counts its steps (torch's,
    Cerebras's, SambaFlow's) would be moved one step per epoch. A step of 5 batches, not a multiple of 7."""
    options = dict(step_schedulers_every_batch=True)
    sized, _ = _fit(_trainer(True, make, **options))
    unsized, _ = _fit(_trainer(False, make, **options))  # a one-parameter callable: a factory of the optimizer
    assert unsized == sized == [0.5 ** (k // 5) for k in range(RUN_BATCHES)]


def test_a_preview_without_len_is_the_run() -> None:
    monitor = LRMonitor()
    _trainer(False, halving_per_epoch).preview([monitor])
    assert monitor.values("lr") == _fit(_trainer(False, halving_per_epoch))[0] == _by_epoch(1.0, 0.5, 0.25)


def test_epoch_end_callbacks_and_checkpoints_see_the_new_epochs_lr(tmp_path) -> None:
    """When the loader runs out, the values are written for the new epoch before ``on_epoch_end`` and the
    checkpoint saved at the epoch's end, as when the last batch closes the epoch."""

    class AtEpochEnd(Callback):
        def __init__(self) -> None:
            self.seen: list[float] = []

        def on_epoch_end(self, trainer) -> None:
            self.seen.append(trainer.optimizer.param_groups[0]["lr"])

    for sized in (True, False):
        callback, folder = AtEpochEnd(), tmp_path / f"sized-{sized}"
        _trainer(sized, halving_per_epoch, "3ep", callbacks=[callback], save_folder=folder, save_interval="1ep").fit()
        assert callback.seen == [0.5, 0.25, 0.125]
        saved = torch.load(folder / "ba00000007.pt", weights_only=False)
        assert saved["optimizer"]["param_groups"][0]["lr"] == 0.5


@pytest.mark.parametrize("first", ["7ba", "10ba"])
def test_a_run_split_at_or_inside_a_pass_trains_as_the_whole_run(first: str) -> None:
    """``fit("7ba")`` stops at the last batch of a pass, before the loader ran out: the next ``fit()`` finds it out
    (the pass yields nothing more), closes the epoch, and its first batch trains with epoch 1's value."""
    trainer = _trainer(False, halving_per_epoch)
    lrs: list[float] = []
    trainer.optimizer.register_step_pre_hook(
        lambda optimizer, args, kwargs: lrs.append(optimizer.param_groups[0]["lr"])
    )
    trainer.fit(first)
    trainer.fit()
    assert lrs == _by_epoch(1.0, 0.5, 0.25)


@pytest.mark.parametrize("stop", ["7ba", "10ba"], ids=["at-the-pass-end", "inside-a-pass"])
def test_a_run_resumed_from_its_checkpoint_by_a_fresh_trainer_trains_as_the_whole_run(tmp_path, stop: str) -> None:
    """Stopped at the last batch of a pass (the loader has not run out yet: the epoch is still open in the
    checkpoint) or inside one, saved, and resumed by a new Trainer from the folder: every batch after the stop
    trains with the lr of the run that was not stopped, and no batch is trained twice or skipped."""
    whole = _fit(_trainer(False, halving_per_epoch))[0]
    first = _trainer(False, halving_per_epoch, save_folder=tmp_path, save_interval="1ba")
    first.fit(stop)
    second = _trainer(False, halving_per_epoch, save_folder=tmp_path, load_path=tmp_path)
    lrs, _ = _fit(second)
    assert lrs == whole[int(stop[:-2]) :]
    assert second.state.timestamp.batch.value == RUN_BATCHES
