"""SambaFlow's schedules (docs/sambaflow.md, docs/resume.md, docs/trainer.md, docs/schedules.md)."""

from __future__ import annotations

import copy
import doctest
import io
import math
import pickle

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers.sambaflow
import schedulers.sambaflow.args
import schedulers.sambaflow.schedules
from schedulers.core.names import get_scheduler
from schedulers.sambaflow import (
    SambaFlowLambda,
    cosine_schedule_with_warmup,
    fixed_lr,
    get_cosine_schedule_with_warmup,
    get_fixed_lr,
    get_polynomial_decay_schedule_with_warmup,
    polynomial_decay_schedule_with_warmup,
)

# ------------------------------------------------------------------ hand formulas (written independently)


def cosine_hand(k, warmup, total, end_ratio=0.1, cycles=0.5):
    if warmup > 0 and k <= warmup:
        return k / warmup
    p = min((k - warmup) / max(1, total - warmup), 1.0)
    return end_ratio + (1 - end_ratio) * 0.5 * (1.0 + math.cos(math.pi * 2.0 * cycles * p))


def linear_hand(k, warmup, total, end_ratio=0.0):
    if warmup > 0 and k <= warmup:
        return k / warmup
    p = min((k - warmup) / max(1, total - warmup), 1.0)
    return end_ratio + (1 - end_ratio) * (1.0 - p)


def optimizer(lr=1.0, groups=1):
    params = [{"params": [torch.zeros(2, requires_grad=True)], "lr": lr * (i + 1)} for i in range(groups)]
    return torch.optim.SGD(params, lr=lr)


def lrs_over(sched, steps):
    """The first group's lr after 0, 1, ..., steps - 1 calls to step()."""
    out = []
    for _ in range(steps):
        out.append(sched.optimizer.param_groups[0]["lr"])
        sched.optimizer.step()
        sched.step()
    return out


# ----------------------------------------------------------------------------------- endpoints


@pytest.mark.parametrize("end_ratio", [0.0, 0.1, 0.25, 1 / 3, 0.5, 1.0])
@pytest.mark.parametrize("build", [cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup])
def test_endpoints_are_exact(build, end_ratio):
    opt = optimizer(lr=0.3)
    sched = build(opt, num_warmup_steps=7, num_training_steps=40, end_ratio=end_ratio)
    lr = lrs_over(sched, 60)
    assert lr[0] == 0.0  # warmup starts from 0
    assert lr[7] == 0.3  # the peak, exactly, at warmup_steps
    assert lr[40] == 0.3 * end_ratio  # the end ratio, exactly, at max_steps
    assert all(value == 0.3 * end_ratio for value in lr[40:])  # held after
    lam = sched.lr_lambdas[0]
    assert lam(0) == 0.0 and lam(7) == 1.0 and lam(40) == end_ratio and lam(10**9) == end_ratio


@pytest.mark.parametrize("build", [cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup])
def test_no_warmup_starts_at_the_peak(build):
    sched = build(optimizer(), num_warmup_steps=0, num_training_steps=10, end_ratio=0.2)
    lam = sched.lr_lambdas[0]
    assert lam(0) == 1.0 and lam(10) == 0.2 and lam(11) == 0.2
    assert sched.get_last_lr() == [1.0]


@pytest.mark.parametrize("build", [cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup])
def test_warmup_equal_to_training_jumps_to_the_floor(build):
    lam = build(optimizer(), num_warmup_steps=5, num_training_steps=5, end_ratio=0.3).lr_lambdas[0]
    assert [lam(k) for k in (0, 5, 6, 100)] == [0.0, 1.0, 0.3, 0.3]


def test_warmup_is_linear_from_zero():
    lam = cosine_schedule_with_warmup(optimizer(), 8, 100).lr_lambdas[0]
    assert [lam(k) for k in range(9)] == [k / 8 for k in range(9)]


# ---------------------------------------------------------------------------- interior values


