"""A Cerebras scheduler whose values would go below 0 is a ValueError naming the class and the argument
(issue 11 item 8), in the learning-rate and the weight-decay families and through configure_lr_scheduler."""

from __future__ import annotations

import pytest
import torch

import schedulers.cerebras as cs


def _optimizer():
    return torch.optim.AdamW([torch.zeros(1, requires_grad=True)], lr=1.0, weight_decay=1.0)


# (class name, keyword arguments with one negative value, the argument the error must name)
CASES = [
    ("ConstantLR", dict(learning_rate=-0.1), "learning_rate"),
    ("ConstantWD", dict(val=-0.1), "val"),
    ("LinearLR", dict(initial_learning_rate=0.1, end_learning_rate=-0.1, total_iters=10), "end_learning_rate"),
    ("LinearWD", dict(initial_val=-0.1, end_val=0.0, total_iters=10), "initial_val"),
    ("PolynomialLR", dict(initial_learning_rate=-1e-9, end_learning_rate=0.0, total_iters=10), "initial_learning_rate"),
    ("CosineDecayWD", dict(initial_val=0.1, end_val=-0.01, total_iters=10), "end_val"),
    ("ExponentialLR", dict(initial_learning_rate=-0.1, total_iters=10, decay_rate=0.5), "initial_learning_rate"),
    (
        "InverseExponentialTimeDecayWD",
        dict(initial_val=-0.1, step_exponent=1.0, total_iters=10, decay_rate=0.5),
        "initial_val",
    ),
    ("InverseSquareRootDecayLR", dict(initial_learning_rate=0.1, scale=-1.0), "scale"),
    ("PiecewiseConstantLR", dict(learning_rates=[0.1, -0.01], milestones=[5]), r"learning_rates\[1\]"),
    ("PiecewiseConstantWD", dict(vals=[-0.1, 0.01], milestones=[5]), r"vals\[0\]"),
    ("MultiStepLR", dict(initial_learning_rate=-0.1, gamma=0.5, milestones=[5]), "initial_learning_rate"),
    ("StepWD", dict(initial_val=-0.1, step_size=5, gamma=0.5), "initial_val"),
    ("CosineAnnealingLR", dict(initial_learning_rate=0.1, T_max=10, eta_min=-0.01), "eta_min"),
    ("CosineAnnealingWarmRestartsWD", dict(initial_val=-0.1, T_0=10), "initial_val"),
    ("MultiplicativeLR", dict(initial_learning_rate=-0.1, coefficient=0.9), "initial_learning_rate"),
    ("CyclicLR", dict(base_lr=-0.01, max_lr=0.1), "base_lr"),
    ("CyclicWD", dict(base_val=0.0, max_val=-0.1), "max_val"),
    ("OneCycleLR", dict(initial_learning_rate=0.01, max_lr=-0.1), "max_lr"),
    ("LambdaWD", dict(initial_val=-0.1), "initial_val"),
]


@pytest.mark.parametrize("name, kwargs, argument", CASES, ids=[case[0] + "-" + case[2] for case in CASES])
def test_a_negative_value_is_an_error_naming_class_and_argument(name, kwargs, argument):
    optimizer = _optimizer()
    with pytest.raises(ValueError, match=rf"^{name}: {argument}=-[\d.e-]+ must be >= 0 \(the (lr|weight_decay) it"):
        getattr(cs, name)(optimizer, **kwargs)
    assert optimizer.param_groups[0]["lr"] == 1.0 and optimizer.param_groups[0]["weight_decay"] == 1.0


def test_zero_is_accepted():
    optimizer = _optimizer()
    cs.LinearLR(optimizer, initial_learning_rate=0.0, end_learning_rate=0.0, total_iters=3)
    cs.PiecewiseConstantWD(optimizer, vals=[0.0, 0.0], milestones=[2])
    assert optimizer.param_groups[0]["lr"] == 0.0 and optimizer.param_groups[0]["weight_decay"] == 0.0


def test_configure_lr_scheduler_reports_where():
    config = {"scheduler": "CosineDecay", "initial_learning_rate": 0.1, "end_learning_rate": -0.1, "total_iters": 9}
    with pytest.raises(ValueError, match=r"^learning_rate: CosineDecayLR: end_learning_rate=-0.1 must be >= 0"):
        cs.configure_lr_scheduler(_optimizer(), config)
    with pytest.raises(ValueError, match=r"ConstantLR: learning_rate=-0.5 must be >= 0"):
        cs.configure_lr_scheduler(_optimizer(), -0.5)


@pytest.mark.parametrize("name", ["ScalePerParamLR", "ScalePerParamWD"])
def test_a_negative_per_group_factor_is_an_error(name):
    optimizer = torch.optim.AdamW(
        [{"params": [torch.zeros(1, requires_grad=True)], "adjust_learning_rate": -2.0}], lr=1.0, weight_decay=1.0
    )
    child = getattr(cs, name.replace("ScalePerParam", "Constant"))(optimizer, 0.1)
    with pytest.raises(ValueError, match=rf"^{name}: param_groups\[0\]\['adjust_learning_rate'\]=-2.0 must be >= 0"):
        getattr(cs, name)(optimizer, child)
