"""Properties over random arguments: the per-step float path equals the tensor closed form, decays stay
between their ends, and the stepped scheduler follows the closed form of its step."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers.cerebras as cs

relaxed = settings(deadline=None, max_examples=40)
rates = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)
periods = st.integers(min_value=1, max_value=5000)
steps = st.lists(st.integers(min_value=0, max_value=100_000), min_size=1, max_size=20)


def _optimizer():
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)


def _close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


FACTORIES = {
    "PolynomialLR": lambda o, a, b, n: cs.PolynomialLR(o, a, b, n, power=1.5, cycle=n % 2 == 0),
    "ExponentialLR": lambda o, a, b, n: cs.ExponentialLR(o, a, n, decay_rate=min(b, 1.0), staircase=n % 2 == 0),
    "InverseExponentialTimeDecayLR": lambda o, a, b, n: cs.InverseExponentialTimeDecayLR(o, a, 1.5, n, b),
    "InverseSquareRootDecayLR": lambda o, a, b, n: cs.InverseSquareRootDecayLR(o, a, b, n),
    "CosineDecayLR": lambda o, a, b, n: cs.CosineDecayLR(o, a, b, n),
    "PiecewiseConstantLR": lambda o, a, b, n: cs.PiecewiseConstantLR(o, [a, b, a + b], [n, 2 * n]),
    "MultiStepLR": lambda o, a, b, n: cs.MultiStepLR(o, a, min(b, 1.0), [n, n, 3 * n]),
    "StepLR": lambda o, a, b, n: cs.StepLR(o, a, n, min(b, 1.0)),
    "CosineAnnealingLR": lambda o, a, b, n: cs.CosineAnnealingLR(o, a, n, b),
    "CosineAnnealingWarmRestarts": lambda o, a, b, n: cs.CosineAnnealingWarmRestarts(o, a, n, 1 + n % 3, b),
    "CyclicLR": lambda o, a, b, n: cs.CyclicLR(
        o, a, b, n, n // 2 + 1, mode=("triangular", "triangular2", "exp_range")[n % 3], gamma=0.999
    ),
    "OneCycleLR": lambda o, a, b, n: cs.OneCycleLR(o, a, a + b, total_steps=n + 10, three_phase=n % 2 == 0),
    "SequentialLR": lambda o, a, b, n: cs.SequentialLR(
        o, [cs.LinearLR(o, 0.0, a, n), cs.CosineDecayLR(o, a, b, 2 * n)], [n]
    ),
    "ChainedScheduler": lambda o, a, b, n: cs.ChainedScheduler(
        [cs.CosineDecayLR(o, a, b, n), cs.StepLR(o, 1.0, n, 0.5)]
    ),
}


@pytest.mark.parametrize("name", FACTORIES)
@relaxed
@given(a=rates, b=rates, n=periods, at=steps)
def test_float_path_equals_tensor_closed_form(name, a, b, n, at):
    scheduler = FACTORIES[name](_optimizer(), a, b, n)
    vectorized = scheduler.values_at(at).tolist()
    per_step = scheduler.curve_for(None, 1.0)  # the curve step() evaluates, on floats
    for step, value in zip(at, vectorized, strict=True):
        assert _close(per_step(float(step)), value), (step, per_step(float(step)), value)


@relaxed
@given(a=rates, b=rates, n=periods, at=steps)
def test_decays_stay_between_their_ends(a, b, n, at):
    optimizer = _optimizer()
    low, high = min(a, b) - 1e-12, max(a, b) + 1e-12
    for scheduler in (
        cs.PolynomialLR(optimizer, a, b, n, power=2.0),
        cs.CosineDecayLR(optimizer, a, b, n),
        cs.CosineAnnealingLR(optimizer, a, n, b),
        cs.LinearLR(optimizer, a, b, n, cycle=True),
    ):
        values = scheduler.values_at(at)
        assert bool(((values >= low) & (values <= high)).all())


@settings(deadline=None, max_examples=15)
@given(a=rates, b=rates, n=st.integers(min_value=1, max_value=50), k=st.integers(min_value=0, max_value=200))
def test_the_stepped_value_is_the_closed_form_of_the_step(a, b, n, k):
    optimizer = _optimizer()
    scheduler = cs.SequentialLR(
        optimizer, [cs.LinearLR(optimizer, b, a, n), cs.CosineAnnealingWarmRestarts(optimizer, a, n, 2, b)], [n]
    )
    for _ in range(k):
        scheduler.step()
    assert int(scheduler.last_epoch) == k
    assert _close(optimizer.param_groups[0]["lr"], float(scheduler.values_at([k])[0]))