@pytest.mark.parametrize("end_ratio", [0.0, 0.1, 0.37])
def test_cosine_interior_matches_hand_formula(end_ratio):
    opt = optimizer(lr=0.01)
    sched = cosine_schedule_with_warmup(opt, num_warmup_steps=10, num_training_steps=73, end_ratio=end_ratio)
    for k, lr in enumerate(lrs_over(sched, 90)):
        assert lr == pytest.approx(0.01 * cosine_hand(k, 10, 73, end_ratio), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("end_ratio", [0.0, 0.1, 0.37])
def test_polynomial_is_linear_decay_matching_hand_formula(end_ratio):
    opt = optimizer(lr=0.01)
    sched = polynomial_decay_schedule_with_warmup(opt, num_warmup_steps=4, num_training_steps=29, end_ratio=end_ratio)
    for k, lr in enumerate(lrs_over(sched, 40)):
        assert lr == pytest.approx(0.01 * linear_hand(k, 4, 29, end_ratio), rel=1e-12, abs=1e-15)


def test_known_values():
    cos = cosine_schedule_with_warmup(optimizer(), 10, 110).lr_lambdas[0]
    assert cos(60) == pytest.approx(0.1 + 0.9 * 0.5, rel=1e-15)  # halfway through the decay
    assert cos(35) == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi / 4)) / 2, rel=1e-15)
    lin = polynomial_decay_schedule_with_warmup(optimizer(), 10, 110).lr_lambdas[0]
    assert lin(35) == pytest.approx(0.75, rel=1e-15) and lin(85) == pytest.approx(0.25, rel=1e-15)


@pytest.mark.parametrize("cycles", [0.25, 0.5, 1.0, 1.5, 2.3])
def test_num_cycles_follows_hugging_face_up_to_the_horizon(cycles):
    lam = cosine_schedule_with_warmup(optimizer(), 5, 105, num_cycles=cycles, end_ratio=0.2).lr_lambdas[0]
    for k in range(0, 106):
        assert lam(k) == pytest.approx(cosine_hand(k, 5, 105, 0.2, cycles), rel=1e-12, abs=1e-14)
    # past the horizon the value reached at num_training_steps is held
    assert lam(106) == lam(10**6) == pytest.approx(cosine_hand(105, 5, 105, 0.2, cycles), rel=1e-12, abs=1e-14)


def test_default_end_ratios_of_the_constructors():
    assert cosine_schedule_with_warmup(optimizer(), 0, 10).lr_lambdas[0](10) == 0.1
    assert polynomial_decay_schedule_with_warmup(optimizer(), 0, 10).lr_lambdas[0](10) == 0.0


def test_fixed_lr_holds_the_optimizer_lr():
    opt = optimizer(lr=0.25, groups=2)
    sched = fixed_lr(opt)
    for _ in range(20):
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.25, 0.5]


def test_every_param_group_peaks_at_its_own_lr():
    opt = optimizer(lr=0.1, groups=3)
    sched = cosine_schedule_with_warmup(opt, 2, 10)
    for _ in range(2):
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.1, 0.2, pytest.approx(0.3, rel=1e-15)]


def test_tensor_steps_evaluate_the_whole_run_at_once():
    for lam in (
        cosine_schedule_with_warmup(optimizer(), 10, 90, num_cycles=1.5).lr_lambdas[0],
        polynomial_decay_schedule_with_warmup(optimizer(), 10, 90, end_ratio=0.05).lr_lambdas[0],
        fixed_lr(optimizer()).lr_lambdas[0],
    ):
        steps = torch.arange(0, 120, dtype=torch.float64)
        values = lam(steps)
        assert values.dtype == torch.float64 and values.shape == steps.shape
        assert values.tolist() == pytest.approx([lam(k) for k in range(120)], rel=1e-12, abs=1e-15)


def test_tensor_lr_stays_a_tensor():
    lr = torch.tensor(0.5)
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)
    sched = polynomial_decay_schedule_with_warmup(opt, 2, 6)
    for _ in range(4):
        opt.step()
        sched.step()
    assert isinstance(opt.param_groups[0]["lr"], torch.Tensor)
    assert opt.param_groups[0]["lr"].item() == pytest.approx(0.5 * linear_hand(4, 2, 6))


