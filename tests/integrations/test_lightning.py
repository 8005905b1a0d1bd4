"""Cadence schedules inside PyTorch Lightning: the lr of every optimizer step is the schedule at Lightning's step.

PyTorch Lightning is in the test extra. Under ``CI=true`` a missing Lightning fails this module
(docs/integrations.md); elsewhere the module is skipped with the install line.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch
from composer_unsized_reference import BATCHES_PER_PASS, COMPOSER_LRS, RUN_BATCHES, halving_per_epoch

from schedulers import (
    CosineAnnealingWithWarmupScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    SchedulerState,
    evaluate_run,
)
from schedulers.integrations import lightning as integration
from schedulers.integrations.lightning import LightningScheduler, lightning_scheduler_config
from timeunits import Time, Timestamp

_IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def _import_lightning():
    # the integration's order: its CadenceClockCallback subclasses the Callback of the first one installed
    for name in ("lightning.pytorch", "pytorch_lightning"):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    message = "PyTorch Lightning is not installed: pip install -e '.[test]' (or pip install pytorch_lightning)"
    if _IN_CI:
        raise ImportError(message)  # docs/integrations.md: in CI a missing integration dependency fails
    pytest.skip(message, allow_module_level=True)


pl = _import_lightning()

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*does not have many workers:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*isinstance\\(treespec, LeafSpec\\).*:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:.*isinstance\\(treespec, LeafSpec\\).*:FutureWarning"),
]

BASE_LR = 0.1
# 9 loader batches an epoch; with accumulate_grad_batches=2, 5 optimizer steps (the last one of 4 samples)
SAMPLES, BATCH_SIZE = 36, 4


class TinyModule(pl.LightningModule):
    """A linear regression whose optimizer records (global_step, lr) just before every optimizer step."""

    def __init__(self, schedule, **config) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(3, 1)
        self.schedule = schedule
        self.config = config
        self.seen: list[tuple[int, float, Timestamp]] = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=BASE_LR)
        optimizer.register_step_pre_hook(self._record)
        self.lr_config = lightning_scheduler_config(self.schedule, optimizer, self, **self.config)
        return {"optimizer": optimizer, "lr_scheduler": self.lr_config}

    def _record(self, optimizer, args, kwargs) -> None:
        state = self.lr_config["scheduler"].state
        self.seen.append((self.trainer.global_step, optimizer.param_groups[0]["lr"], state.timestamp))

    @property
    def steps(self) -> list[int]:
        return [step for step, _, _ in self.seen]

    @property
    def lrs(self) -> torch.Tensor:
        return torch.tensor([lr for _, lr, _ in self.seen], dtype=torch.float64)


def _loader(samples: int = SAMPLES) -> torch.utils.data.DataLoader:
    generator = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(samples, 3, generator=generator), torch.randn(samples, 1))
    return torch.utils.data.DataLoader(data, batch_size=BATCH_SIZE)


def _fit(module: TinyModule, ckpt_path=None, callbacks=(), loader=None, **trainer_kwargs) -> pl.Trainer:
    settings = dict(
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )
    settings.update(trainer_kwargs)
    trainer = pl.Trainer(callbacks=list(callbacks), **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Lightning's advice about workers, checkpoints and the like
        trainer.fit(module, _loader() if loader is None else loader, ckpt_path=ckpt_path)
    return trainer


def _assert_lrs(module: TinyModule, expected: torch.Tensor) -> None:
    torch.testing.assert_close(module.lrs, BASE_LR * expected, rtol=1e-12, atol=1e-15)


SCHEDULES = {
    "ba": CosineAnnealingWithWarmupScheduler(t_warmup="3ba", t_max="12ba", alpha_f=0.1),
    "dur": CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1),
}


@pytest.mark.parametrize("accumulate", [1, 2])
@pytest.mark.parametrize("unit", SCHEDULES)
def test_each_step_trains_with_the_schedule_at_lightnings_global_step(unit: str, accumulate: int) -> None:
    schedule = SCHEDULES[unit]
    module = TinyModule(schedule)
    trainer = _fit(module, max_steps=12, accumulate_grad_batches=accumulate)
    assert trainer.global_step == 12
    assert module.steps == list(range(12))  # one optimizer step per global step, with either accumulation
    at_step = [schedule(SchedulerState("12ba", Timestamp(batch=step))) for step in module.steps]
    _assert_lrs(module, torch.tensor(at_step, dtype=torch.float64))
    _assert_lrs(module, evaluate_run(schedule, "12ba"))
    assert [timestamp.batch.value for _, _, timestamp in module.seen] == module.steps
    scheduler = trainer.lr_scheduler_configs[0].scheduler
    assert isinstance(scheduler, LightningScheduler) and scheduler.state.max_duration == Time(12, "ba")
    assert scheduler.state.dataloader_len == (9 if accumulate == 1 else 5)
    assert module.lr_config["interval"] == "step" and module.lr_config["frequency"] == 1


def test_epochs_and_accumulation_give_the_steps_per_epoch() -> None:
    schedule = LinearWithWarmupScheduler(t_warmup="1ep", alpha_f=0.0)
    module = TinyModule(schedule)
    trainer = _fit(module, max_epochs=3, accumulate_grad_batches=2)
    state = trainer.lr_scheduler_configs[0].scheduler.state
    assert (state.max_duration, state.dataloader_len) == (Time(3, "ep"), 5)  # ceil(9 / 2): the last step is short
    assert module.steps == list(range(15))
    _assert_lrs(module, evaluate_run(schedule, "3ep", dataloader_len=5))
    epochs = [timestamp.epoch.value for _, _, timestamp in module.seen]
    assert epochs == [0] * 5 + [1] * 5 + [2] * 5
    assert [timestamp.batch_in_epoch.value for _, _, timestamp in module.seen] == list(range(5)) * 3


def test_max_steps_ends_the_run_before_max_epochs() -> None:
    module = TinyModule(CosineAnnealingWithWarmupScheduler(t_warmup="0.5dur"))
    trainer = _fit(module, max_steps=7, max_epochs=5)
    assert trainer.lr_scheduler_configs[0].scheduler.state.max_duration == Time(7, "ba")
    _assert_lrs(module, evaluate_run(module.schedule, "7ba"))


class _Streamed(torch.utils.data.IterableDataset):
    """The items of a dataset, streamed: a loader of it has no ``len()``."""

    def __init__(self, dataset: torch.utils.data.Dataset) -> None:
        self.dataset = dataset

    def __iter__(self):
        return iter(self.dataset)


@pytest.mark.parametrize("sized", [True, False], ids=["len", "no-len"])
def test_the_first_step_of_an_epoch_of_unknown_length_trains_with_its_own_epochs_values(sized: bool) -> None:
    """7 steps a pass, 21 steps: a schedule of the epoch count changes at steps 7 and 14 with or without a length
    (the epoch closes when Lightning begins the next, and the values are written for it before its first step);
    Composer's own Trainer trains each with the value one step later (tests/composer_unsized_reference.py;
    docs/composer-deviations.md, deviation 4). Before the fix, steps 7 and 14 trained with 1.0 and 0.5."""
    generator = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(14, 3, generator=generator), torch.randn(14, 1))
    loader = torch.utils.data.DataLoader(data if sized else _Streamed(data), batch_size=2)
    module = TinyModule(halving_per_epoch)
    trainer = _fit(module, loader=loader, max_steps=RUN_BATCHES)
    assert trainer.lr_scheduler_configs[0].scheduler.state.dataloader_len == (BATCHES_PER_PASS if sized else None)
    assert [timestamp.epoch.value for _, _, timestamp in module.seen] == [0] * 7 + [1] * 7 + [2] * 7
    _assert_lrs(module, torch.tensor([1.0] * 7 + [0.5] * 7 + [0.25] * 7, dtype=torch.float64))
    composer = torch.tensor(COMPOSER_LRS["halving_per_epoch", "per_batch"], dtype=torch.float64)
    torch.testing.assert_close(module.lrs[:-1], BASE_LR * composer[1:], rtol=1e-12, atol=1e-15)


def test_samples_are_counted_per_optimizer_step_over_accumulated_batches() -> None:
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1)
    per_step = torch.tensor([8, 8, 8, 8, 4] * 2 + [8, 8], dtype=torch.float64)  # 12 steps, 88 samples
    module = TinyModule(schedule, max_duration="88sp")
    trainer = _fit(module, max_steps=12, accumulate_grad_batches=2)
    _assert_lrs(module, evaluate_run(schedule, "88sp", samples_per_batch=per_step))
    assert [timestamp.sample.value for _, _, timestamp in module.seen] == [0, *per_step.cumsum(0)[:-1].int().tolist()]
    clocks = [callback for callback in trainer.callbacks if type(callback).__name__ == "CadenceClockCallback"]
    assert len(clocks) == 1 and clocks[0].samples == 88  # attached by lightning_scheduler_config


def test_tokens_need_a_counter_and_then_drive_the_schedule() -> None:
    schedule = LinearWithWarmupScheduler(t_warmup="0.5dur", alpha_f=0.0)
    with pytest.raises(ValueError, match="get_num_tokens"):
        _fit(TinyModule(schedule, max_duration="360tok"), max_steps=9)

    module = TinyModule(schedule, max_duration="360tok", get_num_tokens=lambda batch: 10 * len(batch[0]))
    _fit(module, max_steps=9)
    _assert_lrs(module, evaluate_run(schedule, "360tok", tokens_per_batch=40))


def test_a_callback_given_to_the_trainer_is_used_and_not_duplicated() -> None:
    clock = integration.CadenceClockCallback(get_num_samples=lambda batch: 2 * len(batch[0]))
    schedule = LinearWithWarmupScheduler(t_warmup="0.5dur", alpha_f=0.0)
    module = TinyModule(schedule, max_duration="72sp")
    trainer = _fit(module, callbacks=[clock], max_steps=9)
    assert [callback for callback in trainer.callbacks if isinstance(callback, type(clock))] == [clock]
    assert clock.samples == 72  # the callback's own counter (2 per sample)
    _assert_lrs(module, evaluate_run(schedule, "72sp", samples_per_batch=8))


@pytest.mark.parametrize("resume_at", [3, 5])  # mid-epoch, and the step that ends epoch 0
def test_resuming_from_a_checkpoint_continues_the_steps_and_the_counts(tmp_path, resume_at: int) -> None:
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1)
    per_step = torch.tensor([8, 8, 8, 8, 4] * 2 + [8, 8], dtype=torch.float64)
    saver = pl.callbacks.ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=resume_at, save_top_k=-1)
    full = TinyModule(schedule, max_duration="88sp")
    _fit(full, callbacks=[saver], enable_checkpointing=True, max_steps=12, accumulate_grad_batches=2)
    _assert_lrs(full, evaluate_run(schedule, "88sp", samples_per_batch=per_step))

    (checkpoint,) = tmp_path.glob(f"*step={resume_at}.ckpt")
    saved = torch.load(checkpoint, weights_only=True)["lr_schedulers"][0]["clock"]
    assert (saved["step"], saved["samples"]) == (resume_at, int(per_step[:resume_at].sum()))

    resumed = TinyModule(schedule, max_duration="88sp")
    _fit(resumed, ckpt_path=checkpoint, max_steps=12, accumulate_grad_batches=2)
    assert resumed.steps == list(range(resume_at, 12))
    assert [ts.sample for _, _, ts in resumed.seen] == [ts.sample for _, _, ts in full.seen[resume_at:]]
    torch.testing.assert_close(resumed.lrs, full.lrs[resume_at:], rtol=0, atol=0)


class ManualModule(pl.LightningModule):
    """Manual optimization with one optimizer per schedule (a GAN's layout): each ``training_step`` steps every
    optimizer, then its scheduler, and records (batch index, lr, timestamp) just before each optimizer step.
    ``every[i]``: optimizer ``i`` (and its scheduler) steps only on every ``every[i]``-th batch of the run, the last
    of each ``every[i]`` (a GAN's ratio, or accumulation by hand)."""

    def __init__(self, schedules, configs=None, every=None) -> None:
        super().__init__()
        self.automatic_optimization = False
        self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 1) for _ in schedules)
        self.schedules, self.configs = schedules, configs or [{} for _ in schedules]
        self.every = every or [1 for _ in schedules]
        self.trained = 0  # the batches this module has trained (the run's batch index in a run not resumed)
        self.seen: list[list[tuple[int, float, Timestamp]]] = [[] for _ in schedules]

    def training_step(self, batch, batch_idx):
        x, y = batch
        run_batch, self.trained = self.trained, self.trained + 1
        schedulers = self.lr_schedulers()
        schedulers = schedulers if isinstance(schedulers, list) else [schedulers]
        optimizers = self.optimizers()
        optimizers = optimizers if isinstance(optimizers, list) else [optimizers]
        for index, (optimizer, scheduler) in enumerate(zip(optimizers, schedulers, strict=True)):
            if run_batch % self.every[index] != self.every[index] - 1:
                continue
            loss = torch.nn.functional.mse_loss(self.layers[index](x), y)
            optimizer.zero_grad()
            self.manual_backward(loss)
            self.seen[index].append((batch_idx, optimizer.param_groups[0]["lr"], scheduler.state.timestamp))
            optimizer.step()
            scheduler.step()

    def configure_optimizers(self):
        optimizers = [torch.optim.SGD(layer.parameters(), lr=BASE_LR) for layer in self.layers]
        configs = [
            lightning_scheduler_config(schedule, optimizer, self, **config)
            for schedule, optimizer, config in zip(self.schedules, optimizers, self.configs, strict=True)
        ]
        return optimizers, configs

    def lrs(self, index: int) -> torch.Tensor:
        return torch.tensor([lr for _, lr, _ in self.seen[index]], dtype=torch.float64)


