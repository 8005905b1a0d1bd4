"""Each Cerebras learning-rate class at its boundaries (0, warmup end, milestones, total_iters, past the
horizon), with the expected values computed by hand from the documented formulas."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

import schedulers.cerebras as cs

TOL = 1e-12


def _untyped(cls: type) -> str:
    """The signature users call ``cls`` with, without the annotations the declared ``__init__`` carries."""
    signature = inspect.signature(cls)
    parameters = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=signature.empty))


class TwoLambdas(cs.LambdaLR):
    """Cerebras's demo lambdas, as a user subclass (the base LambdaLR has none)."""

    def set_lr_lambda(self):
        return [
            lambda epoch: torch.div(epoch, 30),
            lambda epoch: torch.pow(torch.tensor(0.95, dtype=torch.float64), epoch),
        ]


# (name, factory(optimizer), {step: expected lr})
CASES = [
    ("constant", lambda o: cs.ConstantLR(o, 0.3, total_iters=5), {0: 0.3, 5: 0.3, 100: 0.3}),
    (
        "polynomial",
        lambda o: cs.PolynomialLR(o, 1.0, 0.1, total_iters=10, power=2.0),
        {0: 1.0, 5: 0.1 + 0.9 * 0.25, 9: 0.1 + 0.9 * 0.01, 10: 0.1, 20: 0.1},
    ),
    (
        "polynomial-cycle",  # TF PolynomialDecay(cycle=True): horizon T * ceil(t / T), T at t = 0
        lambda o: cs.PolynomialLR(o, 1.0, 0.1, total_iters=10, power=2.0, cycle=True),
        {0: 1.0, 5: 0.325, 10: 0.1, 15: 0.1 + 0.9 * 0.25**2, 20: 0.1, 21: 0.1 + 0.9 * 0.3**2, 30: 0.1},
    ),
    ("linear", lambda o: cs.LinearLR(o, 0.0, 1.0, total_iters=4), {0: 0.0, 1: 0.25, 3: 0.75, 4: 1.0, 9: 1.0}),
    (
        "linear-cycle",
        lambda o: cs.LinearLR(o, 0.0, 1.0, total_iters=4, cycle=True),
        {4: 1.0, 5: 5 / 8, 6: 0.75, 8: 1.0},
    ),
    (
        "exponential",
        lambda o: cs.ExponentialLR(o, 1.0, total_iters=10, decay_rate=0.5),
        {0: 1.0, 5: 0.5**0.5, 10: 0.5, 25: 0.5**2.5},
    ),
    (
        "exponential-staircase",
        lambda o: cs.ExponentialLR(o, 1.0, total_iters=10, decay_rate=0.5, staircase=True),
        {0: 1.0, 9: 1.0, 10: 0.5, 25: 0.25},
    ),
    (
        "inverse-time",
        lambda o: cs.InverseExponentialTimeDecayLR(o, 1.0, step_exponent=2, total_iters=10, decay_rate=0.5),
        {0: 1.0, 3: 1 / 1.45, 10: 1 / 6},
    ),
    (
        "inverse-time-staircase",
        lambda o: cs.InverseExponentialTimeDecayLR(o, 1.0, 2, 10, 0.5, staircase=True),
        {0: 1.0, 3: 1.0, 4: 1 / 1.5, 10: 1 / 6},
    ),
    (
        "inverse-sqrt",
        lambda o: cs.InverseSquareRootDecayLR(o, 2.0, scale=3.0, warmup_steps=4),
        {0: 3.0, 4: 3.0, 16: 1.5, 100: 0.6},
    ),
    ("inverse-sqrt-defaults", lambda o: cs.InverseSquareRootDecayLR(o), {0: 1.0, 1: 1.0, 4: 0.5}),
    ("cosine-decay", lambda o: cs.CosineDecayLR(o, 1.0, 0.1, total_iters=10), {0: 1.0, 5: 0.55, 10: 0.1, 15: 0.1}),
    (
        "piecewise",
        lambda o: cs.PiecewiseConstantLR(o, [1.0, 0.5, 0.1], [3, 7]),
        {0: 1.0, 2: 1.0, 3: 0.5, 6: 0.5, 7: 0.1, 100: 0.1},
    ),
    ("multistep", lambda o: cs.MultiStepLR(o, 1.0, 0.1, [3, 7]), {0: 1.0, 2: 1.0, 3: 0.1, 7: 0.01, 50: 0.01}),
    ("multistep-repeated", lambda o: cs.MultiStepLR(o, 1.0, 0.5, [7, 3, 7]), {3: 0.5, 7: 0.125}),
    ("step", lambda o: cs.StepLR(o, 1.0, 3, 0.5), {0: 1.0, 2: 1.0, 3: 0.5, 6: 0.25, 10: 0.125}),
    (
        "cosine-annealing",  # past T_max the cosine continues back up (torch's closed form)
        lambda o: cs.CosineAnnealingLR(o, 1.0, T_max=10, eta_min=0.1),
        {0: 1.0, 5: 0.55, 10: 0.1, 15: 0.55, 20: 1.0, 25: 0.55},
    ),
    ("lambda", lambda o: TwoLambdas(o, 2.0), {0: 0.0, 30: 2.0 * 0.95**30, 60: 4.0 * 0.95**60}),
    (
        "warm-restarts",  # periods [0, 4), [4, 12), [12, 28)
        lambda o: cs.CosineAnnealingWarmRestarts(o, 1.0, T_0=4, T_mult=2),
        {0: 1.0, 2: 0.5, 4: 1.0, 8: 0.5, 11: 0.5 * (1 + math.cos(math.pi * 7 / 8)), 12: 1.0, 20: 0.5, 28: 1.0},
    ),
    (
        "warm-restarts-1",  # documented SGDR, not Cerebras's square wave
        lambda o: cs.CosineAnnealingWarmRestarts(o, 1.0, T_0=4, eta_min=0.2),
        {0: 1.0, 2: 0.6, 4: 1.0, 6: 0.6, 8: 1.0, 402: 0.6},
    ),
    ("multiplicative", lambda o: cs.MultiplicativeLR(o, 1.0, 0.9), {0: 1.0, 1: 0.9, 3: 0.729}),
    (
        "cyclic",
        lambda o: cs.CyclicLR(o, 0.1, 1.0, step_size_up=4, step_size_down=2),
        {0: 0.1, 2: 0.55, 4: 1.0, 5: 0.55, 6: 0.1, 10: 1.0},
    ),
    (
        "cyclic-triangular2",
        lambda o: cs.CyclicLR(o, 0.1, 1.0, step_size_up=4, step_size_down=2, mode="triangular2"),
        {4: 1.0, 6: 0.1, 10: 0.55, 16: 0.325},
    ),
    (
        "cyclic-exp-range",
        lambda o: cs.CyclicLR(o, 0.1, 1.0, step_size_up=4, mode="exp_range", gamma=0.5),
        {0: 0.1, 4: 0.1 + 0.9 * 0.5**4, 8: 0.1},
    ),
    (
        "one-cycle",
        lambda o: cs.OneCycleLR(o, 0.04, 1.0, total_steps=100, anneal_strategy="linear"),
        {0: 0.04, 29: 1.0, 64: 1.0 + (4e-6 - 1.0) * 0.5, 99: 4e-6, 150: 4e-6},
    ),
    (
        "one-cycle-three-phase",
        lambda o: cs.OneCycleLR(o, 0.04, 1.0, total_steps=100, three_phase=True),
        {0: 0.04, 29: 1.0, 58: 0.04, 99: 4e-6},
    ),
    (
        "sequential",
        lambda o: cs.SequentialLR(o, [cs.LinearLR(o, 0.0, 1.0, 5), cs.CosineDecayLR(o, 1.0, 0.0, 10)], [5]),
        {0: 0.0, 4: 0.8, 5: 1.0, 10: 0.5, 15: 0.0, 30: 0.0},
    ),
    (
        "chained",
        lambda o: cs.ChainedScheduler([cs.ConstantLR(o, 0.5), cs.StepLR(o, 2.0, 3, 0.5)]),
        {0: 0.5, 2: 0.5, 3: 0.25, 9: 0.0625},
    ),
]