# --------------------------------------------------------------------------------- state_dict


@pytest.mark.parametrize(
    "build",
    [
        lambda opt: cosine_schedule_with_warmup(opt, 5, 30),
        lambda opt: polynomial_decay_schedule_with_warmup(opt, 5, 30, end_ratio=0.2),
        lambda opt: fixed_lr(opt),
    ],
)
def test_state_dict_round_trip_with_weights_only_load(build):
    opt = optimizer(lr=0.1)
    sched = build(opt)
    for _ in range(12):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{}]  # no callable, no schedule argument
    buffer = io.BytesIO()
    torch.save({"scheduler": state, "optimizer": opt.state_dict()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)

    opt2 = optimizer(lr=0.1)
    sched2 = build(opt2)  # torch's order: build, then load the optimizer's state, then the scheduler's
    opt2.load_state_dict(loaded["optimizer"])
    sched2.load_state_dict(loaded["scheduler"])
    assert sched2.last_epoch == 12
    assert lrs_over(sched2, 25) == lrs_over(sched, 25)


def test_loading_a_checkpoint_keeps_this_runs_arguments():
    old = cosine_schedule_with_warmup(optimizer(), 5, 30)
    new = cosine_schedule_with_warmup(optimizer(), 5, 300)
    new.load_state_dict(old.state_dict())
    assert new.lr_lambdas[0].num_training_steps == 300


def test_the_lambda_pickles_and_copies():
    lam = cosine_schedule_with_warmup(optimizer(), 3, 17, num_cycles=0.75, end_ratio=0.3).lr_lambdas[0]
    for clone in (pickle.loads(pickle.dumps(lam)), copy.deepcopy(lam)):
        assert clone == lam and [clone(k) for k in range(20)] == [lam(k) for k in range(20)]
    sched = polynomial_decay_schedule_with_warmup(optimizer(), 2, 9)
    sched2 = pickle.loads(pickle.dumps(sched))
    assert sched2.lr_lambdas[0] == sched.lr_lambdas[0]


def test_scaled_multiplies_and_truncates_step_counts():
    lam = SambaFlowLambda("cosine", 10, 101, end_ratio=0.2, num_cycles=0.5)
    half = lam.scaled(0.5)
    assert (half.num_warmup_steps, half.num_training_steps, half.end_ratio) == (5, 50, 0.2)
    assert lam.scaled(0.05).num_warmup_steps == 0
    with pytest.raises(ValueError, match="num_training_steps"):
        SambaFlowLambda("linear", 0, 3).scaled(0.1)
    with pytest.raises(ValueError, match="ssr"):
        lam.scaled(0)


# ------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(num_warmup_steps=-1, num_training_steps=10), "num_warmup_steps"),
        (dict(num_warmup_steps=0, num_training_steps=-10), "num_training_steps"),
        (dict(num_warmup_steps=11, num_training_steps=10), "num_warmup_steps=11 must not exceed"),
        (dict(num_warmup_steps=2.5, num_training_steps=10), "num_warmup_steps"),
        (dict(num_warmup_steps=True, num_training_steps=10), "num_warmup_steps"),
        (dict(num_warmup_steps=0, num_training_steps="10"), "num_training_steps"),
        (dict(num_warmup_steps=0, num_training_steps=10, end_ratio=-0.1), "end_ratio"),
        (dict(num_warmup_steps=0, num_training_steps=10, end_ratio=1.5), "end_ratio"),
        (dict(num_warmup_steps=0, num_training_steps=10, end_ratio=math.nan), "end_ratio"),
    ],
)
@pytest.mark.parametrize("build", [cosine_schedule_with_warmup, polynomial_decay_schedule_with_warmup])
def test_invalid_arguments_are_value_errors_naming_them(build, kwargs, name):
    with pytest.raises(ValueError, match=name):
        build(optimizer(), **kwargs)


@pytest.mark.parametrize("cycles", [-0.5, math.inf, "half", "0.5", b"0.5", bytearray(b"0.5"), True])
def test_invalid_num_cycles(cycles):
    with pytest.raises(ValueError, match="num_cycles"):
        cosine_schedule_with_warmup(optimizer(), 0, 10, num_cycles=cycles)