MANUAL = (
    CosineAnnealingWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.1),  # over max_epochs=2: 18 batches
    LinearWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.0),  # over 72 samples
)
MANUAL_CONFIGS = ({}, {"max_duration": "72sp"})


def test_manual_optimization_with_two_optimizers_reads_the_batches_not_their_optimizer_steps() -> None:
    # Lightning's global_step counts both optimizers' steps (36 after 18 batches); each schedule follows batches
    module = ManualModule(MANUAL, MANUAL_CONFIGS)
    trainer = _fit(module, max_epochs=2)
    assert trainer.global_step == 36
    torch.testing.assert_close(module.lrs(0), BASE_LR * evaluate_run(MANUAL[0], "2ep", dataloader_len=9))
    torch.testing.assert_close(module.lrs(1), BASE_LR * evaluate_run(MANUAL[1], "72sp", samples_per_batch=4))
    for seen in module.seen:
        assert [ts.batch.value for _, _, ts in seen] == list(range(18))
        assert [ts.sample.value for _, _, ts in seen] == list(range(0, 72, 4))
        assert [ts.epoch.value for _, _, ts in seen] == [0] * 9 + [1] * 9


@pytest.mark.parametrize("every", [(2, 1), (1, 2)])
def test_manual_optimization_an_optimizer_that_skips_batches_trains_each_with_its_schedule_at_that_batch(every):
    # A 1:2 ratio: one optimizer steps on batches 1, 3, 5, ... and its scheduler only then; it still trains batch k
    # with its schedule at k batches (or k·4 samples), not at the count of its own step() calls.
    schedules = (CosineAnnealingWithWarmupScheduler(t_warmup="4ba", t_max="18ba", alpha_f=0.1), MANUAL[1])
    module = ManualModule(schedules, MANUAL_CONFIGS, every=every)
    _fit(module, max_epochs=2)
    expected = (
        evaluate_run(schedules[0], "2ep", dataloader_len=9),
        evaluate_run(MANUAL[1], "72sp", samples_per_batch=4),
    )
    for index, ratio in enumerate(every):
        batches = list(range(ratio - 1, 18, ratio))
        seen = module.seen[index]
        assert [batch_idx + 9 * ts.epoch.value for batch_idx, _, ts in seen] == batches
        assert [(ts.batch.value, ts.sample.value) for _, _, ts in seen] == [(k, 4 * k) for k in batches]
        torch.testing.assert_close(module.lrs(index), BASE_LR * expected[index][ratio - 1 :: ratio])


