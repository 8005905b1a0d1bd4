"""``_get_closed_form_lr`` of every class traces under ``torch.compile(fullgraph=True, backend="eager")``
(no graph break) and gives the eager value, mid-run."""

from __future__ import annotations

import pytest
import torch
from torch._dynamo.testing import CompileCounter

import schedulers.cerebras as cs


class WarmupLambda(cs.LambdaLR):
    def set_lr_lambda(self):
        return [lambda step: torch.clamp(step / 10, max=1.0), lambda step: 0.99**step]


class UserWarmup(cs.LRScheduler):
    """A user closed form of ``self.last_epoch`` (the Cerebras custom-scheduler recipe)."""

    def __init__(self, optimizer, warmup, total_iters):
        super().__init__(optimizer, total_iters=total_iters)
        self.warmup = warmup

    def _get_closed_form_lr(self):
        step = self.last_epoch.double()
        return torch.where(step < self.warmup, 0.1 * step / self.warmup, torch.tensor(0.1, dtype=torch.float64))


FACTORIES = {
    "ConstantLR": lambda o: cs.ConstantLR(o, 0.1),
    "PolynomialLR": lambda o: cs.PolynomialLR(o, 0.1, 0.01, 20, power=2.0, cycle=True),
    "LinearLR": lambda o: cs.LinearLR(o, 0.1, 0.0, 20),
    "ExponentialLR": lambda o: cs.ExponentialLR(o, 0.1, 5, 0.5, staircase=True),
    "InverseExponentialTimeDecayLR": lambda o: cs.InverseExponentialTimeDecayLR(o, 0.1, 2, 10, 0.5),
    "InverseSquareRootDecayLR": lambda o: cs.InverseSquareRootDecayLR(o, 0.1, 2.0, 4),
    "CosineDecayLR": lambda o: cs.CosineDecayLR(o, 0.1, 0.0, 20),
    "SequentialLR": lambda o: cs.SequentialLR(o, [cs.LinearLR(o, 0.0, 0.1, 5), UserWarmup(o, 3, 9)], [5]),
    "PiecewiseConstantLR": lambda o: cs.PiecewiseConstantLR(o, [0.1, 0.05, 0.01], [3, 9]),
    "MultiStepLR": lambda o: cs.MultiStepLR(o, 0.1, 0.5, [3, 6, 6]),
    "StepLR": lambda o: cs.StepLR(o, 0.1, 3, 0.5),
    "CosineAnnealingLR": lambda o: cs.CosineAnnealingLR(o, 0.1, 5, 0.01),
    "LambdaLR": lambda o: WarmupLambda(o, 0.1),
    "CosineAnnealingWarmRestarts": lambda o: cs.CosineAnnealingWarmRestarts(o, 0.1, 3, 2, 0.01),
    "MultiplicativeLR": lambda o: cs.MultiplicativeLR(o, 0.1, 0.9),
    "ChainedScheduler": lambda o: cs.ChainedScheduler([UserWarmup(o, 10, 20), cs.CosineDecayLR(o, 0.1, 0.0, 20)]),
    "CyclicLR": lambda o: cs.CyclicLR(o, 0.01, 0.1, 4, 2, mode="triangular2"),
    "OneCycleLR": lambda o: cs.OneCycleLR(o, 0.004, 0.1, total_steps=20),
    "user subclass": lambda o: UserWarmup(o, 10, 20),
    "CosineDecayWD": lambda o: cs.CosineDecayWD(o, 0.1, 0.0, 20),
    "ScalePerParamLR": lambda o: cs.ScalePerParamLR(o, cs.StepLR(o, 0.1, 3, 0.5)),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_closed_form_traces_without_graph_break(name):
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = FACTORIES[name](optimizer)
    for _ in range(7):
        scheduler.step()
    eager = scheduler._get_closed_form_lr()
    torch._dynamo.reset()
    compiled = torch.compile(scheduler._get_closed_form_lr, fullgraph=True, backend="eager")
    traced = compiled()
    assert isinstance(traced, torch.Tensor)
    assert float(traced) == pytest.approx(float(eager), rel=1e-12, abs=1e-15)
    assert float(traced) == pytest.approx(
        optimizer.param_groups[0]["lr" if "WD" not in name else "weight_decay"], rel=1e-12, abs=1e-15
    )
    torch._dynamo.reset()


@pytest.mark.parametrize("name", FACTORIES)
def test_one_graph_serves_every_step(name):
    """The step is an input of the traced closed form, not a constant: steps 0, 1 and 2 give one graph, and
    each traced value is the step's own (a Python int baked into the graph would recompile at step 1)."""
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = FACTORIES[name](optimizer)
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(scheduler._get_closed_form_lr, fullgraph=True, backend=counter)
    for _ in range(3):
        assert float(compiled()) == pytest.approx(float(scheduler._get_closed_form_lr()), rel=1e-12, abs=1e-15)
        scheduler.step()
    assert counter.frame_count == 1
    torch._dynamo.reset()
