"""Cerebras's curves are Cadence schedules (schedulers.families.cerebras): each resolves against a Run to a curve
of batches equal to its scheduler's values at every step, composes with the core Sequence and Product, scales by
the run's ratio like every Cadence time, and counts whole steps."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import schedulers
import schedulers.cerebras as cs
import timeunits
from schedulers import Product, Schedule, SchedulerState, Sequence, StepScheduler
from schedulers.core.run import Run
from schedulers.families import cerebras as families
from timeunits import Timestamp, TimeUnit

STEPS = list(range(0, 400, 7)) + [0, 1, 99, 100, 101, 299, 300]


def _optimizer() -> torch.optim.SGD:
    return torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)


# the scheduler, and its schedule built directly from schedulers.families.cerebras with the generic names
PAIRS = {
    "Constant": (lambda o: cs.ConstantLR(o, 0.3, 50), families.Constant(0.3, 50)),
    "Polynomial": (lambda o: cs.PolynomialLR(o, 0.7, 0.1, 90, 2.0, True), families.Polynomial(0.7, 0.1, 90, 2.0, True)),
    "Linear": (lambda o: cs.LinearLR(o, 0.0, 0.9, "0.25dur"), families.Linear(0.0, 0.9, "0.25dur")),
    "Exponential": (lambda o: cs.ExponentialLR(o, 0.9, 29, 0.5, True), families.Exponential(0.9, 29, 0.5, True)),
    "InverseExponentialTimeDecay": (
        lambda o: cs.InverseExponentialTimeDecayLR(o, 0.9, 1.5, 29, 0.3),
        families.InverseExponentialTimeDecay(0.9, 1.5, 29, 0.3),
    ),
    "InverseSquareRootDecay": (
        lambda o: cs.InverseSquareRootDecayLR(o, 0.9, 2.0, 17),
        families.InverseSquareRootDecay(0.9, 2.0, 17),
    ),
    "CosineDecay": (lambda o: cs.CosineDecayLR(o, 0.9, 0.1, "1ep"), families.CosineDecay(0.9, 0.1, "1ep")),
    "PiecewiseConstant": (
        lambda o: cs.PiecewiseConstantLR(o, [0.9, 0.3, 0.1], [29, "0.5dur"]),
        families.PiecewiseConstant([0.9, 0.3, 0.1], [29, "0.5dur"]),
    ),
    "MultiStep": (
        lambda o: cs.MultiStepLR(o, 0.9, 0.29, [29, 101, 101]),
        families.MultiStep(0.9, 0.29, [29, 101, 101]),
    ),
    "Step": (lambda o: cs.StepLR(o, 0.9, 29, 0.29), families.Step(0.9, 29, 0.29)),
    "CosineAnnealing": (lambda o: cs.CosineAnnealingLR(o, 0.9, 47, 0.1), families.CosineAnnealing(0.9, 47, 0.1)),
    "CosineAnnealingWarmRestarts": (
        lambda o: cs.CosineAnnealingWarmRestarts(o, 0.9, 13, 2, 0.1),
        families.CosineAnnealingWarmRestarts(0.9, 13, 2, 0.1),
    ),
    "Multiplicative": (lambda o: cs.MultiplicativeLR(o, 0.9, 0.99), families.Multiplicative(0.9, 0.99)),
    "Cyclic": (
        lambda o: cs.CyclicLR(o, 0.1, 0.9, 17, 29, "exp_range", 0.999),
        families.Cyclic(0.1, 0.9, 17, 29, "exp_range", 0.999),
    ),
    "OneCycle": (lambda o: cs.OneCycleLR(o, 0.04, 0.9, "0.75dur"), families.OneCycle(0.04, 0.9, "0.75dur")),
}
RUN = SchedulerState("400ba", dataloader_len=100)


@pytest.mark.parametrize("name", PAIRS)
def test_each_curve_is_a_schedule_whose_curve_is_its_schedulers_values(name):
    make, schedule = PAIRS[name]
    scheduler = make(_optimizer())
    scheduler.attach_state(RUN)
    assert isinstance(schedule, Schedule) and isinstance(scheduler.schedule, Schedule)
    curve = schedule.curve(Run.of_state(RUN))
    assert curve.unit is TimeUnit.BATCH
    expected = scheduler.values_at(STEPS).tolist()
    assert [curve(float(step)) for step in STEPS] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    whole_run = curve(torch.tensor(STEPS, dtype=torch.float64))
    assert whole_run.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-15)
    state = SchedulerState("400ba", dataloader_len=100)
    for step in (0, 29, 300):  # the schedule-call protocol reads the state's batch count
        state.timestamp = Timestamp(batch=step)
        assert schedule(state) == pytest.approx(float(scheduler.values_at([step])[0]), rel=1e-12, abs=1e-15)


def test_the_ratio_scales_step_counts_by_the_one_rule_and_not_fractions():
    """100 steps at ssr 0.29 are 29 (deviation 2), as for a time in ba; a fraction of the run is not scaled again."""
    run = Run("1000ba", ssr=0.29)  # trains 290 batches
    assert families.Step(1.0, 100, 0.5).curve(run).times["step_size"].value == 29
    assert families.Step(1.0, "100ba", 0.5).curve(run).times == StepScheduler("100ba").curve(run).times
    assert families.CosineDecay(1.0, 0.0, "0.5dur").curve(run).times["total_iters"].value == 145


def test_they_compose_with_the_core_sequence_and_product():
    warmup, decay = families.Linear(0.0, 1.0, "1dur"), families.CosineDecay(1.0, 0.0, "1dur")
    curve = Sequence([warmup, decay], ["10ba"]).resolve("110ba")  # a dur inside a Sequence is of its segment
    assert [curve(x) for x in (0, 5, 10, 60, 110)] == pytest.approx([0.0, 0.5, 1.0, 0.5, 0.0], abs=1e-15)
    product = Product([families.Constant(0.5), StepScheduler("10ba", gamma=0.5)]).resolve("100ba")
    assert [product(x) for x in (0, 9, 10, 25)] == [0.5, 0.5, 0.25, 0.125]


@pytest.mark.parametrize(
    "build, argument",
    [
        (lambda o: cs.StepLR(o, 1.0, 2.5, 0.5), "step_size"),
        (lambda o: cs.StepWD(o, 1.0, 2.5, 0.5), "step_size"),
        (lambda o: cs.MultiStepLR(o, 1.0, 0.5, [10, 12.5]), r"milestones\[1\]"),
        (lambda o: cs.CosineDecayLR(o, 1.0, 0.0, 99.5), "total_iters"),
    ],
)
def test_a_step_count_is_a_whole_number_of_steps(build, argument):
    with pytest.raises(ValueError, match=rf"^{argument}=\d+\.5 must be an integer \(a number of steps\)$"):
        build(_optimizer())
    assert cs.StepLR(_optimizer(), 1.0, 2.0, 0.5).values_at([1, 2]).tolist() == [1.0, 0.5]  # a whole float is fine


def _called(action) -> list[str]:
    """The names of the functions of schedulers/ and timeunits/ that ``action()`` calls, in order."""
    roots = tuple(str(Path(module.__file__).resolve().parent) for module in (schedulers, timeunits))
    names: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(roots):
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return names


def test_a_sequence_resolves_its_parts_without_checking_their_arguments_again():
    """A resolved form takes its step counts in place (its other arguments were checked when it was built) and the
    sequence is the core's sequence curve of the resolved forms, no Sequence built and checked for them: the same
    forms and values as building each from its resolved counts (bench/curve_calls.py: 167 calls before, 85)."""
    run = Run("100ba", 10, ssr=0.29)

    def build() -> families.Sequential:
        return families.Sequential((families.Linear(0.0, 0.1, "3ep"), families.CosineDecay(0.1, 0.01, "0.7dur")))

    build().curve(run)  # first uses outside the trace (and a curve is kept per run: a fresh sequence is traced)
    sequence = build()
    calls = _called(lambda: sequence.curve(run))
    assert "sequence_curve" in calls
    # no converter runs again (_checked: a form's argument checks), no Sequence is built (its argument checks)
    assert {"_checked", "number_argument", "milestones_argument", "time_argument"}.isdisjoint(calls)
    resolved = sequence.resolved(run)
    built = (families.Linear(0.0, 0.1, 8), families.CosineDecay(0.1, 0.01, 20))  # 30 · 0.29 steps, 0.7 · 29
    assert resolved.schedules == built and repr(resolved.schedules) == repr(built) and resolved.milestones == [8]
    assert sequence.curve(run)(5.0) == pytest.approx(0.1 * 5 / 8)
    assert sequence.curve(run)(14.0) == pytest.approx(families.CosineDecay(0.1, 0.01, 20).value(6.0))
    with pytest.raises(
        ValueError, match=r"total_iters='0.001dur' \(resolved to 0 steps\) must be a number of steps > 0"
    ):
        families.Sequential((families.CosineDecay(0.1, 0.0, "0.001dur"), families.Constant(0.1))).resolved(run)