@pytest.mark.parametrize("resume_at", [4, 9])  # mid-epoch, and the batch that ends epoch 0 (global_step 8, 18)
def test_manual_optimization_resumes_at_its_batch(tmp_path, resume_at: int) -> None:
    saver = pl.callbacks.ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=2 * resume_at, save_top_k=-1)
    full = ManualModule(MANUAL, MANUAL_CONFIGS)
    _fit(full, callbacks=[saver], enable_checkpointing=True, max_epochs=2)
    (checkpoint,) = tmp_path.glob(f"*step={2 * resume_at}.ckpt")
    resumed = ManualModule(MANUAL, MANUAL_CONFIGS)
    _fit(resumed, ckpt_path=checkpoint, max_epochs=2)
    for index in range(2):
        ran = [ts for _, _, ts in resumed.seen[index]]
        assert ran == [ts for _, _, ts in full.seen[index][-len(ran) :]] and ran[0].batch.value == resume_at
        torch.testing.assert_close(resumed.lrs(index), full.lrs(index)[resume_at:], rtol=0, atol=0)


def test_manual_optimization_takes_max_steps_as_batches_only_while_each_batch_steps_once() -> None:
    one = ManualModule(MANUAL[:1])
    _fit(one, max_steps=12)
    torch.testing.assert_close(one.lrs(0), BASE_LR * evaluate_run(MANUAL[0], "12ba"))
    with pytest.raises(ValueError, match=r"max_steps=12 counts every optimizer.step\(\) \(2 after 1 batches"):
        _fit(ManualModule(MANUAL), max_steps=12)