@pytest.mark.parametrize("name, factory, expected", CASES, ids=[c[0] for c in CASES])
def test_values_at_boundaries(name, factory, expected, optimizer, helpers):
    scheduler = factory(optimizer)
    lrs = helpers.run(scheduler, max(expected) + 1)
    for step, value in expected.items():
        assert lrs[step] == pytest.approx(value, abs=TOL, rel=TOL), f"{name} at step {step}"
    # the stepped path (floats) and the closed form on a tensor agree
    vectorized = scheduler.values_at(sorted(expected))
    assert vectorized.dtype == torch.float64
    assert vectorized.tolist() == pytest.approx([expected[s] for s in sorted(expected)], abs=TOL, rel=TOL)
    assert float(scheduler._get_closed_form_lr()) == pytest.approx(scheduler.get_last_lr()[0], abs=TOL, rel=TOL)


def test_the_18_classes_with_their_signatures():

    expected = {
        "ConstantLR": "(optimizer, learning_rate, total_iters=None",
        "PolynomialLR": "(optimizer, initial_learning_rate, end_learning_rate, total_iters, power=1.0, cycle=False",
        "LinearLR": "(optimizer, initial_learning_rate, end_learning_rate, total_iters, cycle=False",
        "ExponentialLR": "(optimizer, initial_learning_rate, total_iters, decay_rate, staircase=False",
        "InverseExponentialTimeDecayLR": (
            "(optimizer, initial_learning_rate, step_exponent, total_iters, decay_rate, staircase=False"
        ),
        "InverseSquareRootDecayLR": "(optimizer, initial_learning_rate=1.0, scale=1.0, warmup_steps=1.0",
        "CosineDecayLR": "(optimizer, initial_learning_rate, end_learning_rate, total_iters",
        "SequentialLR": "(optimizer, schedulers, milestones=None, last_epoch=-1",
        "PiecewiseConstantLR": "(optimizer, learning_rates, milestones",
        "MultiStepLR": "(optimizer, initial_learning_rate, gamma, milestones",
        "StepLR": "(optimizer, initial_learning_rate, step_size, gamma",
        "CosineAnnealingLR": "(optimizer, initial_learning_rate, T_max, eta_min=0.0",
        "LambdaLR": "(optimizer, initial_learning_rate",
        "CosineAnnealingWarmRestarts": "(optimizer, initial_learning_rate, T_0, T_mult=1, eta_min=0.0",
        "MultiplicativeLR": "(optimizer, initial_learning_rate, coefficient",
        "ChainedScheduler": "(schedulers",
        "CyclicLR": (
            "(optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular', gamma=1.0, "
            "scale_mode='cycle'"
        ),
        "OneCycleLR": (
            "(optimizer, initial_learning_rate, max_lr, total_steps=1000, pct_start=0.3, final_div_factor=10000.0, "
            "three_phase=False, anneal_strategy='cos'"
        ),
        "LRScheduler": "(optimizer, total_iters, last_epoch=-1",
    }
    for name, prefix in expected.items():
        signature = _untyped(getattr(cs, name))
        assert signature.startswith(prefix), (name, signature)
        assert signature.endswith("param_group_tags=None, *, state=None)"), (name, signature)
        assert getattr(cs.optim.lr_scheduler, name) is getattr(cs, name)


