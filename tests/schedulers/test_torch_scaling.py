"""scale_pytorch_scheduler: Composer's rules for torch's step-indexed schedulers, without its quirks."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.optim import lr_scheduler

from schedulers import scale_pytorch_scheduler


def _opt():
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)


def _lrs(scheduler, steps):
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            values.append(scheduler.optimizer.param_groups[0]["lr"])
            scheduler.optimizer.step()
            scheduler.step()
    return values


# Composer's tests/trainer/test_scale_schedule.py: targets per epoch for ssr 0.5 / 0.75 / 1.0
@pytest.mark.parametrize(
    "ssr, targets",
    [
        (0.5, [1, 0.1, 0.01, 0.001]),
        (0.75, [1, 1, 0.1, 0.1, 0.01, 0.01]),
        (1.0, [1, 1, 1, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01]),
    ],
)
def test_step_lr(ssr, targets):
    scheduler = lr_scheduler.StepLR(_opt(), step_size=3, gamma=0.1)
    scale_pytorch_scheduler(scheduler, ssr)
    assert _lrs(scheduler, int(9 * ssr)) == pytest.approx(targets)


@pytest.mark.parametrize(
    "ssr, targets",
    [
        (0.5, [1, 0.1, 0.1, 0.01]),
        (0.75, [1, 0.1, 0.1, 0.1, 0.1, 0.01]),
        (1.0, [1, 1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.01, 0.01]),
    ],
)
def test_multistep_lr(ssr, targets):
    scheduler = lr_scheduler.MultiStepLR(_opt(), milestones=[2, 7], gamma=0.1)
    scale_pytorch_scheduler(scheduler, ssr)
    assert _lrs(scheduler, int(9 * ssr)) == pytest.approx(targets)


@pytest.mark.parametrize("ssr", [0.5, 0.75, 1.0])
def test_exponential_lr(ssr):
    scheduler = lr_scheduler.ExponentialLR(_opt(), gamma=0.1)
    scale_pytorch_scheduler(scheduler, ssr)
    epochs = int(9 * ssr)
    assert _lrs(scheduler, epochs) == pytest.approx([0.1 ** (x / ssr) for x in range(epochs)], rel=1e-12)


def test_multistep_keeps_repeated_milestones():
    scheduler = lr_scheduler.MultiStepLR(_opt(), milestones=[2, 2, 5], gamma=0.5)
    scale_pytorch_scheduler(scheduler, 0.5)
    assert _lrs(scheduler, 4) == pytest.approx([1, 0.25, 0.125, 0.125])  # γ² at 1, γ at 2


def test_cosine_annealing_equals_a_fresh_scheduler_of_the_scaled_length():
    scaled = lr_scheduler.CosineAnnealingLR(_opt(), T_max=10)
    scale_pytorch_scheduler(scaled, 0.5)
    fresh = lr_scheduler.CosineAnnealingLR(_opt(), T_max=5)
    assert _lrs(scaled, 12) == pytest.approx(_lrs(fresh, 12), abs=1e-12)


def test_warm_restarts_really_restart_at_the_scaled_period():
    scaled = lr_scheduler.CosineAnnealingWarmRestarts(_opt(), T_0=10, T_mult=2)
    scale_pytorch_scheduler(scaled, 0.5)
    fresh = lr_scheduler.CosineAnnealingWarmRestarts(_opt(), T_0=5, T_mult=2)
    assert _lrs(scaled, 40) == pytest.approx(_lrs(fresh, 40), abs=1e-12)


@pytest.mark.parametrize(
    "cls, argument", [(lr_scheduler.LinearLR, "total_iters"), (lr_scheduler.ConstantLR, "total_iters")]
)
def test_total_iters_scaled(cls, argument):
    scheduler = cls(_opt(), total_iters=10)
    scale_pytorch_scheduler(scheduler, 0.3)
    assert getattr(scheduler, argument) == 3


def test_truncation_to_zero_is_a_clear_error():
    scheduler = lr_scheduler.StepLR(_opt(), step_size=1)
    with pytest.raises(ValueError, match="StepLR.step_size=1 .* truncates to 0"):
        scale_pytorch_scheduler(scheduler, 0.5)


def test_unsupported_scheduler_is_named_and_ssr_one_is_a_no_op():
    scheduler = lr_scheduler.LambdaLR(_opt(), lambda epoch: 1.0)
    scale_pytorch_scheduler(scheduler, 1.0)
    with pytest.raises(ValueError, match="cannot be applied to LambdaLR"):
        scale_pytorch_scheduler(scheduler, 0.5)


@pytest.mark.parametrize("ssr", [0, -1, float("nan"), float("inf")])
def test_bad_ratio(ssr):
    with pytest.raises(ValueError, match="scale_schedule_ratio"):
        scale_pytorch_scheduler(lr_scheduler.StepLR(_opt(), step_size=3), ssr)


def test_sambaflow_schedules_scale_their_step_counts():
    from schedulers.sambaflow import polynomial_decay_schedule_with_warmup

    scaled = polynomial_decay_schedule_with_warmup(_opt(), num_warmup_steps=4, num_training_steps=20)
    scale_pytorch_scheduler(scaled, 0.5)
    fresh = polynomial_decay_schedule_with_warmup(_opt(), num_warmup_steps=2, num_training_steps=10)
    assert _lrs(scaled, 12) == pytest.approx(_lrs(fresh, 12), abs=1e-12)


# -- one rounding rule (deviation 2): n · ssr is a whole count by timeunits.whole_count, as Cadence's times are --
# 100 · 0.29 = 28.999999999999996 and 100 · 0.57 = 56.99999999999999: int() would give 28 and 56.

TORCH_COUNTS = {  # a scheduler with its counts at 100 (and 200), and what to read of it
    "StepLR": (lambda o: lr_scheduler.StepLR(o, step_size=100), lambda s: s.step_size),
    "MultiStepLR": (lambda o: lr_scheduler.MultiStepLR(o, [100, 100, 200]), lambda s: sorted(s.milestones.elements())),
    "CosineAnnealingLR": (lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=100), lambda s: s.T_max),
    "CosineAnnealingWarmRestarts": (
        lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=100),
        lambda s: (s.T_0, s.T_i),
    ),
    "LinearLR": (lambda o: lr_scheduler.LinearLR(o, total_iters=100), lambda s: s.total_iters),
    "ConstantLR": (lambda o: lr_scheduler.ConstantLR(o, total_iters=100), lambda s: s.total_iters),
    "PolynomialLR": (lambda o: lr_scheduler.PolynomialLR(o, total_iters=100), lambda s: s.total_iters),
}


# 200 · 0.29 = 57.99999999999999, 200 · 0.57 = 113.99999999999999; 29.5 is no float error and is truncated
@pytest.mark.parametrize("ssr, count, count_200", [(0.29, 29, 58), (0.57, 57, 114), (0.295, 29, 59)])
@pytest.mark.parametrize("name", TORCH_COUNTS)
def test_torch_counts_follow_deviation_2(name, ssr, count, count_200):
    from schedulers import StepScheduler

    build, read = TORCH_COUNTS[name]
    scheduler = build(_opt())
    scale_pytorch_scheduler(scheduler, ssr)
    expected = {"MultiStepLR": [count, count, count_200], "CosineAnnealingWarmRestarts": (count, count)}
    assert read(scheduler) == expected.get(name, count)
    # the count a Cadence schedule's time gets at this ratio
    assert StepScheduler("100ba").resolve("1000ba", ssr=ssr).times["step_size"].value == count


def test_the_scaled_step_lr_drops_at_the_scaled_count():
    scheduler = lr_scheduler.StepLR(_opt(), step_size=100, gamma=0.5)
    scale_pytorch_scheduler(scheduler, 0.29)
    values = _lrs(scheduler, 60)
    assert values[28] == 1.0 and values[29] == 0.5 and values[57] == 0.5 and values[58] == 0.25


def test_one_cycle_is_not_scaled_but_named():
    scheduler = lr_scheduler.OneCycleLR(_opt(), max_lr=1.0, total_steps=100)
    with pytest.raises(ValueError, match="cannot be applied to OneCycleLR"):
        scale_pytorch_scheduler(scheduler, 0.29)


@pytest.mark.parametrize("ssr, warmup, training", [(0.29, 29, 290), (0.57, 57, 570)])
def test_sambaflow_step_counts_follow_deviation_2(ssr, warmup, training):
    from schedulers.sambaflow import cosine_schedule_with_warmup

    scheduler = cosine_schedule_with_warmup(_opt(), num_warmup_steps=100, num_training_steps=1000)
    scale_pytorch_scheduler(scheduler, ssr)
    (multiplier,) = scheduler.lr_lambdas
    assert (multiplier.num_warmup_steps, multiplier.num_training_steps) == (warmup, training)