class _FakeStrategy:
    root_device = torch.device("cpu")

    def __init__(self) -> None:
        self.reduced: list[list[int]] = []

    def reduce(self, tensor: torch.Tensor, reduce_op: str) -> torch.Tensor:
        assert reduce_op == "sum" and tensor.dtype == torch.int64
        self.reduced.append(tensor.tolist())
        return tensor * 2  # a second process that counted the same


class _FakeTrainer:
    world_size = 2
    global_step = 0
    current_epoch = 0

    def __init__(self) -> None:
        self.strategy = _FakeStrategy()


def test_counts_are_summed_over_processes_once_per_optimizer_step() -> None:
    # The real thing (ddp_spawn, 2 CPU processes) gives the same lr on both ranks, but takes ~45 s to start.
    clock = integration.CadenceClockCallback(get_num_tokens=lambda batch: 3 * len(batch[0]))
    clock.count_samples = True
    trainer, batch = _FakeTrainer(), (torch.zeros(4, 3), torch.zeros(4, 1))
    clock.on_train_epoch_start(trainer, None)
    for step in range(1, 4):  # two loader batches an optimizer step
        clock.on_train_batch_start(trainer, None, batch, 0)
        clock.on_train_batch_start(trainer, None, batch, 1)
        trainer.global_step = step
        clock.settle(trainer)  # what the scheduler's step() does
        clock.on_train_batch_end(trainer, None, None, batch, 1)  # settled already: no second reduction
    assert trainer.strategy.reduced == [[8, 24]] * 3
    assert (clock.samples, clock.tokens) == (48, 144)