def test_stepping_contract(optimizer):
    scheduler = cs.StepLR(optimizer, 1.0, 2, 0.5)
    assert isinstance(scheduler, torch.optim.lr_scheduler.LRScheduler)
    assert isinstance(scheduler.last_epoch, torch.Tensor)
    assert scheduler.last_epoch.dtype == torch.int64 and scheduler.last_epoch.dim() == 0
    assert int(scheduler.last_epoch) == 0 and scheduler.get_last_lr() == [1.0]
    for _ in range(4):
        optimizer.step()
        scheduler.step()
    assert int(scheduler.last_epoch) == 4 and scheduler.get_last_lr() == [0.25] == scheduler.get_last_value()
    assert scheduler.get_lr() == [0.25]
    with pytest.warns(UserWarning, match="deprecated"):
        scheduler.step(1)
    assert optimizer.param_groups[0]["lr"] == 1.0


def test_last_epoch_argument_starts_after_that_step(optimizer):
    scheduler = cs.SequentialLR(
        optimizer, [cs.ConstantLR(optimizer, 1.0), cs.ConstantLR(optimizer, 0.5)], [3], last_epoch=4
    )
    assert int(scheduler.last_epoch) == 5 and optimizer.param_groups[0]["lr"] == 0.5


def test_absolute_lr_in_every_group_and_tensor_lr_updated_in_place():
    lr = torch.tensor(0.5)
    optimizer = torch.optim.SGD(
        [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr}, {"params": [torch.zeros(1, requires_grad=True)]}],
        lr=0.1,
    )
    scheduler = cs.StepLR(optimizer, 1.0, 1, 0.5)
    assert optimizer.param_groups[0]["lr"] is lr and float(lr) == 1.0
    assert optimizer.param_groups[1]["lr"] == 1.0
    scheduler.step()
    assert float(lr) == 0.5 and optimizer.param_groups[1]["lr"] == 0.5


