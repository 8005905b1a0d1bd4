"""Trainer stepping semantics: which α each batch trains with, when schedulers step, how entries combine,
grad_accum, scale_schedule_ratio, where a run stops, and when evaluations and checkpoints happen.

The rules are in docs/trainer.md, docs/stepping.md, docs/hyperparameters.md and docs/composer-deviations.md
(deviation 4). The lr a batch *trains* with is read in an ``optimizer.register_step_pre_hook`` (the value
``optimizer.step()`` uses), together with the trainer's timestamp at that moment (the counts before the batch).
"""

from __future__ import annotations

import math
import os
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import ExponentialLR, LRScheduler, MultiStepLR, StepLR

import schedulers.cerebras as cerebras
from schedulers import (
    ConstantWithWarmupScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWithWarmupScheduler,
    ExponentialScheduler,
    LinearScheduler,
    MultiStepScheduler,
    SchedulerState,
    Sequence,
    StepScheduler,
    compile_scheduler,
)
from schedulers.core.run import scale_max_duration
from schedulers.sambaflow import cosine_schedule_with_warmup
from timeunits import Time, Timestamp
from trainer import Callback, LRMonitor, Trainer

# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------


def batches(n: int, batch_size: int | list[int] = 4, features: int = 3, seed: int = 0) -> list:
    """``n`` regression batches ``(x, y)``; ``batch_size`` may be a list of sizes (variable batches)."""
    generator = torch.Generator().manual_seed(seed)
    sizes = batch_size if isinstance(batch_size, list) else [batch_size] * n
    return [(torch.randn(s, features, generator=generator), torch.randn(s, 1, generator=generator)) for s in sizes]


def linear_model(features: int = 3, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Linear(features, 1)


def make_trainer(
    data=None,
    max_duration="10ba",
    *,
    model=None,
    lr=1.0,
    optimizer=None,
    **kwargs,
) -> Trainer:
    model = linear_model() if model is None else model
    data = batches(5) if data is None else data
    if optimizer is None:
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    kwargs.setdefault("loss_fn", F.mse_loss)
    kwargs.setdefault("progress_bar", False)
    return Trainer(model, data, max_duration, optimizer, **kwargs)


class StepRecorder:
    """What every ``optimizer.step()`` trains with: the timestamp before the batch and each group's values."""

    def __init__(self, trainer: Trainer, keys=("lr",)) -> None:
        self.trainer = trainer
        self.keys = keys
        self.timestamps: list[Timestamp] = []
        self.values: list[list[dict[str, float]]] = []
        trainer.optimizer.register_step_pre_hook(self._hook)

    def _hook(self, optimizer, args, kwargs) -> None:
        self.timestamps.append(self.trainer.state.timestamp)
        self.values.append([{k: float(g[k]) for k in self.keys if k in g} for g in optimizer.param_groups])

    def series(self, key: str = "lr", group: int = 0) -> list[float]:
        return [row[group][key] for row in self.values]

    def batch_counts(self) -> list[int]:
        return [ts.batch.value for ts in self.timestamps]


class Events(Callback):
    """The batch count (and path or metrics) at every on_eval / on_checkpoint / on_epoch_end."""

    def __init__(self) -> None:
        self.evals: list[int] = []
        self.metrics: list[dict] = []
        self.checkpoints: list[tuple[int, str]] = []
        self.epoch_ends: list[int] = []

    def on_eval(self, trainer, metrics):
        self.evals.append(trainer.state.timestamp.batch.value)
        self.metrics.append(dict(metrics))

    def on_checkpoint(self, trainer, path):
        self.checkpoints.append((trainer.state.timestamp.batch.value, os.fspath(path)))

    def on_epoch_end(self, trainer):
        self.epoch_ends.append(trainer.state.timestamp.batch.value)


def alpha_at(schedule, trainer: Trainer, timestamp: Timestamp, ssr: float = 1.0) -> float:
    """The schedule evaluated outside the trainer at ``timestamp`` of the trainer's (scaled) run."""
    state = SchedulerState(trainer.state.max_duration, timestamp, trainer.state.dataloader_len)
    return schedule(state, ssr)


# --------------------------------------------------------------------------------------------------
# batch k trains with α(k)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schedule, max_duration, per_epoch",
    [
        (LinearScheduler(), "10ba", 5),
        (CosineAnnealingWithWarmupScheduler(t_warmup="3ba", alpha_f=0.1), "3ep", 4),
        (StepScheduler(step_size="2ba", gamma=0.5), "2ep", 3),
        (MultiStepScheduler(milestones=["1ep", "7ba"], gamma=0.5), "3ep", 4),
    ],
    ids=["linear", "cosine-warmup", "step", "multistep-ep"],
)
def test_batch_k_trains_with_alpha_at_k(schedule, max_duration, per_epoch):
    """Deviation 4: batch k (0-based) trains with α evaluated at the timestamp before it (Composer: α(k−1))."""
    monitor = LRMonitor()
    trainer = make_trainer(batches(per_epoch), max_duration, lr=0.1, schedulers=schedule, callbacks=[monitor])
    recorder = StepRecorder(trainer)
    trainer.fit()
    n = len(recorder.timestamps)
    assert recorder.batch_counts() == list(range(n))
    expected = [0.1 * alpha_at(schedule, trainer, ts) for ts in recorder.timestamps]
    assert recorder.series() == expected
    assert monitor.values("lr") == expected  # on_batch_start sees the value the step uses


def test_first_batch_trains_with_alpha_zero_and_last_with_alpha_n_minus_1():
    """Closed form, no schedule re-evaluation: LinearScheduler over 10ba → batch k trains with 1 − k/10."""
    trainer = make_trainer(batches(4), "10ba", schedulers=LinearScheduler())
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([1 - k / 10 for k in range(10)], abs=1e-15)
    assert recorder.series()[0] == 1.0
    # after the run the lr is α(10) = 0: the schedulers stepped once more after the last batch
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.0, abs=1e-15)


def test_warmup_batch_zero_trains_with_zero_lr():
    trainer = make_trainer(batches(4), "20ba", schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="4ba"))
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series()[:5] == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0], abs=1e-15)