class TwoKnobs(TinyModule):
    """An lr schedule and a weight-decay schedule on one optimizer (one config each, one shared callback)."""

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=BASE_LR, weight_decay=0.01)
        optimizer.register_step_pre_hook(self._record_both)
        lr = lightning_scheduler_config(self.schedule, optimizer, self, name="lr")
        wd = lightning_scheduler_config(
            LinearScheduler(alpha_i=1.0, alpha_f=0.0),
            optimizer,
            self,
            hyperparameter="weight_decay",
        )
        self.lr_config = lr
        return [optimizer], [lr, wd]

    def _record_both(self, optimizer, args, kwargs) -> None:
        group = optimizer.param_groups[0]
        self.seen.append((self.trainer.global_step, (group["lr"], group["weight_decay"]), None))


def test_several_hyperparameters_each_follow_their_schedule() -> None:
    schedule = SCHEDULES["dur"]
    module = TwoKnobs(schedule)
    trainer = _fit(module, max_steps=10)
    lrs, wds = zip(*[values for _, values, _ in module.seen], strict=True)
    torch.testing.assert_close(torch.tensor(lrs, dtype=torch.float64), BASE_LR * evaluate_run(schedule, "10ba"))
    linear = LinearScheduler(alpha_i=1.0, alpha_f=0.0)
    torch.testing.assert_close(torch.tensor(wds, dtype=torch.float64), 0.01 * evaluate_run(linear, "10ba"))
    assert [config.name for config in trainer.lr_scheduler_configs] == ["lr", None]
    assert sum(type(callback).__name__ == "CadenceClockCallback" for callback in trainer.callbacks) == 1