def test_lambda_base_needs_set_lr_lambda(optimizer):
    with pytest.raises(NotImplementedError, match="set_lr_lambda"):
        cs.LambdaLR(optimizer, 1.0)

    class ViaValueLambda(cs.LambdaLR):  # Cerebras 2.x's hook name works too
        def set_value_lambda(self):
            return lambda step: 1.0 / (1.0 + step)

    scheduler = ViaValueLambda(optimizer, 2.0)
    scheduler.step()
    assert optimizer.param_groups[0]["lr"] == 1.0


def test_multiplicative_lambda_can_be_overridden(optimizer):
    class Halving(cs.MultiplicativeLR):
        def set_lr_lambda(self):
            return lambda step: 0.5

    scheduler = Halving(optimizer, 1.0, coefficient=0.9)
    assert scheduler.values_at([0, 1, 3]).tolist() == [1.0, 0.5, 0.125]


@pytest.mark.parametrize(
    "factory, match",
    [
        (lambda o: cs.LinearLR(o, 1.0, 0.0, total_iters=0), "total_iters=0"),
        (lambda o: cs.CosineDecayLR(o, 1.0, 0.0, total_iters=-3), "total_iters"),
        (lambda o: cs.ExponentialLR(o, 1.0, 10, decay_rate=-0.5), "decay_rate"),
        (lambda o: cs.StepLR(o, 1.0, 0, 0.5), "step_size"),
        (lambda o: cs.StepLR(o, 1.0, 3, -0.5), "gamma"),
        (lambda o: cs.CosineAnnealingLR(o, 1.0, T_max=0), "T_max"),
        (lambda o: cs.CosineAnnealingWarmRestarts(o, 1.0, T_0=10, T_mult=1.5), "T_mult"),
        (lambda o: cs.CosineAnnealingWarmRestarts(o, 1.0, T_0=10, T_mult=0), "T_mult"),
        (lambda o: cs.MultiplicativeLR(o, 1.0, coefficient=-1.0), "coefficient"),
        (lambda o: cs.CyclicLR(o, 0.1, 1.0, mode="sine"), "mode"),
        (lambda o: cs.CyclicLR(o, 0.1, 1.0, scale_mode="epoch"), "scale_mode"),
        (lambda o: cs.OneCycleLR(o, 0.1, 1.0, anneal_strategy="exp"), "anneal_strategy"),
        (lambda o: cs.OneCycleLR(o, 0.1, 1.0, total_steps=10, pct_start=0.1), "pct_start"),
        (lambda o: cs.PiecewiseConstantLR(o, [1.0, 0.5], [3, 7]), "one more value"),
        (lambda o: cs.PiecewiseConstantLR(o, [1.0, 0.5, 0.1], [7, 3]), "increasing"),
        (lambda o: cs.InverseSquareRootDecayLR(o, warmup_steps=0), "warmup_steps"),
        (lambda o: cs.PolynomialLR(o, 1.0, 0.0, 10, power=-1.0), "power"),
        (lambda o: cs.ConstantLR(o, "0.1"), "learning_rate"),
        (lambda o: cs.LinearLR(o, float("nan"), 0.0, 10), "initial_learning_rate"),
        (lambda o: cs.SequentialLR(o, [cs.ConstantLR(o, 1.0)], [3]), "one milestone fewer"),
        (lambda o: cs.SequentialLR(o, [], []), "must not be empty"),
    ],
)
def test_invalid_arguments_are_value_errors_naming_them(factory, match, optimizer):
    with pytest.raises(ValueError, match=match):
        factory(optimizer)


