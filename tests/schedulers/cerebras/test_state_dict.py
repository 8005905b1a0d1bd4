"""state_dict()/load_state_dict(): a mid-run round trip (through torch.save / torch.load(weights_only=True))
gives identical next values, composites included; the state holds plain data only."""

from __future__ import annotations

import io
import warnings

import pytest
import torch

import schedulers.cerebras as cs
from schedulers import SchedulerState


class Halving(cs.LRScheduler):
    def __init__(self, optimizer, every, last_epoch=-1):
        self.every = every
        super().__init__(optimizer, total_iters=None, last_epoch=last_epoch)

    def _get_closed_form(self):  # Cerebras 2.x's hook name
        return 0.1 * torch.pow(0.5, torch.div(self.last_epoch, self.every, rounding_mode="floor"))


FACTORIES = {
    "ConstantLR": lambda o: cs.ConstantLR(o, 0.1, total_iters=5),
    "PolynomialLR": lambda o: cs.PolynomialLR(o, 0.1, 0.01, 20, power=2.0, cycle=True),
    "LinearLR": lambda o: cs.LinearLR(o, 0.1, 0.0, 20),
    "ExponentialLR": lambda o: cs.ExponentialLR(o, 0.1, 5, 0.5),
    "InverseExponentialTimeDecayLR": lambda o: cs.InverseExponentialTimeDecayLR(o, 0.1, 2, 10, 0.5),
    "InverseSquareRootDecayLR": lambda o: cs.InverseSquareRootDecayLR(o, 0.1, 2.0, 4),
    "CosineDecayLR": lambda o: cs.CosineDecayLR(o, 0.1, 0.0, "20ba"),
    "PiecewiseConstantLR": lambda o: cs.PiecewiseConstantLR(o, [0.1, 0.05, 0.01], [3, 9]),
    "MultiStepLR": lambda o: cs.MultiStepLR(o, 0.1, 0.5, [3, 6, 12]),
    "StepLR": lambda o: cs.StepLR(o, 0.1, 3, 0.5),
    "CosineAnnealingLR": lambda o: cs.CosineAnnealingLR(o, 0.1, 5, 0.01),
    "CosineAnnealingWarmRestarts": lambda o: cs.CosineAnnealingWarmRestarts(o, 0.1, 3, 2, 0.01),
    "MultiplicativeLR": lambda o: cs.MultiplicativeLR(o, 0.1, 0.9),
    "CyclicLR": lambda o: cs.CyclicLR(o, 0.01, 0.1, 4, 2),
    "OneCycleLR": lambda o: cs.OneCycleLR(o, 0.004, 0.1, total_steps=30),
    "user subclass": lambda o: Halving(o, 4),
    "SequentialLR": lambda o: cs.SequentialLR(
        o,
        [cs.LinearLR(o, 0.0, 0.1, 5), cs.ChainedScheduler([cs.CosineDecayLR(o, 0.1, 0.0, 20), Halving(o, 3)])],
        milestones=[5],
    ),
    "ChainedScheduler": lambda o: cs.ChainedScheduler([cs.LinearLR(o, 0.0, 0.1, 5), cs.StepLR(o, 1.0, 4, 0.5)]),
    "ScalePerParamLR": lambda o: cs.ScalePerParamLR(o, cs.StepLR(o, 0.1, 3, 0.5)),
    "CosineDecayWD": lambda o: cs.CosineDecayWD(o, 0.1, 0.0, 20),
    "time strings": lambda o: cs.CosineDecayLR(o, 0.1, 0.0, "0.5dur", state=SchedulerState("4ep", dataloader_len=10)),
}


def _optimizer():
    return torch.optim.SGD(
        [
            {"params": [torch.zeros(1, requires_grad=True)], "adjust_learning_rate": 0.5},
            {"params": [torch.zeros(1, requires_grad=True)]},
        ],
        lr=0.1,
        weight_decay=0.1,
    )


def _values(scheduler, steps):
    key = scheduler.param_group_key
    values = []
    for _ in range(steps):
        scheduler.step()
        values.append([group[key] for group in scheduler.optimizer.param_groups])
    return values


def _assert_plain(value, where="state"):
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, (str, int)), where
            _assert_plain(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _assert_plain(item, f"{where}[{i}]")
    else:
        assert value is None or isinstance(value, (bool, int, float, str, torch.Tensor)), (where, type(value))


@pytest.mark.parametrize("name", FACTORIES)
def test_round_trip_mid_run_gives_identical_next_values(name):
    make = FACTORIES[name]
    original = make(_optimizer())
    for _ in range(7):
        original.step()
    state = original.state_dict()
    _assert_plain(state)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)

    resumed = make(_optimizer())
    resumed.load_state_dict(loaded)
    assert int(resumed.last_epoch) == 7
    key = original.param_group_key
    assert [g[key] for g in resumed.optimizer.param_groups] == [g[key] for g in original.optimizer.param_groups]
    assert _values(resumed, 12) == _values(original, 12)


