"""Schedules beyond Composer: warmup-stable-decay, inverse square root, one-cycle, cyclic — in any unit."""

from __future__ import annotations

import math
import warnings

import pytest
import torch

from schedulers import (
    CyclicScheduler,
    InverseSquareRootScheduler,
    OneCycleScheduler,
    SchedulerState,
    WarmupStableDecayScheduler,
    evaluate_run,
)
from timeunits import Timestamp


@pytest.mark.parametrize(
    "shape, at_75",
    [("linear", 0.1 + 0.9 * 0.5), ("cosine", 0.1 + 0.9 * 0.5), ("1-sqrt", 0.1 + 0.9 * (1 - math.sqrt(0.5)))],
)
def test_wsd_phases(shape, at_75):
    curve = WarmupStableDecayScheduler("10ba", t_decay="0.5dur", alpha_f=0.1, decay_shape=shape).resolve("100ba")
    assert curve(0) == 0.0 and curve(5) == 0.5 and curve(10) == 1.0 and curve(50) == 1.0
    assert curve(75) == pytest.approx(at_75, abs=1e-12)
    assert curve(100) == pytest.approx(0.1) and curve(120) == pytest.approx(0.1)


def test_wsd_in_tokens_through_the_state():
    schedule = WarmupStableDecayScheduler("1_000tok", t_decay="0.2dur")
    state = SchedulerState("10_000tok", Timestamp(batch=3, token=500))
    assert schedule(state) == 0.5
    state.timestamp = Timestamp(batch=90, token=9_000)
    assert schedule(state) == pytest.approx(0.5)


def test_wsd_warmup_must_end_before_decay():
    with pytest.raises(ValueError, match="t_warmup=.* must end before the decay"):
        WarmupStableDecayScheduler("0.9dur", t_decay="0.2dur").resolve("100ba")
    with pytest.raises(ValueError, match="decay_shape='exp'"):
        WarmupStableDecayScheduler("1ba", decay_shape="exp")


def test_inverse_sqrt():
    curve = InverseSquareRootScheduler("2ep").resolve("100ep", dataloader_len=50)
    assert curve.times["t_warmup"].value == 100
    assert curve(50) == 0.5 and curve(100) == 1.0 and curve(400) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="t_warmup=0ba"):
        InverseSquareRootScheduler("0ba").resolve("100ba")


def _torch_lrs(make, steps):
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = make(opt)
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            values.append(opt.param_groups[0]["lr"])
            opt.step()
            scheduler.step()
    return torch.tensor(values, dtype=torch.float64)


@pytest.mark.parametrize("three_phase, strategy", [(False, "cos"), (True, "linear")])
def test_one_cycle_in_batches_equals_torch(three_phase, strategy):
    ours = evaluate_run(OneCycleScheduler(anneal_strategy=strategy, three_phase=three_phase), "200ba")
    theirs = _torch_lrs(
        lambda opt: torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=1.0, total_steps=200, anneal_strategy=strategy, three_phase=three_phase, cycle_momentum=False
        ),
        200,
    )
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
def test_cyclic_in_batches_equals_torch_shape(mode):
    ours = evaluate_run(CyclicScheduler("7ba", "5ba", base_ratio=0.1, mode=mode, gamma=0.99), "60ba")
    theirs = _torch_lrs(
        lambda opt: torch.optim.lr_scheduler.CyclicLR(
            opt, base_lr=0.1, max_lr=1.0, step_size_up=7, step_size_down=5, mode=mode, gamma=0.99, cycle_momentum=False
        ),
        60,
    )
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12)


def test_cyclic_in_samples_scales_with_ssr():
    schedule = CyclicScheduler("320sp", base_ratio=0.0)
    assert schedule.resolve("3200sp", ssr=0.5).times["t_up"].value == 160


def test_bad_arguments():
    with pytest.raises(ValueError, match="pct_start=1.5"):
        OneCycleScheduler(pct_start=1.5)
    with pytest.raises(ValueError, match="mode='sine'"):
        CyclicScheduler("10ba", mode="sine")
    with pytest.raises(ValueError, match="t_up=1ba resolves to 0ba"):
        CyclicScheduler("1ba").resolve("100ba", ssr=0.5)