def test_one_rule_says_what_a_resolved_step_count_is():
    from schedulers.families.cerebras import is_step_count

    for value in (True, False, -1, -0.5, math.inf, math.nan, "3", None):
        assert not is_step_count(value) and not is_step_count(value, positive=True), value
    assert is_step_count(0) and is_step_count(0.0) and not is_step_count(0, positive=True)
    assert is_step_count(2.5, positive=True) and is_step_count(10**12, positive=True)


@pytest.mark.parametrize("bad", [-1, -0.5])
def test_a_negative_step_count_is_refused_with_its_name_wherever_it_is_checked(bad, optimizer):
    with pytest.raises(ValueError, match=r"^LinearLR: total_iters=.* must be a number of steps > 0$"):
        cs.LinearLR(optimizer, 1.0, 0.0, total_iters=bad)
    with pytest.raises(ValueError, match=r"^MultiStepLR: milestones\[1\]=.* must be a number of steps >= 0$"):
        cs.MultiStepLR(optimizer, 1.0, 0.5, milestones=[2, bad])
    with pytest.raises(ValueError, match=r"^CyclicLR: step_size_down=.* must be None or a number of steps >= 0$"):
        cs.CyclicLR(optimizer, 0.1, 1.0, step_size_up=2, step_size_down=bad)
    children = [cs.ConstantLR(optimizer, 1.0), cs.ConstantLR(optimizer, 0.5)]
    with pytest.raises(ValueError, match=r"^SequentialLR: milestones\[0\]=.* must be a number of steps >= 0$"):
        cs.SequentialLR(optimizer, children, [bad])
    with pytest.raises(ValueError, match=r"^LinearLR: total_iters=0 must be a number of steps > 0$"):
        cs.LinearLR(optimizer, 1.0, 0.0, total_iters=0)


def test_milestones_out_of_order_or_not_a_list_are_refused_with_the_class_and_argument(optimizer):
    three = [cs.ConstantLR(optimizer, 1.0), cs.ConstantLR(optimizer, 0.5), cs.ConstantLR(optimizer, 0.1)]
    with pytest.raises(ValueError, match=r"^SequentialLR: milestones=\[5, 3\] must be increasing$"):
        cs.SequentialLR(optimizer, three, [5, 3])
    assert cs.SequentialLR(optimizer, three, [3, 3]).milestones == [3, 3]  # a child may last 0 steps
    with pytest.raises(ValueError, match=r"^PiecewiseConstantLR: milestones=\[3, 3\] must be strictly increasing$"):
        cs.PiecewiseConstantLR(optimizer, [1.0, 0.5, 0.1], [3, 3])
    with pytest.raises(ValueError, match=r"^SequentialLR: milestones='ab' must be a list of step counts$"):
        cs.SequentialLR(optimizer, three[:2], "ab")
    assert cs.SequentialLR(optimizer, three[:2], (4,)).milestones == [4]


def test_zero_and_whole_floats_are_step_counts_where_zero_is_allowed(optimizer):
    assert cs.MultiStepLR(optimizer, 1.0, 0.5, milestones=[0, 2.0]).values_at([0, 2]).tolist() == [0.5, 0.25]
    assert cs.CyclicLR(optimizer, 0.1, 1.0, step_size_up=2, step_size_down=0).step_size_down == 0
    children = [cs.ConstantLR(optimizer, 1.0), cs.ConstantLR(optimizer, 0.5)]
    assert cs.SequentialLR(optimizer, children, [0]).values_at([0]).tolist() == [0.5]


def test_not_an_optimizer_is_a_type_error():
    with pytest.raises(TypeError, match="Optimizer"):
        cs.ConstantLR(object(), 0.1)