@pytest.mark.parametrize("bad", ["0.5", b"0.5", bytearray(b"0.5")], ids=repr)
def test_strings_and_bytes_are_no_numbers(bad):
    # float() reads each of them; timeunits.is_number, the rule of every number argument, does not
    with pytest.raises(ValueError, match=r"end_ratio=.* must be a number in \[0, 1\]"):
        polynomial_decay_schedule_with_warmup(optimizer(), 0, 10, end_ratio=bad)
    with pytest.raises(ValueError, match=r"^ssr=.* must be a finite number > 0$"):
        SambaFlowLambda("linear", 1, 10).scaled(bad)


def test_integer_like_steps_are_accepted():
    import numpy as np

    lam = polynomial_decay_schedule_with_warmup(optimizer(), np.int64(2), torch.tensor(10)).lr_lambdas[0]
    assert (lam.num_warmup_steps, lam.num_training_steps) == (2, 10)


# ------------------------------------------------------------------------- names and registry


def test_get_aliases_are_the_same_functions():
    assert get_cosine_schedule_with_warmup is cosine_schedule_with_warmup
    assert get_polynomial_decay_schedule_with_warmup is polynomial_decay_schedule_with_warmup
    assert get_fixed_lr is fixed_lr


@pytest.mark.parametrize(
    "name, target",
    [
        ("cosine_schedule_with_warmup", cosine_schedule_with_warmup),
        ("get_cosine_schedule_with_warmup", cosine_schedule_with_warmup),
        ("POLYNOMIAL_DECAY_SCHEDULE_WITH_WARMUP", polynomial_decay_schedule_with_warmup),
        ("get_polynomial_decay_schedule_with_warmup", polynomial_decay_schedule_with_warmup),
        ("fixed_lr", fixed_lr),
        ("get_fixed_lr", fixed_lr),
    ],
)
def test_registered_in_the_sambaflow_family(name, target):
    assert get_scheduler(name) is target
    assert get_scheduler(name, family="sambaflow") is target


def test_signatures_match_the_contract():
    import inspect

    assert str(inspect.signature(cosine_schedule_with_warmup)).startswith(
        "(optimizer: 'Optimizer', num_warmup_steps: 'int', num_training_steps: 'int', num_cycles: 'float' = 0.5, "
        "last_epoch: 'int' = -1, end_ratio: 'float' = 0.1)"
    )
    assert list(inspect.signature(polynomial_decay_schedule_with_warmup).parameters) == [
        "optimizer",
        "num_warmup_steps",
        "num_training_steps",
        "end_ratio",
        "last_epoch",
    ]
    assert inspect.signature(polynomial_decay_schedule_with_warmup).parameters["end_ratio"].default == 0.0


def test_docstring_examples_run():
    for module in (schedulers.sambaflow, schedulers.sambaflow.schedules, schedulers.sambaflow.args):
        assert doctest.testmod(module).failed == 0


# ----------------------------------------------------------------------------------- properties


@settings(deadline=None, max_examples=150)
@given(
    warmup=st.integers(0, 50),
    extra=st.integers(0, 200),
    end_ratio=st.floats(0.0, 1.0),
    kind=st.sampled_from(["cosine", "linear"]),
)
def test_shape_properties(warmup, extra, end_ratio, kind):
    total = warmup + extra
    lam = SambaFlowLambda(kind, warmup, total, end_ratio=end_ratio)
    values = [lam(k) for k in range(total + 5)]
    assert values[warmup] == 1.0 and values[total + 1] == end_ratio and values[-1] == end_ratio
    if warmup > 0:
        assert values[0] == 0.0
        assert all(a <= b for a, b in zip(values[: warmup + 1], values[1 : warmup + 1], strict=False))  # rising warmup
    decay = values[warmup:]
    assert all(b <= a for a, b in zip(decay, decay[1:], strict=False))  # never rises after the peak
    assert all(end_ratio <= v <= 1.0 for v in decay)
