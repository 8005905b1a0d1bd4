"""Every time-aware schedule's closed form traces under torch.compile(fullgraph=True) and matches eager."""

from __future__ import annotations

import pytest
import torch
import torch._dynamo

from schedulers import (
    ConstantScheduler,
    ConstantWithWarmupScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWarmRestartsScheduler,
    CosineAnnealingWithWarmupScheduler,
    CyclicScheduler,
    ExponentialScheduler,
    InverseSquareRootScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    OneCycleScheduler,
    PolynomialScheduler,
    PolynomialWithWarmupScheduler,
    StepScheduler,
    WarmupStableDecayScheduler,
)

SCHEDULES = [
    StepScheduler("7ba", gamma=0.5),
    MultiStepScheduler(["10ba", "0.5dur", "80ba"], gamma=0.3),
    ConstantScheduler(alpha=0.25, t_max="0.4dur"),
    LinearScheduler(alpha_i=0.2, alpha_f=1.0, t_max="0.6dur"),
    ExponentialScheduler(gamma=0.97, decay_period="3ba"),
    CosineAnnealingScheduler(alpha_f=0.1),
    CosineAnnealingWarmRestartsScheduler("9ba", t_mult=2.0, alpha_f=0.05),
    PolynomialScheduler(power=1.5, alpha_f=0.05),
    MultiStepWithWarmupScheduler("10ba", ["30ba", "60ba"]),
    ConstantWithWarmupScheduler("10ba", alpha=0.5),
    LinearWithWarmupScheduler("0.1dur", alpha_i=1.0, alpha_f=0.1),
    CosineAnnealingWithWarmupScheduler("0.1dur", alpha_f=0.1),
    PolynomialWithWarmupScheduler("5ba", power=3.0),
    WarmupStableDecayScheduler("10ba", t_decay="0.3dur", decay_shape="1-sqrt"),
    InverseSquareRootScheduler("8ba"),
    OneCycleScheduler(three_phase=True),
    CyclicScheduler("6ba", "4ba", mode="triangular2"),
]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: type(s).__name__)
def test_closed_form_traces_without_graph_breaks(schedule):
    torch._dynamo.reset()
    curve = schedule.resolve("100ba")
    x = torch.arange(120, dtype=torch.float64)
    traced = torch.compile(curve.fn, fullgraph=True, backend="eager")
    torch.testing.assert_close(traced(x), curve.fn(x), rtol=0, atol=0)
    # and the traced whole run equals the per-step float path
    expected = torch.tensor([curve.fn(float(k)) for k in range(120)], dtype=torch.float64)
    torch.testing.assert_close(traced(x), expected, rtol=1e-12, atol=1e-12)
