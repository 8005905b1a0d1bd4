"""Where torch has the same class, the Cerebras classes equal it over 10,000 steps: to 1e-12 against torch's
closed form where it has one, else 1e-9 relative against torch stepping (CosineAnnealingWarmRestarts,
MultiplicativeLR). Both Cadence paths are checked: stepping (Python floats) and ``values_at`` (a tensor)."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch.optim import lr_scheduler as torch_lrs

import schedulers.cerebras as cs

N = 10_000
BASE = 0.1


def _optimizer():
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=BASE)


def torch_closed_form(scheduler, steps=N):
    """torch's value at each step from its closed form of ``last_epoch`` (no recursion, no stepping)."""
    values = []
    with torch_lrs._enable_get_lr_call(scheduler):
        for step in range(steps):
            scheduler.last_epoch = step
            if hasattr(scheduler, "_get_closed_form_lr"):
                values.append(scheduler._get_closed_form_lr()[0])
            else:  # CyclicLR, OneCycleLR: get_lr is itself a closed form of last_epoch
                values.append(scheduler.get_lr()[0])
    return torch.tensor(values, dtype=torch.float64)


def torch_stepped(scheduler, steps=N):
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            values.append(scheduler.optimizer.param_groups[0]["lr"])
            scheduler.step()
    return torch.tensor(values, dtype=torch.float64)


def cadence_paths(scheduler, steps=N):
    stepped = []
    group = scheduler.optimizer.param_groups[0]
    for _ in range(steps):
        stepped.append(group["lr"])
        scheduler.step()
    return torch.tensor(stepped, dtype=torch.float64), scheduler.values_at(range(steps))


CLOSED_FORM_CASES = {
    "StepLR": (lambda o: torch_lrs.StepLR(o, 37, 0.7), lambda o: cs.StepLR(o, BASE, 37, 0.7)),
    "MultiStepLR": (
        lambda o: torch_lrs.MultiStepLR(o, [30, 800, 800, 4000, 9999], 0.5),
        lambda o: cs.MultiStepLR(o, BASE, 0.5, [30, 800, 800, 4000, 9999]),
    ),
    "CosineAnnealingLR": (
        lambda o: torch_lrs.CosineAnnealingLR(o, T_max=333, eta_min=0.001),
        lambda o: cs.CosineAnnealingLR(o, BASE, T_max=333, eta_min=0.001),
    ),
    "ExponentialLR": (lambda o: torch_lrs.ExponentialLR(o, 0.9995), lambda o: cs.ExponentialLR(o, BASE, 1, 0.9995)),
    "CyclicLR-triangular": (
        lambda o: torch_lrs.CyclicLR(o, 0.01, BASE, 100, 37, cycle_momentum=False),
        lambda o: cs.CyclicLR(o, 0.01, BASE, 100, 37),
    ),
    "CyclicLR-triangular2": (
        lambda o: torch_lrs.CyclicLR(o, 0.01, BASE, 250, mode="triangular2", cycle_momentum=False),
        lambda o: cs.CyclicLR(o, 0.01, BASE, 250, mode="triangular2"),
    ),
    "CyclicLR-exp_range": (
        lambda o: torch_lrs.CyclicLR(o, 0.01, BASE, 64, 200, mode="exp_range", gamma=0.9997, cycle_momentum=False),
        lambda o: cs.CyclicLR(o, 0.01, BASE, 64, 200, mode="exp_range", gamma=0.9997),
    ),
    "OneCycleLR-cos": (
        lambda o: torch_lrs.OneCycleLR(o, BASE, total_steps=N, cycle_momentum=False),
        lambda o: cs.OneCycleLR(o, BASE / 25, BASE, total_steps=N),
    ),
    "OneCycleLR-linear-three-phase": (
        lambda o: torch_lrs.OneCycleLR(
            o,
            BASE,
            total_steps=N,
            pct_start=0.25,
            div_factor=10,
            final_div_factor=100,
            three_phase=True,
            anneal_strategy="linear",
            cycle_momentum=False,
        ),
        lambda o: cs.OneCycleLR(
            o,
            BASE / 10,
            BASE,
            total_steps=N,
            pct_start=0.25,
            final_div_factor=100,
            three_phase=True,
            anneal_strategy="linear",
        ),
    ),
}


@pytest.mark.parametrize("name", CLOSED_FORM_CASES)
def test_equals_torch_closed_form(name):
    make_torch, make_cadence = CLOSED_FORM_CASES[name]
    expected = torch_closed_form(make_torch(_optimizer()))
    stepped, vectorized = cadence_paths(make_cadence(_optimizer()))
    assert (stepped - expected).abs().max().item() <= 1e-12
    assert (vectorized - expected).abs().max().item() <= 1e-12


STEPPED_CASES = {
    "CosineAnnealingWarmRestarts-T_mult-1": (
        lambda o: torch_lrs.CosineAnnealingWarmRestarts(o, T_0=37, eta_min=0.001),
        lambda o: cs.CosineAnnealingWarmRestarts(o, BASE, T_0=37, eta_min=0.001),
    ),
    "CosineAnnealingWarmRestarts-T_mult-2": (
        lambda o: torch_lrs.CosineAnnealingWarmRestarts(o, T_0=7, T_mult=2, eta_min=0.001),
        lambda o: cs.CosineAnnealingWarmRestarts(o, BASE, T_0=7, T_mult=2, eta_min=0.001),
    ),
    "CosineAnnealingWarmRestarts-T_mult-3": (
        lambda o: torch_lrs.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=3),
        lambda o: cs.CosineAnnealingWarmRestarts(o, BASE, T_0=5, T_mult=3),
    ),
    "MultiplicativeLR": (
        lambda o: torch_lrs.MultiplicativeLR(o, lambda epoch: 0.9995),
        lambda o: cs.MultiplicativeLR(o, BASE, 0.9995),
    ),
}


@pytest.mark.parametrize("name", STEPPED_CASES)
def test_equals_torch_stepping(name):
    make_torch, make_cadence = STEPPED_CASES[name]
    expected = torch_stepped(make_torch(_optimizer()))
    stepped, vectorized = cadence_paths(make_cadence(_optimizer()))
    torch.testing.assert_close(stepped, expected, rtol=1e-9, atol=0.0)
    torch.testing.assert_close(vectorized, expected, rtol=1e-9, atol=0.0)


def test_one_cycle_holds_its_end_past_total_steps():
    scheduler = cs.OneCycleLR(_optimizer(), BASE / 25, BASE, total_steps=100)
    values = scheduler.values_at([99, 100, 150, 10_000])
    assert values.tolist() == [BASE / 25 / 1e4] * 4