def test_composite_state_holds_children_and_their_steps():
    optimizer = _optimizer()
    scheduler = cs.SequentialLR(
        optimizer, [cs.LinearLR(optimizer, 0.0, 0.1, 5), cs.StepLR(optimizer, 0.1, 2, 0.5)], [5]
    )
    for _ in range(8):
        scheduler.step()
    state = scheduler.state_dict()
    assert [int(child["last_epoch"]) for child in state["_schedulers"]] == [8, 3]
    assert state["arguments"]["milestones"] == [5]
    children = scheduler._schedulers
    assert [int(child.last_epoch) for child in children] == [0, 0]  # saving reads the steps, writes no child


def test_loading_does_not_mutate_the_state_dict_and_checks_children():
    optimizer = _optimizer()
    scheduler = cs.ChainedScheduler([cs.ConstantLR(optimizer, 0.1), cs.StepLR(optimizer, 1.0, 2, 0.5)])
    scheduler.step()
    state = scheduler.state_dict()
    snapshot = repr(state)
    scheduler.load_state_dict(state)
    assert repr(state) == snapshot
    other = cs.ChainedScheduler([cs.ConstantLR(optimizer, 0.1)])
    with pytest.raises(ValueError, match="child schedulers"):
        other.load_state_dict(state)
    with pytest.raises(ValueError, match="last_epoch"):
        other.load_state_dict({"lr": 0.1})


def test_changed_arguments_warn_and_the_constructor_wins():
    optimizer = _optimizer()
    saved = cs.StepLR(optimizer, 0.1, 3, 0.5)
    for _ in range(6):
        saved.step()
    resumed = cs.StepLR(optimizer, 0.2, 3, 0.5)
    with pytest.warns(UserWarning, match="initial_learning_rate: 0.1 -> 0.2"):
        resumed.load_state_dict(saved.state_dict())
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.05)


def test_a_cerebras_style_state_dict_with_an_int_step_loads():
    optimizer = _optimizer()
    scheduler = cs.StepLR(optimizer, 0.1, 3, 0.5)
    scheduler.load_state_dict({"last_epoch": 6, "_step_count": 7, "initial_learning_rate": 0.1})
    assert scheduler.last_epoch.dtype == torch.int64 and int(scheduler.last_epoch) == 6
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.025)


def test_a_sequence_of_time_string_children_resolved_by_its_state_reloads_mid_run():
    """Children given time strings and no state are resolved by their sequence's state; loading a checkpoint into
    a fresh such sequence writes the checkpoint's step's value (it recursed without end before)."""

    def build(optimizer):
        children = [cs.LinearLR(optimizer, 0.0, 0.1, "5ba"), cs.CosineDecayLR(optimizer, 0.1, 0.0, "0.5dur")]
        return cs.SequentialLR(optimizer, children, state=SchedulerState("30ba"))

    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = build(optimizer)
    for _ in range(11):
        scheduler.step()
    expected = optimizer.param_groups[0]["lr"]
    other = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    fresh = build(other)
    fresh.load_state_dict(scheduler.state_dict())
    assert 0.0 < expected < 0.1
    assert other.param_groups[0]["lr"] == pytest.approx(expected, rel=1e-12)
    assert int(fresh.last_epoch) == 11


def test_a_checkpoint_saved_with_other_arguments_warns_and_equal_ones_do_not():
    """Arguments compared by value (given as a float64 tensor, against a list): equal ones restore silently,
    changed ones warn, naming each, and the scheduler keeps its own."""
    saved = cs.PiecewiseConstantLR(_optimizer(), torch.tensor([0.1, 0.05], dtype=torch.float64), [3])
    for _ in range(4):
        saved.step()
    state = saved.state_dict()
    same = cs.PiecewiseConstantLR(_optimizer(), [0.1, 0.05], [3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same.load_state_dict(state)
    changed = cs.PiecewiseConstantLR(_optimizer(), [0.1, 0.02], [3])
    with pytest.warns(UserWarning, match=r"other arguments \(learning_rates: \[0\.1, 0\.05\] -> \[0\.1, 0\.02\]\)"):
        changed.load_state_dict(state)
    assert int(changed.last_epoch) == 4 and changed.get_last_lr() == [0.02, 0.02]  # its own values, at step 4
