"""Time strings for step-count arguments: "Nba" always, "Nep"/"xdur" with the run's state (at construction,
attach_state or the first step), "sp"/"tok" errors pointing to the time-aware schedulers, ssr scaling."""

from __future__ import annotations

import pytest
import torch

import schedulers.cerebras as cs
from schedulers import SchedulerState
from schedulers.families import cerebras as forms
from timeunits import NonIntegralTimeError, Time, TimeParseError

RUN = SchedulerState("10ep", dataloader_len=100)  # 1,000 steps


def _optimizer():
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)


def test_plain_numbers_keep_working():
    scheduler = cs.CosineDecayLR(_optimizer(), 1.0, 0.0, 100)
    assert scheduler.total_iters == 100


@pytest.mark.parametrize("given", ["250ba", Time(250, "ba"), " 250 BA "])
def test_batches_need_no_state(given):
    assert cs.CosineDecayLR(_optimizer(), 1.0, 0.0, given).total_iters == 250


@pytest.mark.parametrize(
    "factory, attribute, expected",
    [
        (lambda o, s: cs.CosineDecayLR(o, 1.0, 0.0, "0.9dur", state=s), "total_iters", 900),
        (lambda o, s: cs.LinearLR(o, 0.0, 1.0, "2ep", state=s), "total_iters", 200),
        (lambda o, s: cs.StepLR(o, 1.0, "1ep", 0.5, state=s), "step_size", 100),
        (lambda o, s: cs.MultiStepLR(o, 1.0, 0.1, ["3ep", "0.5dur", 800], state=s), "milestones", [300, 500, 800]),
        (lambda o, s: cs.CosineAnnealingLR(o, 1.0, T_max="0.25dur", state=s), "T_max", 250),
        (lambda o, s: cs.CosineAnnealingWarmRestarts(o, 1.0, T_0="1ep", state=s), "T_0", 100),
        (lambda o, s: cs.InverseSquareRootDecayLR(o, 1.0, warmup_steps="0.01dur", state=s), "warmup_steps", 10),
        (lambda o, s: cs.CyclicLR(o, 0.1, 1.0, "1ep", "50ba", state=s), "step_size_down", 50),
        (lambda o, s: cs.OneCycleLR(o, 0.04, 1.0, total_steps="1dur", state=s), "total_steps", 1000),
        (lambda o, s: cs.PiecewiseConstantLR(o, [1.0, 0.1], ["0.5dur"], state=s), "milestones", [500]),
        (lambda o, s: cs.ExponentialWD(o, 0.1, "1ep", 0.5, state=s), "total_iters", 100),
    ],
)
def test_epochs_and_fractions_resolve_with_a_state(factory, attribute, expected):
    scheduler = factory(_optimizer(), RUN)
    assert getattr(scheduler, attribute) == expected
    assert scheduler.state_dict()["arguments"][attribute] != expected  # the arguments are kept as given


def test_a_run_in_epochs_without_dataloader_len_is_a_clear_error():
    with pytest.raises(ValueError, match="dataloader_len"):
        cs.CosineDecayLR(_optimizer(), 1.0, 0.0, "0.5dur", state=SchedulerState("10ep"))
    with pytest.raises(ValueError, match="dataloader_len"):
        cs.CosineDecayLR(_optimizer(), 1.0, 0.0, "2ep", state=SchedulerState("1000ba"))
    assert cs.CosineDecayLR(_optimizer(), 1.0, 0.0, "0.5dur", state=SchedulerState("1000ba")).total_iters == 500


@pytest.mark.parametrize("given", ["1000sp", "4_000tok", Time(10, "sp")])
def test_samples_and_tokens_point_to_the_time_aware_schedulers(given):
    with pytest.raises(ValueError, match="CosineAnnealingWithWarmupScheduler"):
        cs.CosineDecayLR(_optimizer(), 1.0, 0.0, given, state=RUN)


def test_a_fraction_of_a_run_in_samples_is_an_error():
    with pytest.raises(ValueError, match="resolves to 500sp"):
        cs.CosineDecayLR(_optimizer(), 1.0, 0.0, "0.5dur", state=SchedulerState("1000sp"))


@pytest.mark.parametrize("given", ["10", "0.3dru", "", True, [1]])
def test_not_a_time_is_an_error(given):
    with pytest.raises(ValueError, match="total_iters"):
        cs.CosineDecayLR(_optimizer(), 1.0, 0.0, given)


def test_without_a_state_resolution_waits_for_attach_state():
    optimizer = _optimizer()
    scheduler = cs.LinearLR(optimizer, 0.0, 1.0, total_iters="0.1dur")
    assert scheduler.total_iters == "0.1dur" and optimizer.param_groups[0]["lr"] == 1.0  # untouched
    with pytest.raises(ValueError, match=r"attach_state"):
        scheduler.step()
    assert int(scheduler.last_epoch) == 0  # the failed step was not counted
    scheduler.attach_state(RUN)
    assert scheduler.total_iters == 100 and optimizer.param_groups[0]["lr"] == 0.0
    for _ in range(50):
        scheduler.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.5)


