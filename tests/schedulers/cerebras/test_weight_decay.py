"""The weight-decay classes (Cerebras 2.x names and arguments, writing ``weight_decay``) and
``param_group_tags`` on every class."""

from __future__ import annotations

import inspect

import pytest
import torch

import schedulers.cerebras as cs

# Cerebras 2.x cerebras/pytorch/optim/weight_decay_scheduler.py
WD_CLASSES = [
    "ConstantWD",
    "PolynomialWD",
    "LinearWD",
    "ExponentialWD",
    "InverseExponentialTimeDecayWD",
    "InverseSquareRootDecayWD",
    "CosineDecayWD",
    "SequentialWD",
    "PiecewiseConstantWD",
    "MultiStepWD",
    "StepWD",
    "CosineAnnealingWD",
    "LambdaWD",
    "CosineAnnealingWarmRestartsWD",
    "MultiplicativeWD",
    "ChainedWD",
    "CyclicWD",
    "OneCycleWD",
    "ScalePerParamWD",
]


def _untyped(cls: type) -> str:
    """The signature users call ``cls`` with, without the annotations the declared ``__init__`` carries."""
    signature = inspect.signature(cls)
    parameters = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=signature.empty))


def _optimizer(*group_tags, weight_decay=0.1):
    groups = [{"params": [torch.zeros(1, requires_grad=True)], "tags": tags} for tags in group_tags]
    return torch.optim.AdamW(groups, lr=1e-3, weight_decay=weight_decay)


def test_every_cerebras_wd_class_exists_with_generic_argument_names():
    for name in WD_CLASSES:
        cls = getattr(cs, name)
        assert issubclass(cls, cs.WeightDecayScheduler) and cls.param_group_key == "weight_decay"
        assert getattr(cs.optim.weight_decay_scheduler, name) is cls
    assert cs.WDScheduler is cs.WeightDecayScheduler
    assert _untyped(cs.ConstantWD).startswith("(optimizer, val, total_iters=None")
    assert _untyped(cs.CosineDecayWD).startswith("(optimizer, initial_val, end_val, total_iters")
    assert _untyped(cs.PiecewiseConstantWD).startswith("(optimizer, vals, milestones")
    assert _untyped(cs.CyclicWD).startswith("(optimizer, base_val, max_val, step_size_up=2000")
    assert _untyped(cs.OneCycleWD).startswith("(optimizer, initial_val, max_val, total_steps=1000")
    assert _untyped(cs.ChainedWD).startswith("(schedulers, param_group_tags=None")


def test_wd_scheduler_writes_weight_decay_not_lr():
    optimizer = _optimizer("a")
    scheduler = cs.CosineDecayWD(optimizer, initial_val=0.1, end_val=0.0, total_iters=10)
    for _ in range(5):
        scheduler.step()
    assert optimizer.param_groups[0]["weight_decay"] == pytest.approx(0.05)
    assert optimizer.param_groups[0]["lr"] == 1e-3
    assert scheduler.get_last_value() == [pytest.approx(0.05)]


def test_lr_and_wd_schedulers_side_by_side():
    optimizer = _optimizer("a")
    lr = cs.LinearLR(optimizer, 1e-3, 0.0, total_iters=10)
    wd = cs.PiecewiseConstantWD(optimizer, vals=[0.1, 0.01], milestones=[5])
    for _ in range(5):
        optimizer.step()
        lr.step()
        wd.step()
    group = optimizer.param_groups[0]
    assert group["lr"] == pytest.approx(5e-4) and group["weight_decay"] == 0.01


@pytest.mark.parametrize("group_tags", ["decay", ["decay", "big"], {"decay", "big"}])
def test_tags_select_groups_whose_tags_match(group_tags):
    optimizer = _optimizer(group_tags, ["no_decay"], None)
    scheduler = cs.ConstantWD(optimizer, 0.05, param_group_tags=["decay", "other"])
    assert [g["weight_decay"] for g in optimizer.param_groups] == [0.05, 0.1, 0.1]
    scheduler.step()
    assert scheduler.get_last_value() == [0.05, 0.1, 0.1]


def test_lr_classes_take_tags_too():
    optimizer = _optimizer("head", "body")
    cs.StepLR(optimizer, 0.5, 1, 0.5, param_group_tags="head").step()
    assert [g["lr"] for g in optimizer.param_groups] == [0.25, 1e-3]


def test_tags_matching_no_group_are_an_error_listing_the_tags():
    optimizer = _optimizer("decay", ["no_decay"])
    with pytest.raises(ValueError, match=r"no_decay"):
        cs.ConstantWD(optimizer, 0.05, param_group_tags="typo")
    with pytest.raises(ValueError, match="duplicate"):
        cs.ConstantWD(optimizer, 0.05, param_group_tags=["decay", "decay"])
    with pytest.raises(ValueError, match="param_group_tags"):
        cs.ConstantWD(optimizer, 0.05, param_group_tags=3)


def test_composites_need_the_same_tags_and_adopt_their_childrens():
    optimizer = _optimizer("decay", "no_decay")
    children = [
        cs.LinearWD(optimizer, 0.0, 0.1, total_iters=5, param_group_tags="decay"),
        cs.CosineDecayWD(optimizer, 0.1, 0.0, total_iters=5, param_group_tags="decay"),
    ]
    sequence = cs.SequentialWD(optimizer, children, milestones=[5])
    assert sequence.param_group_tags == frozenset({"decay"})
    for _ in range(5):
        sequence.step()
    assert [g["weight_decay"] for g in optimizer.param_groups] == [pytest.approx(0.1), 0.1]

    with pytest.raises(ValueError, match="param_group_tags"):
        cs.ChainedWD([cs.ConstantWD(optimizer, 0.1, param_group_tags="decay"), cs.ConstantWD(optimizer, 0.1)])
    with pytest.raises(ValueError, match="'lr'"):
        cs.SequentialWD(optimizer, [cs.ConstantWD(optimizer, 0.1), cs.ConstantLR(optimizer, 0.1)], [3])


def test_a_missing_key_is_an_error():
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    del optimizer.param_groups[0]["weight_decay"]
    with pytest.raises(ValueError, match="weight_decay"):
        cs.ConstantWD(optimizer, 0.1)


def test_scale_per_param_multiplies_each_groups_factor():
    optimizer = torch.optim.SGD(
        [
            {"params": [torch.zeros(1, requires_grad=True)], "adjust_learning_rate": 0.25},
            {"params": [torch.zeros(1, requires_grad=True)]},
        ],
        lr=1.0,
    )
    scheduler = cs.ScalePerParamLR(optimizer, cs.StepLR(optimizer, 1.0, 2, 0.5))
    assert [g["lr"] for g in optimizer.param_groups] == [0.25, 1.0]
    scheduler.step()
    scheduler.step()
    assert [g["lr"] for g in optimizer.param_groups] == [0.125, 0.5]
    assert scheduler.lr_adjustment_scalars == [0.25, 1.0]


def test_lambda_wd_needs_set_value_lambda():
    optimizer = _optimizer("a")
    with pytest.raises(NotImplementedError, match="set_value_lambda"):
        cs.LambdaWD(optimizer, 0.1)

    class Halving(cs.LambdaWD):
        def set_value_lambda(self):
            return lambda step: 0.5**step

    scheduler = Halving(optimizer, 0.1)
    scheduler.step()
    assert optimizer.param_groups[0]["weight_decay"] == pytest.approx(0.05)