def test_the_callback_pickles_and_belongs_to_the_installed_lightning() -> None:
    clock = integration.CadenceClockCallback(get_num_tokens=len)
    clock.samples = 5
    copy = pickle.loads(pickle.dumps(clock))  # ddp_spawn pickles the Trainer's callbacks
    assert type(copy) is type(clock) and copy.samples == 5 and copy.get_num_tokens is len
    assert isinstance(clock, pl.Callback) and type(clock).__name__ == "CadenceClockCallback"
    assert clock.state_key == "CadenceClockCallback"


def test_a_per_epoch_interval_is_an_error() -> None:
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="interval='step'"):
        lightning_scheduler_config(SCHEDULES["dur"], optimizer, object(), interval="epoch")


def test_it_needs_a_trainer_or_an_attached_module() -> None:
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(TypeError, match="configure_optimizers"):
        lightning_scheduler_config(SCHEDULES["dur"], optimizer, TinyModule(SCHEDULES["dur"]))


def test_a_run_without_length_is_an_error() -> None:
    module = TinyModule(SCHEDULES["dur"])
    with pytest.raises(ValueError, match="no length"):
        _fit(module, max_steps=-1, max_epochs=-1)


def test_a_missing_lightning_is_an_import_error_naming_the_package(monkeypatch) -> None:
    for name in ("lightning", "lightning.pytorch", "pytorch_lightning"):
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    with pytest.raises(ImportError, match="pip install pytorch_lightning"):
        integration._import_lightning()


def test_the_module_imports_without_importing_lightning() -> None:
    code = (
        "import sys, schedulers.integrations.lightning\n"
        "assert not {'lightning', 'pytorch_lightning'} & set(sys.modules), sorted(sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, cwd=root, env=env)


def test_lightning_moves_its_clock_through_the_shared_adapter_with_counts_and_the_epoch_rule(monkeypatch) -> None:
    # 9 loader batches of 4 an epoch, 2 per optimizer step: 5 steps, the last one of 4 samples (12 tokens)
    from schedulers.core.clock import Clock
    from schedulers.integrations.framework import FrameworkClock

    calls: list[tuple[int, int, int]] = []
    original = FrameworkClock.optimizer_step

    def spy(self, batches: int, samples: int = 0, tokens: int = 0) -> None:
        if batches != self.clock.batches:  # a move (at every batch's start the adapter is asked, a no-op here)
            calls.append((batches, samples, tokens))
        original(self, batches, samples, tokens)

    monkeypatch.setattr(FrameworkClock, "optimizer_step", spy)
    module = TinyModule(
        LinearWithWarmupScheduler(t_warmup="0.25dur", alpha_f=0.0),
        max_duration="72sp",
        get_num_tokens=lambda batch: 3 * len(batch[0]),
    )
    trainer = _fit(module, max_epochs=2, accumulate_grad_batches=2)
    state = trainer.lr_scheduler_configs[0].scheduler.state
    assert isinstance(state, Clock)
    per_step = [8, 8, 8, 8, 4]
    assert calls == [(step, samples, 3 * samples) for step, samples in enumerate(per_step * 2, start=1)]
    # what each optimizer step trained with: the step that completes epoch 0 (the 5th) closed it
    seen = [
        (
            ts.epoch.value,
            ts.batch.value,
            ts.batch_in_epoch.value,
            ts.sample.value,
            ts.sample_in_epoch.value,
            ts.token_in_epoch.value,
        )
        for _, _, ts in module.seen
    ]
    assert seen[3:7] == [(0, 3, 3, 24, 24, 72), (0, 4, 4, 32, 32, 96), (1, 5, 0, 36, 0, 0), (1, 6, 1, 44, 8, 24)]
    assert (state.epochs, state.batches, state.samples, state.tokens, state.batch_in_epoch) == (2, 10, 72, 216, 0)
    per_batch = torch.tensor(per_step * 2, dtype=torch.float64)
    _assert_lrs(module, evaluate_run(module.schedule, "72sp", samples_per_batch=per_batch))