def test_a_composite_passes_its_state_to_its_children():
    optimizer = _optimizer()
    warmup = cs.LinearLR(optimizer, 0.0, 1.0, "1ep")
    decay = cs.CosineDecayLR(optimizer, 1.0, 0.0, "0.9dur")
    sequence = cs.SequentialLR(optimizer, [warmup, decay], state=RUN)
    assert (warmup.total_iters, decay.total_iters, sequence.milestones) == (100, 900, [100])
    assert sequence.values_at([0, 50, 100, 550, 1000]).tolist() == pytest.approx([0.0, 0.5, 1.0, 0.5, 0.0])

    pending = cs.SequentialLR(optimizer, [cs.LinearLR(optimizer, 0.0, 1.0, "1ep"), cs.ConstantLR(optimizer, 1.0)])
    pending.attach_state(RUN)
    assert pending.milestones == [100]


def test_children_take_their_part_of_the_composites_resolution_without_resolving_again(monkeypatch):
    """A composite resolves the whole schedule once; each child (a nested composite's too) shows its part of it."""
    optimizer = _optimizer()
    warmup, decay = cs.LinearLR(optimizer, 0.0, 1.0, "1ep"), cs.CosineDecayLR(optimizer, 1.0, 0.0, "0.9dur")
    chained = cs.ChainedLR([cs.SequentialLR(optimizer, [warmup, decay]), cs.StepLR(optimizer, 1.0, "0.5dur", 0.5)])
    resolved = []
    leaf_resolved = forms.StepSchedule.resolved
    monkeypatch.setattr(
        forms.StepSchedule, "resolved", lambda self, run: resolved.append(self) or leaf_resolved(self, run)
    )
    chained.attach_state(RUN, ssr=0.5)
    assert sorted(type(form).__name__ for form in resolved) == ["CosineDecay", "Linear", "Step"]
    sequence, step = chained._schedulers
    assert (warmup.total_iters, decay.total_iters, sequence.milestones, step.step_size) == (50, 900, [50], 500)
    assert warmup.state is decay.state is step.state is RUN and warmup.ssr == 0.5
    assert warmup.values_at([25]).tolist() == [0.5] and sequence.values_at([50]).tolist() == [1.0]


def test_scale_schedule_ratio_scales_counts_not_fractions():
    optimizer = _optimizer()
    scheduler = cs.MultiStepLR(optimizer, 1.0, 0.5, [100, "200ba", "3ep", "0.5dur"])
    scheduler.attach_state(RUN, ssr=0.5)
    assert scheduler.milestones == [50, 100, 150, 500]
    scheduler.attach_state(RUN)  # re-resolved from the arguments as given, not scaled twice
    assert scheduler.milestones == [100, 200, 300, 500]
    with pytest.raises(ValueError, match="ssr"):
        scheduler.attach_state(RUN, ssr=0)


def test_scaled_counts_follow_deviation_2():
    """100 · 0.29 = 28.999999999999996 is 29 steps, as for Cadence's schedules and torch's (one rule)."""
    optimizer = _optimizer()
    step = cs.StepLR(optimizer, 1.0, 100, 0.5)
    step.attach_state(RUN, ssr=0.29)
    assert step.step_size == 29
    multistep = cs.MultiStepLR(optimizer, 1.0, 0.5, [100, "200ba", "1ep"])
    multistep.attach_state(RUN, ssr=0.29)
    assert multistep.milestones == [29, 58, 29]  # 200 · 0.29 = 57.99999999999999


def test_what_cannot_be_scaled_by_a_ratio_is_an_error_naming_it():
    optimizer = _optimizer()

    class Lambda(cs.LambdaLR):
        def set_lr_lambda(self):
            return lambda step: 0.99**step

    class UserForm(cs.LRScheduler):
        def __init__(self, optimizer):
            super().__init__(optimizer, total_iters=None)

        def _get_closed_form_lr(self):
            return 0.99**self.last_epoch

    for scheduler in (Lambda(optimizer, 1.0), cs.MultiplicativeLR(optimizer, 1.0, 0.9), UserForm(optimizer)):
        scheduler.attach_state(RUN)  # a ratio of 1 is always fine
        with pytest.raises(ValueError, match=type(scheduler).__name__ + " cannot be scaled"):
            scheduler.attach_state(RUN, ssr=2.0)
    sequence = cs.SequentialLR(optimizer, [cs.ConstantLR(optimizer, 1.0, 10), UserForm(optimizer)])
    with pytest.raises(ValueError, match="UserForm cannot be scaled"):
        sequence.attach_state(RUN, ssr=2.0)
    assert sequence.milestones == [10]  # unchanged by the refused ratio


@pytest.mark.parametrize(
    "build, argument",
    [
        (lambda o, v: cs.StepLR(o, 1.0, v, 0.5), "step_size"),
        (lambda o, v: cs.MultiStepLR(o, 1.0, 0.1, [10, v]), "milestones[1]"),
        (lambda o, v: cs.CosineDecayLR(o, 1.0, 0.0, v), "total_iters"),
    ],
    ids=["StepLR", "MultiStepLR", "CosineDecayLR"],
)
@pytest.mark.parametrize("bad, error_class", [("1.5ba", NonIntegralTimeError), ("0.3dru", TimeParseError)])
def test_a_string_that_is_not_a_time_keeps_timeunits_error(build, argument, bad, error_class):
    with pytest.raises(error_class) as info:
        build(_optimizer(), bad)
    message = str(info.value)
    assert isinstance(info.value, ValueError) and message.startswith(f"{argument}={bad!r} is not a time: "), message
    assert message.count("is not a time") == 1 and message.count(repr(bad)) == 1, message
    if error_class is NonIntegralTimeError:
        assert isinstance(info.value, TypeError)