# --------------------------------------------------------------------------------------------------
# per-batch vs per-epoch stepping (docs/stepping.md)
# --------------------------------------------------------------------------------------------------


def test_cadence_schedule_steps_per_batch_by_default_even_with_epoch_times():
    schedule = LinearScheduler(t_max="2ep")
    trainer = make_trainer(batches(4), "2ep", schedulers=schedule)
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([1 - k / 8 for k in range(8)], abs=1e-15)
    assert len(trainer.scheduled.per_batch) == 1 and trainer.scheduled.per_epoch == []


def test_torch_steplr_steps_per_epoch_by_default():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    trainer = make_trainer(batches(3), "6ep", model=model, optimizer=optimizer, schedulers=StepLR(optimizer, 2, 0.5))
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == [0.5 ** ((k // 3) // 2) for k in range(18)]
    assert trainer.scheduled.per_epoch and not trainer.scheduled.per_batch


def test_torch_steplr_explicit_false_steps_per_epoch():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    trainer = make_trainer(
        batches(3),
        "4ep",
        model=model,
        optimizer=optimizer,
        schedulers=StepLR(optimizer, 1, 0.5),
        step_schedulers_every_batch=False,
    )
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == [0.5 ** (k // 3) for k in range(12)]


def test_torch_steplr_steps_per_batch_when_asked():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    trainer = make_trainer(
        batches(3),
        "2ep",
        model=model,
        optimizer=optimizer,
        schedulers=StepLR(optimizer, 2, 0.5),
        step_schedulers_every_batch=True,
    )
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == [0.5 ** (k // 2) for k in range(6)]


def test_user_steplr_steps_without_torch_order_warning():
    """The trainer steps the optimizer before the scheduler: torch's 'lr_scheduler.step() before
    optimizer.step()' warning must not appear."""
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    trainer = make_trainer(
        batches(3),
        "2ep",
        model=model,
        optimizer=optimizer,
        schedulers=StepLR(optimizer, 2, 0.5),
        step_schedulers_every_batch=True,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.fit()
    assert not [w for w in caught if "lr_scheduler.step()" in str(w.message)]


def _composer_staircase(per_epoch: list[float], dataloader_len: int) -> list[float]:
    """Composer's per-epoch stepping: every batch of epoch ``e`` trains with α at the start of epoch ``e``."""
    return [alpha for alpha in per_epoch for _ in range(dataloader_len)]


def test_false_holds_each_cadence_schedule_for_the_epoch_like_composer():
    """docs/stepping.md: step_schedulers_every_batch=False evaluates a Cadence schedule at each
    epoch boundary and holds it for the epoch, for every hyperparameter it drives. Composer's values by hand:
    MultiStepScheduler(['0.4dur', '0.8dur'], gamma=0.5) over 5ep resolves its milestones to 2ep and 4ep, and
    at the start of epoch e the factor is 0.5 ** #{m <= e}; LinearScheduler(1, 0) over 5ep is 1 - e/5 there."""
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=0.01)
    trainer = make_trainer(
        batches(3),
        "5ep",
        model=model,
        optimizer=optimizer,
        schedulers=[
            MultiStepScheduler(["0.4dur", "0.8dur"], gamma=0.5),
            {"schedule": LinearScheduler(1.0, 0.0), "hyperparameter": "weight_decay"},
        ],
        step_schedulers_every_batch=False,
    )
    recorder = StepRecorder(trainer, keys=("lr", "weight_decay"))
    trainer.fit()
    composer_lr = [0.1 * 0.5 ** sum(m <= e for m in (2, 4)) for e in range(5)]
    composer_wd = [0.01 * (1 - e / 5) for e in range(5)]
    assert recorder.series("lr") == pytest.approx(_composer_staircase(composer_lr, 3), abs=1e-15)
    assert recorder.series("weight_decay") == pytest.approx(_composer_staircase(composer_wd, 3), abs=1e-15)
    # never a silent per-batch stepping: within each epoch the value does not move
    assert all(len(set(recorder.series("weight_decay")[3 * e : 3 * e + 3])) == 1 for e in range(5))


@pytest.mark.parametrize(
    "entry",
    [LinearScheduler(), lambda state, ssr=1.0: 1.0 - state.timestamp.batch.value / 6, "compiled", "dict"],
    ids=["schedule", "state-ssr-callable", "user-compiled", "dict"],
)
def test_false_holds_every_kind_of_cadence_entry(entry):
    """A schedule, a (state, ssr) callable, a dict entry, and a scheduler the user compiled: all held per epoch."""
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    if entry == "compiled":
        entry = compile_scheduler(LinearScheduler(), optimizer, SchedulerState("10ba"))
    elif entry == "dict":
        entry = {"schedule": LinearScheduler(), "hyperparameter": "lr"}
    trainer = make_trainer(
        batches(2), "3ep", model=model, optimizer=optimizer, schedulers=entry, step_schedulers_every_batch=False
    )
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx(_composer_staircase([1.0, 2 / 3, 1 / 3], 2), abs=1e-12)


def test_false_staircase_survives_a_mid_epoch_resume(tmp_path):
    """Resumed mid-epoch, a held schedule still trains with the value of the epoch's start."""

    def run(**kwargs):
        model = linear_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
        return make_trainer(
            batches(4),
            "3ep",
            model=model,
            optimizer=optimizer,
            schedulers=LinearScheduler(),
            step_schedulers_every_batch=False,
            **kwargs,
        )

    first = run(save_folder=tmp_path, save_interval="6ba")
    first.fit(duration="6ba")  # stops in the middle of the second epoch
    resumed = run(load_path=tmp_path)
    recorder = StepRecorder(resumed)
    resumed.fit()
    assert recorder.series() == pytest.approx([2 / 3, 2 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3], abs=1e-12)


def _moved_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if "acts only where the next epoch starts" in str(w.message)]


def _per_epoch(per_epoch: int, max_duration: str, schedulers, **kwargs) -> tuple[Trainer, list]:
    """A trainer stepping per epoch over ``per_epoch`` batches an epoch, and the warnings its construction gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = make_trainer(
            batches(per_epoch), max_duration, schedulers=schedulers, step_schedulers_every_batch=False, **kwargs
        )
    return trainer, caught


def test_false_says_once_where_each_milestone_inside_an_epoch_acts():
    """Issue 38: per epoch, t_warmup='5ba' holds α(0) = 0 for the whole first epoch and StepScheduler('15ba') decays at
    batch 20; one warning at construction names each milestone and where it acts, and the run does what it says."""
    trainer, caught = _per_epoch(10, "3ep", [ConstantWithWarmupScheduler("5ba"), StepScheduler("15ba", gamma=0.29)])
    (said,) = _moved_warnings(caught)
    assert "schedulers[0] t_warmup=5ba acts at 10ba, not at 5ba" in said
    assert "schedulers[1] step_size=15ba acts at 20ba, not at 15ba" in said
    assert said.startswith("step_schedulers_every_batch=False: ") and "every 10 batches" in said and "\n" not in said
    (warning,) = [w for w in caught if str(w.message) == said]
    assert warning.category is UserWarning and warning.filename == __file__  # the user's line (make_trainer's)
    recorder = StepRecorder(trainer)
    with warnings.catch_warnings(record=True) as during_fit:
        warnings.simplefilter("always")
        trainer.fit()
    assert _moved_warnings(during_fit) == []  # once, at the start
    assert recorder.series() == pytest.approx([0.0] * 10 + [1.0] * 10 + [0.29] * 10, abs=1e-15)


@pytest.mark.parametrize(
    "schedule, every_batch",
    [
        (ConstantWithWarmupScheduler("1ep"), False),  # on the boundary
        (MultiStepScheduler(["0.4dur", "0.8dur"], gamma=0.5), False),  # 2ep and 4ep
        (StepScheduler("10ba"), False),
        (CosineAnnealingScheduler(), False),  # a curve with no milestone inside the run
        (ExponentialScheduler(0.5, decay_period="7ba"), False),  # a smooth decay: nothing acts at 7ba
        (ConstantWithWarmupScheduler("5ba"), None),  # per batch: it acts where it is
        (StepScheduler("15ba"), True),
    ],
    ids=["warmup-1ep", "multistep-dur", "step-10ba", "cosine", "exponential", "per-batch", "true"],
)
def test_no_word_where_no_milestone_moves(schedule, every_batch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_trainer(batches(10), "5ep", schedulers=schedule, step_schedulers_every_batch=every_batch).fit()
    assert _moved_warnings(caught) == []


def test_false_says_where_a_milestone_moved_by_the_ratio_acts():
    # 1ep scaled by ssr 0.5 is 5ba: inside the first epoch of 10 batches; a compiled scheduler is read the same way
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    compiled = compile_scheduler(StepScheduler("1ep"), optimizer, SchedulerState("4ep", dataloader_len=10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_trainer(
            batches(10),
            "4ep",
            model=model,
            optimizer=optimizer,
            schedulers=compiled,
            step_schedulers_every_batch=False,
            scale_schedule_ratio=0.5,
        )
    (said,) = _moved_warnings(caught)
    assert "schedulers[0] step_size=5ba acts at 10ba, not at 5ba" in said


def test_false_says_where_a_sequence_childs_milestone_acts_in_the_whole_run():
    # the child's step_size=5ba counts from its segment's start, 10ba: it decays at 15ba, read per epoch at 20ba
    # (where the second decay, at 20ba, is on the boundary: both are read there)
    schedule = Sequence([ConstantWithWarmupScheduler("0ba"), StepScheduler("5ba", gamma=0.29)], ["10ba"])
    trainer, caught = _per_epoch(10, "3ep", schedule)
    (said,) = _moved_warnings(caught)
    assert "schedulers[0] schedules[1].step_size=5ba of its segment, at 15ba of the run, acts at 20ba" in said
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([1.0] * 20 + [0.29**2] * 10, abs=1e-15)


def test_a_preview_of_a_per_epoch_run_is_its_staircase_and_says_nothing_more():
    trainer, caught = _per_epoch(4, "3ep", StepScheduler("6ba", gamma=0.29))
    monitor = LRMonitor()
    with warnings.catch_warnings(record=True) as during_preview:
        warnings.simplefilter("always")
        trainer.preview([monitor])
    assert _moved_warnings(during_preview) == []
    (said,) = _moved_warnings(caught)
    assert "step_size=6ba acts at 8ba" in said
    assert monitor.values("lr") == pytest.approx([1.0] * 8 + [0.29] * 4, abs=1e-15)


def test_cerebras_scheduler_steps_per_batch_and_refuses_false():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = cerebras.LinearLR(optimizer, initial_learning_rate=1.0, end_learning_rate=0.0, total_iters=8)
    trainer = make_trainer(batches(4), "2ep", model=model, optimizer=optimizer, schedulers=scheduler)
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([1 - k / 8 for k in range(8)], abs=1e-12)

    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = cerebras.LinearLR(optimizer, initial_learning_rate=1.0, end_learning_rate=0.0, total_iters=8)
    with pytest.raises(ValueError, match="step_schedulers_every_batch"):
        make_trainer(model=model, optimizer=optimizer, schedulers=scheduler, step_schedulers_every_batch=False)


def test_sambaflow_scheduler_steps_per_batch_and_refuses_false():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = cosine_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=8)
    multiplier = scheduler.lr_lambdas[0]
    trainer = make_trainer(batches(4), "2ep", model=model, optimizer=optimizer, schedulers=scheduler)
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([multiplier(k) for k in range(8)], abs=1e-12)

    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = cosine_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=8)
    with pytest.raises(ValueError, match="step_schedulers_every_batch"):
        make_trainer(model=model, optimizer=optimizer, schedulers=scheduler, step_schedulers_every_batch=False)


def test_per_epoch_torch_scheduler_with_loader_without_length():
    """Epochs end when an unsized loader runs out; per-epoch schedulers step there."""
    data = batches(3)

    class NoLen:
        def __iter__(self):
            return iter(data)

    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    trainer = make_trainer(NoLen(), "3ep", model=model, optimizer=optimizer, schedulers=StepLR(optimizer, 1, 0.5))
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == [0.5 ** (k // 3) for k in range(9)]
    assert trainer.state.timestamp.epoch.value == 3


def test_user_compiled_scheduler_follows_the_trainers_clock():
    """A compile_scheduler result is a valid entry that steps per batch (docs/stepping.md). The user cannot
    compile against the trainer's state (it does not exist yet), so the trainer must drive it by its own
    clock — or refuse it at construction with a ValueError naming the entry. A silently frozen lr (the
    scheduler keeps reading the user's never-advanced SchedulerState) is neither."""
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    compiled = compile_scheduler(LinearScheduler(), optimizer, SchedulerState("10ba"))
    try:
        trainer = make_trainer(batches(5), "10ba", model=model, optimizer=optimizer, schedulers=compiled)
    except ValueError as error:
        assert "schedulers[0]" in str(error)
        return
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([1 - k / 10 for k in range(10)], abs=1e-15)


def test_cadence_schedule_scales_every_param_group_from_its_own_base():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(
        [{"params": model[0].parameters(), "lr": 0.4}, {"params": model[1].parameters(), "lr": 0.02}], lr=1.0
    )
    trainer = make_trainer(batches(4), "8ba", model=model, optimizer=optimizer, schedulers=LinearScheduler())
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series("lr", 0) == pytest.approx([0.4 * (1 - k / 8) for k in range(8)], abs=1e-15)
    assert recorder.series("lr", 1) == pytest.approx([0.02 * (1 - k / 8) for k in range(8)], abs=1e-15)


# --------------------------------------------------------------------------------------------------
# combining entries (docs/trainer.md, docs/hyperparameters.md)
# --------------------------------------------------------------------------------------------------


def test_two_cadence_schedules_on_lr_multiply():
    linear, step = LinearScheduler(), StepScheduler(step_size="3ba", gamma=0.5)
    trainer = make_trainer(batches(4), "10ba", lr=0.5, schedulers=[linear, step])
    recorder = StepRecorder(trainer)
    trainer.fit()
    expected = [0.5 * (alpha_at(linear, trainer, ts) * alpha_at(step, trainer, ts)) for ts in recorder.timestamps]
    assert recorder.series() == pytest.approx(expected, rel=1e-15, abs=0)
    closed = [0.5 * (1 - k / 10) * 0.5 ** (k // 3) for k in range(10)]
    assert recorder.series() == pytest.approx(closed, rel=1e-12, abs=1e-15)
    # one writer per key: the base is kept once, never applied twice
    assert trainer.optimizer.param_groups[0]["initial_lr"] == 0.5


def test_three_cadence_entries_multiply_including_dict_entry():
    entries = [
        LinearScheduler(),
        {"schedule": StepScheduler(step_size="5ba", gamma=0.5)},
        lambda state, ssr=1.0: 0.5,
    ]
    trainer = make_trainer(batches(4), "10ba", schedulers=entries)
    recorder = StepRecorder(trainer)
    trainer.fit()
    closed = [(1 - k / 10) * 0.5 ** (k // 5) * 0.5 for k in range(10)]
    assert recorder.series() == pytest.approx(closed, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("order", ["torch-first", "cadence-first"])
def test_torch_scheduler_and_cadence_schedule_on_lr_is_value_error_naming_both(order):
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    entries = [StepLR(optimizer, 2), LinearScheduler()]
    if order == "cadence-first":
        entries.reverse()
    torch_index = entries.index(next(e for e in entries if isinstance(e, LRScheduler)))
    with pytest.raises(ValueError) as error:
        make_trainer(model=model, optimizer=optimizer, schedulers=entries)
    message = str(error.value)
    assert f"schedulers[{torch_index}]" in message and "StepLR" in message
    assert f"schedulers[{1 - torch_index}]" in message
    assert "'lr'" in message


def test_two_torch_schedulers_on_lr_is_value_error():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    with pytest.raises(ValueError, match=r"schedulers\[0\].*schedulers\[1\]"):
        make_trainer(model=model, optimizer=optimizer, schedulers=[StepLR(optimizer, 2), ExponentialLR(optimizer, 0.9)])


def test_cerebras_scheduler_and_cadence_schedule_on_lr_is_value_error():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = cerebras.LinearLR(optimizer, initial_learning_rate=1.0, end_learning_rate=0.0, total_iters=8)
    with pytest.raises(ValueError, match=r"schedulers\[0\].*schedulers\[1\]"):
        make_trainer(model=model, optimizer=optimizer, schedulers=[scheduler, LinearScheduler()])


def test_weight_decay_schedule_via_dict_entry():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, weight_decay=0.2)
    schedule = LinearScheduler()
    trainer = make_trainer(
        batches(4),
        "8ba",
        model=model,
        optimizer=optimizer,
        schedulers={"schedule": schedule, "hyperparameter": "weight_decay"},
    )
    recorder = StepRecorder(trainer, keys=("lr", "weight_decay"))
    trainer.fit()
    assert recorder.series("weight_decay") == [0.2 * alpha_at(schedule, trainer, ts) for ts in recorder.timestamps]
    assert recorder.series("weight_decay")[:3] == pytest.approx([0.2, 0.175, 0.15], abs=1e-15)
    assert recorder.series("lr") == [0.5] * 8  # lr untouched
    assert trainer.optimizer.param_groups[0]["initial_weight_decay"] == 0.2
    assert trainer.scheduled_keys == ["weight_decay"]


def test_lr_and_weight_decay_schedules_together_and_param_group_tags():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(
        [
            {"params": model[0].parameters(), "tags": "decay", "weight_decay": 0.1},
            {"params": model[1].parameters(), "weight_decay": 0.3},
        ],
        lr=1.0,
    )
    entries = [
        StepScheduler(step_size="2ba", gamma=0.5),
        {"schedule": LinearScheduler(), "hyperparameter": "weight_decay", "param_group_tags": "decay"},
    ]
    trainer = make_trainer(batches(4), "8ba", model=model, optimizer=optimizer, schedulers=entries)
    recorder = StepRecorder(trainer, keys=("lr", "weight_decay"))
    trainer.fit()
    for group in (0, 1):
        assert recorder.series("lr", group) == [0.5 ** (k // 2) for k in range(8)]
    assert recorder.series("weight_decay", 0) == pytest.approx([0.1 * (1 - k / 8) for k in range(8)], abs=1e-15)
    assert recorder.series("weight_decay", 1) == [0.3] * 8
    assert trainer.scheduled_keys == ["lr", "weight_decay"]


# --------------------------------------------------------------------------------------------------
# factories (docs/trainer.md)
# --------------------------------------------------------------------------------------------------


def test_factory_callable_builds_torch_scheduler_per_epoch_by_default():
    trainer = make_trainer(batches(2), "6ep", schedulers=lambda opt: StepLR(opt, 3))
    assert isinstance(trainer.schedulers[0], StepLR) and trainer.schedulers[0].optimizer is trainer.optimizer
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([0.1 ** ((k // 2) // 3) for k in range(12)], rel=1e-12)


def test_factory_callable_per_batch_when_asked():
    trainer = make_trainer(batches(2), "7ba", schedulers=[lambda opt: StepLR(opt, 3)], step_schedulers_every_batch=True)
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([0.1 ** (k // 3) for k in range(7)], rel=1e-12)


def test_factory_returning_cerebras_scheduler_steps_per_batch():
    trainer = make_trainer(batches(4), "8ba", schedulers=lambda opt: cerebras.LinearLR(opt, 1.0, 0.0, total_iters=8))
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([1 - k / 8 for k in range(8)], abs=1e-12)


def test_optimizer_factory_callable():
    trainer = make_trainer(
        batches(4),
        "4ba",
        optimizer=lambda model: torch.optim.SGD(model.parameters(), lr=0.3),
        schedulers=LinearScheduler(),
    )
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == pytest.approx([0.3 * (1 - k / 4) for k in range(4)], abs=1e-15)


@pytest.mark.parametrize(
    "bad", [lambda opt: 0.5, lambda opt: None, lambda state: 1.0], ids=["float", "none", "state-fn"]
)
def test_one_parameter_callable_returning_non_scheduler_is_type_error_naming_index(bad):
    with pytest.raises(TypeError, match=r"schedulers\[1\]"):
        make_trainer(schedulers=[LinearScheduler(), bad])


def test_factory_building_on_another_optimizer_is_value_error():
    other = torch.optim.SGD(linear_model().parameters(), lr=1.0)
    with pytest.raises(ValueError, match=r"schedulers\[0\]"):
        make_trainer(schedulers=[lambda opt: StepLR(other, 3)])


# --------------------------------------------------------------------------------------------------
# grad_accum (docs/trainer.md)
# --------------------------------------------------------------------------------------------------


def hand_loop(model, data, n, epochs, base_lr, alphas, momentum=0.9):
    """n items per step, each loss divided by n; leftovers of an epoch dropped; lr = base · α(k)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=momentum)
    steps_per_epoch = len(data) // n
    k = 0
    for _ in range(epochs):
        for step in range(steps_per_epoch):
            optimizer.param_groups[0]["lr"] = base_lr * alphas[k]
            for x, y in data[step * n : (step + 1) * n]:
                loss = F.mse_loss(model(x), y)
                (loss / n).backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            k += 1
    return model


@pytest.mark.parametrize("n, items", [(2, 8), (3, 9), (1, 5)])
def test_grad_accum_matches_hand_loop_bit_for_bit(n, items):
    data = batches(items, batch_size=3)
    model = linear_model()
    reference = linear_model()
    reference.load_state_dict(model.state_dict())
    trainer = make_trainer(
        data,
        "2ep",
        model=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
        schedulers=LinearScheduler(),
        grad_accum=n,
    )
    recorder = StepRecorder(trainer)
    trainer.fit()
    steps = 2 * (items // n)
    assert trainer.state.dataloader_len == items // n
    assert trainer.state.timestamp.batch.value == steps
    alphas = [r[0]["lr"] / 0.1 for r in recorder.values]
    assert alphas == pytest.approx([1 - k / steps for k in range(steps)], abs=1e-15)
    hand_loop(reference, data, n, 2, 0.1, [1 - k / steps for k in range(steps)])
    for (name, got), want in zip(model.state_dict().items(), reference.state_dict().values(), strict=True):
        assert torch.equal(got, want), name


def test_grad_accum_sums_samples_and_tokens_over_items():
    sizes = [2, 3, 4, 5, 1, 6]
    data = batches(6, batch_size=sizes)
    trainer = make_trainer(data, "1ep", grad_accum=2, get_num_tokens=lambda item: 10 * item[0].shape[0])
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert [ts.sample.value for ts in recorder.timestamps] == [0, 5, 14]
    assert [ts.token.value for ts in recorder.timestamps] == [0, 50, 140]
    ts = trainer.state.timestamp
    assert (ts.batch.value, ts.sample.value, ts.token.value, ts.epoch.value) == (3, 21, 210, 1)


def test_grad_accum_loss_reported_is_sum_of_divided_micro_losses():
    data = batches(4, batch_size=3)
    losses = []

    class Losses(Callback):
        def on_batch_end(self, trainer, loss):
            losses.append(loss)

    model = linear_model()
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    trainer = make_trainer(data, "1ba", model=model, grad_accum=4, callbacks=[Losses()])
    trainer.fit()
    reference = linear_model()
    reference.load_state_dict(weights)
    with torch.no_grad():
        expected = sum(float(F.mse_loss(reference(x), y) / 4) for x, y in data)
    assert losses == [pytest.approx(expected, rel=1e-6)]


def test_grad_accum_leftovers_dropped_with_one_warning():
    data = batches(9, batch_size=2)
    seen = []

    def count(item):
        seen.append(next(i for i, d in enumerate(data) if d[0] is item[0]))
        return item[0].shape[0]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = make_trainer(data, "2ep", grad_accum=2, get_num_samples=count)
        trainer.fit()
    leftover = [w for w in caught if issubclass(w.category, UserWarning) and "grad_accum" in str(w.message)]
    assert len(leftover) == 1, [str(w.message) for w in caught]
    assert trainer.state.dataloader_len == 4
    assert seen == list(range(8)) * 2  # item 8 is never trained on
    ts = trainer.state.timestamp
    assert (ts.batch.value, ts.epoch.value, ts.sample.value) == (8, 2, 32)


def test_grad_accum_with_an_odd_loader_closes_every_epoch_whole_in_silence():
    # 11 items, grad_accum=3: 3 steps an epoch (the leftovers dropped with their own warning). Each epoch closes by
    # the clock's rule at its 3rd step, so the clock never sees one closed short of dataloader_len (a dataloader_len
    # of ceil(11 / 3) would: the loader would run out after 3 steps, and the clock would say so).
    data = batches(11, batch_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = make_trainer(data, "3ep", grad_accum=3)
        trainer.fit()
    assert not [str(w.message) for w in caught if "an epoch closed after" in str(w.message)]
    ts = trainer.state.timestamp
    assert (trainer.state.dataloader_len, ts.batch.value, ts.epoch.value, ts.batch_in_epoch.value) == (3, 9, 3, 0)


def test_grad_accum_larger_than_loader_is_value_error():
    with pytest.raises(ValueError, match="grad_accum"):
        make_trainer(batches(3), grad_accum=4)


# --------------------------------------------------------------------------------------------------
# scale_schedule_ratio (deviation 4, docs/trainer.md)
# --------------------------------------------------------------------------------------------------


def test_ssr_max_duration_in_epochs_becomes_exact_batches():
    data = batches(100, batch_size=1, features=1)
    trainer = make_trainer(data, "3ep", model=linear_model(1), lr=0.01, scale_schedule_ratio=0.75)
    assert trainer.state.max_duration == Time(225, "ba")
    assert trainer.state.max_duration.unit == "ba"
    assert trainer.state.unscaled_max_duration == Time(3, "ep")
    trainer.fit()
    ts = trainer.state.timestamp
    assert (ts.batch.value, ts.epoch.value, ts.batch_in_epoch.value) == (225, 2, 25)


@pytest.mark.parametrize(
    "max_duration, ssr, expected", [("10ba", 0.5, "5ba"), ("100sp", 0.75, "75sp"), ("7ba", 1.0, "7ba")]
)
def test_ssr_scales_other_units(max_duration, ssr, expected):
    trainer = make_trainer(batches(4), max_duration, scale_schedule_ratio=ssr)
    assert trainer.state.max_duration == Time.from_timestring(expected)


@pytest.mark.parametrize("ssr", [0.5, 0.75, 1.0])
def test_ssr_scales_cadence_schedule_composer_case(ssr):
    """Composer's TestScaleScheduleTrainer: MultiStepScheduler(['30ba', '50ba']) over 10ep; the lr drops at
    int(30·ssr) and int(50·ssr); the run is 10·dataloader_len·ssr batches (Composer: int(10·ssr) epochs)."""
    data = batches(10, batch_size=1, features=1)
    trainer = make_trainer(
        data,
        "10ep",
        model=linear_model(1),
        schedulers=MultiStepScheduler(milestones=["30ba", "50ba"], gamma=0.1),
        scale_schedule_ratio=ssr,
    )
    if ssr == 1.0:
        assert trainer.state.max_duration == Time(10, "ep")
    else:
        assert trainer.state.max_duration == Time(int(100 * ssr), "ba")
    recorder = StepRecorder(trainer)
    trainer.fit()
    first, second = int(30 * ssr), int(50 * ssr)
    expected = [1.0 if k < first else 0.1 if k < second else 0.01 for k in range(int(100 * ssr))]
    assert recorder.series() == pytest.approx(expected, rel=1e-12)
    assert recorder.series()[first - 1] == 1.0 and recorder.series()[first] == pytest.approx(0.1, rel=1e-12)


@pytest.mark.parametrize("ssr", [0.5, 0.75, 1.0])
def test_ssr_dur_times_follow_the_scaled_run(ssr):
    """A dur time is a fraction of the already scaled run (not scaled again)."""
    schedule = LinearScheduler(t_max="1dur")
    trainer = make_trainer(batches(10), "2ep", schedulers=schedule, scale_schedule_ratio=ssr)
    recorder = StepRecorder(trainer)
    trainer.fit()
    total = int(20 * ssr)
    assert len(recorder.values) == total
    assert recorder.series() == pytest.approx([1 - k / total for k in range(total)], abs=1e-12)


@pytest.mark.parametrize("ssr", [0.5, 0.75, 1.0])
def test_ssr_scales_torch_schedulers_composer_cases(ssr):
    """Composer's TestScaleSchedule cases, stepped per batch by the trainer over int(9·ssr) batches."""
    cases = {
        "step": (lambda opt: StepLR(opt, step_size=3, gamma=0.1)),
        "multistep": (lambda opt: MultiStepLR(opt, [2, 7], 0.1)),
        "exponential": (lambda opt: ExponentialLR(opt, gamma=0.1)),
    }
    epochs = int(9 * ssr)
    step_size = int(3 * ssr)
    step_targets = [0.1 ** (k // step_size) for k in range(epochs)]
    bounds = [0, int(2 * ssr), int(7 * ssr), epochs]
    multistep_targets = [0.1**n for n in range(3) for _ in range(bounds[n + 1] - bounds[n])]
    exponential_targets = [0.1 ** (x / ssr) for x in range(epochs)]
    targets = {"step": step_targets, "multistep": multistep_targets, "exponential": exponential_targets}
    for name, factory in cases.items():
        lrs = _lrs_of_a_scaled_run(factory, batches(3), "9ba", ssr, lr=1.0)
        assert lrs == pytest.approx(targets[name], rel=1e-9), name


def _lrs_of_a_scaled_run(factory, data, max_duration, ssr, lr):
    """The lr of every batch of a run at ``ssr`` with the scheduler ``factory(optimizer)``, stepped per batch."""
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    trainer = make_trainer(
        data,
        max_duration,
        model=model,
        optimizer=optimizer,
        schedulers=factory(optimizer),
        step_schedulers_every_batch=True,
        scale_schedule_ratio=ssr,
    )
    assert trainer.state.max_duration == scale_max_duration(max_duration, ssr)
    recorder = StepRecorder(trainer)
    trainer.fit()
    return recorder.series()


def test_ssr_scales_per_epoch_torch_steplr():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
    trainer = make_trainer(
        batches(4), "4ep", model=model, optimizer=optimizer, schedulers=scheduler, scale_schedule_ratio=0.5
    )
    assert scheduler.step_size == 1
    assert trainer.state.max_duration == Time(8, "ba")
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert recorder.series() == [0.5 ** (k // 4) for k in range(8)]


@pytest.mark.parametrize(
    "front_end",
    [
        lambda opt: StepScheduler("100ba", gamma=0.5),
        lambda opt: StepLR(opt, step_size=100, gamma=0.5),
        lambda opt: MultiStepLR(opt, milestones=[100, 200], gamma=0.5),
        lambda opt: cerebras.StepLR(opt, 0.01, 100, 0.5),
        lambda opt: cerebras.MultiStepLR(opt, 0.01, 0.5, ["100ba", "200ba"]),
    ],
    ids=["cadence", "torch-StepLR", "torch-MultiStepLR", "cerebras-StepLR", "cerebras-MultiStepLR"],
)
def test_ssr_products_are_whole_counts_by_one_rule_in_every_front_end(front_end):
    """At ssr 0.29 a 200ba run is 58 batches (200 · 0.29 = 57.99999999999999) and the lr halves at batch 29
    (100 · 0.29 = 28.999999999999996) in every front end: deviation 2, not int() (57 and 28)."""
    assert scale_max_duration("200ba", 0.29) == Time(58, "ba")
    lrs = _lrs_of_a_scaled_run(front_end, batches(4), "200ba", 0.29, lr=0.01)
    assert lrs == pytest.approx([0.01] * 29 + [0.005] * 29, rel=1e-12)


def test_ssr_scales_sambaflow_step_counts_by_the_same_rule():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = cosine_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=1000)
    make_trainer(
        batches(4), "1000ba", model=model, optimizer=optimizer, schedulers=scheduler, scale_schedule_ratio=0.57
    )
    (multiplier,) = scheduler.lr_lambdas
    assert (multiplier.num_warmup_steps, multiplier.num_training_steps) == (57, 570)  # 100 · 0.57 = 56.99999999999999


def test_ssr_that_cannot_scale_a_torch_scheduler_is_value_error_naming_it():
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: 1.0)
    with pytest.raises(ValueError, match=r"schedulers\[0\].*LambdaLR"):
        make_trainer(model=model, optimizer=optimizer, schedulers=scheduler, scale_schedule_ratio=0.5)


def test_ssr_with_epochs_and_loader_without_length_is_value_error():
    data = batches(3)

    class NoLen:
        def __iter__(self):
            return iter(data)

    with pytest.raises(ValueError, match="dataloader_len"):
        make_trainer(NoLen(), "2ep", scale_schedule_ratio=0.5)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_invalid_ssr_is_value_error_naming_it(bad):
    with pytest.raises(ValueError, match="scale_schedule_ratio"):
        make_trainer(scale_schedule_ratio=bad)


# --------------------------------------------------------------------------------------------------
# stopping exactly at max_duration (docs/trainer.md)
# --------------------------------------------------------------------------------------------------


def test_stops_exactly_at_batches_mid_epoch():
    events = Events()
    trainer = make_trainer(batches(3), "7ba", callbacks=[events])
    recorder = StepRecorder(trainer)
    trainer.fit()
    ts = trainer.state.timestamp
    assert len(recorder.values) == 7
    assert (ts.batch.value, ts.epoch.value, ts.batch_in_epoch.value) == (7, 2, 1)
    assert events.epoch_ends == [3, 6]


def test_stops_exactly_at_epochs_and_last_batch_closes_the_epoch():
    events = Events()
    trainer = make_trainer(batches(3, batch_size=2), "2ep", callbacks=[events])
    recorder = StepRecorder(trainer)
    trainer.fit()
    ts = trainer.state.timestamp
    assert len(recorder.values) == 6
    assert (ts.batch.value, ts.epoch.value, ts.batch_in_epoch.value, ts.sample_in_epoch.value) == (6, 2, 0, 0)
    assert ts.sample.value == 12
    assert events.epoch_ends == [3, 6]


@pytest.mark.parametrize(
    "max_duration, steps, samples", [("10sp", 3, 10), ("11sp", 4, 14), ("1sp", 1, 3), ("23sp", 7, 24)]
)
def test_stops_after_first_batch_reaching_samples(max_duration, steps, samples):
    sizes = [3, 5, 2, 4]  # cumulative 3, 8, 10, 14 | 17, 22, 24, 28
    trainer = make_trainer(batches(4, batch_size=sizes), max_duration)
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert len(recorder.values) == steps
    assert trainer.state.timestamp.sample.value == samples


def token_batches(lengths_per_batch, seq=6, seed=0):
    """Batches (x, y) of padded sequences: row i has lengths[i] non-zero entries, the rest is padding 0."""
    generator = torch.Generator().manual_seed(seed)
    out = []
    for lengths in lengths_per_batch:
        x = torch.zeros(len(lengths), seq)
        for row, length in enumerate(lengths):
            x[row, :length] = torch.rand(length, generator=generator) + 0.5
        out.append((x, torch.randn(len(lengths), 1, generator=generator)))
    return out


def non_padding(item) -> int:
    return int((item[0] != 0).sum())


TOKEN_LENGTHS = [[6, 2, 3], [1, 1], [5, 6, 6, 4], [2]]  # tokens 11, 2, 21, 2 → cumulative 11, 13, 34, 36


@pytest.mark.parametrize("max_duration, steps", [("11tok", 1), ("12tok", 2), ("34tok", 3), ("35tok", 4), ("50tok", 7)])
def test_stops_after_first_batch_reaching_tokens(max_duration, steps):
    data = token_batches(TOKEN_LENGTHS)
    trainer = make_trainer(data, max_duration, model=linear_model(6), get_num_tokens=non_padding)
    recorder = StepRecorder(trainer)
    trainer.fit()
    per_batch = [non_padding(data[k % 4]) for k in range(steps)]
    assert len(recorder.values) == steps
    assert trainer.state.timestamp.token.value == sum(per_batch)
    assert [ts.token.value for ts in recorder.timestamps] == [sum(per_batch[:k]) for k in range(steps)]
    assert trainer.state.timestamp.sample.value == sum(len(TOKEN_LENGTHS[k % 4]) for k in range(steps))


def test_token_schedule_follows_non_padding_token_count():
    data = token_batches(TOKEN_LENGTHS)
    schedule = LinearScheduler(t_max="36tok")
    trainer = make_trainer(data, "36tok", model=linear_model(6), schedulers=schedule, get_num_tokens=non_padding)
    recorder = StepRecorder(trainer)
    trainer.fit()
    assert [ts.token.value for ts in recorder.timestamps] == [0, 11, 13, 34]
    assert recorder.series() == pytest.approx([1 - t / 36 for t in (0, 11, 13, 34)], abs=1e-15)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"max_duration": "100tok"}, "max_duration"),
        ({"eval_interval": "10tok", "eval_dataloader": batches(2)}, "eval_interval"),
        ({"save_interval": "10tok", "save_folder": "SAVE"}, "save_interval"),
        ({"schedulers": LinearScheduler(t_max="100tok")}, "schedulers[0]"),
        ({"schedulers": [LinearScheduler(), StepScheduler(step_size="10tok")]}, "schedulers[1]"),
        ({"schedulers": {"schedule": StepScheduler("10tok"), "hyperparameter": "weight_decay"}}, "schedulers[0]"),
    ],
    ids=["max_duration", "eval_interval", "save_interval", "schedule", "second-schedule", "dict-schedule"],
)
def test_tokens_without_get_num_tokens_is_value_error_at_construction(kwargs, name, tmp_path):
    kwargs = dict(kwargs)
    if kwargs.get("save_folder") == "SAVE":
        kwargs["save_folder"] = tmp_path
    max_duration = kwargs.pop("max_duration", "10ba")
    model = linear_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0, weight_decay=0.1)
    with pytest.raises(ValueError) as error:
        make_trainer(max_duration=max_duration, model=model, optimizer=optimizer, **kwargs)
    assert name in str(error.value) and "get_num_tokens" in str(error.value)
    assert not list(tmp_path.iterdir())  # nothing written


def test_loader_without_length_ends_epochs_when_it_runs_out():
    data = batches(3)

    class NoLen:
        def __iter__(self):
            return iter(data)

    events = Events()
    trainer = make_trainer(NoLen(), "7ba", callbacks=[events])
    trainer.fit()
    ts = trainer.state.timestamp
    assert trainer.state.dataloader_len is None
    assert (ts.batch.value, ts.epoch.value, ts.batch_in_epoch.value) == (7, 2, 1)
    assert events.epoch_ends == [3, 6]


# --------------------------------------------------------------------------------------------------
# eval_interval, save_interval, final checkpoint
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "interval, max_duration, per_epoch, expected",
    [
        ("3ba", "10ba", 4, [3, 6, 9, 10]),
        ("1ep", "3ep", 4, [4, 8, 12]),
        ("2ba", "6ba", 4, [2, 4, 6]),
        ("10sp", "6ba", 5, [3, 5, 6]),
    ],
)
def test_eval_interval_fires_at_crossings_and_at_the_end(interval, max_duration, per_epoch, expected):
    events = Events()
    trainer = make_trainer(
        batches(per_epoch), max_duration, eval_dataloader=batches(2, seed=1), eval_interval=interval, callbacks=[events]
    )
    trainer.fit()
    assert events.evals == expected


def test_eval_loss_is_sample_weighted_mean():
    eval_data = batches(3, batch_size=[1, 3, 4], seed=1)
    events = Events()
    model = linear_model()
    trainer = make_trainer(
        batches(4), "2ba", model=model, lr=0.0, eval_dataloader=eval_data, eval_interval="2ba", callbacks=[events]
    )
    trainer.fit()
    with torch.no_grad():
        total = sum(float(F.mse_loss(model(x), y)) * len(x) for x, y in eval_data)
    assert events.metrics[-1]["eval/loss"] == pytest.approx(total / 8, rel=1e-6)
    assert model.training  # back in train mode after evaluation


@pytest.mark.parametrize(
    "interval, max_duration, per_epoch, expected",
    [
        ("4ba", "10ba", 5, [4, 8, 10]),
        ("4ba", "8ba", 5, [4, 8]),
        ("1ep", "7ba", 3, [3, 6, 7]),
        ("1ep", "2ep", 3, [3, 6]),
        ("10sp", "8ba", 5, [3, 5, 8]),
    ],
)
def test_save_interval_fires_at_crossings_and_final_checkpoint(interval, max_duration, per_epoch, expected, tmp_path):
    events = Events()
    trainer = make_trainer(
        batches(per_epoch), max_duration, save_folder=tmp_path, save_interval=interval, callbacks=[events]
    )
    trainer.fit()
    assert [batch for batch, _ in events.checkpoints] == expected
    for batch, path in events.checkpoints:
        assert path == os.fspath(tmp_path / f"ba{batch:08d}.pt")
    files = sorted(p.name for p in tmp_path.iterdir() if p.name != "latest")
    assert files == [f"ba{b:08d}.pt" for b in expected]  # no temp files left behind
    assert os.readlink(tmp_path / "latest") == f"ba{expected[-1]:08d}.pt"
    final = torch.load(tmp_path / "latest", weights_only=True)
    assert final["timestamp"]["batch"] == expected[-1]


def test_final_checkpoint_without_interval(tmp_path):
    events = Events()
    trainer = make_trainer(batches(3), "5ba", save_folder=tmp_path, callbacks=[events])
    trainer.fit()
    assert [b for b, _ in events.checkpoints] == [5]
    assert os.readlink(tmp_path / "latest") == "ba00000005.pt"


def test_interval_without_folder_or_eval_loader_is_value_error():
    with pytest.raises(ValueError, match="save_folder"):
        make_trainer(save_interval="2ba")
    with pytest.raises(ValueError, match="eval_dataloader"):
        make_trainer(eval_interval="2ba")


def test_lr_monitor_rows_count_before_each_batch():
    monitor = LRMonitor()
    trainer = make_trainer(batches(2, batch_size=3), "3ba", schedulers=LinearScheduler(), callbacks=[monitor])
    trainer.fit()
    assert [(r["batch"], r["epoch"], r["sample"]) for r in monitor.rows] == [(0, 0, 0), (1, 0, 3), (2, 1, 6)]
    assert [r["lr/group0"] for r in monitor.rows] == pytest.approx([1.0, 2 / 3, 1 / 3], abs=1e-15)


def test_math_sanity_of_helpers():
    assert math.isclose(sum(non_padding(b) for b in token_batches(TOKEN_LENGTHS)), 36)
