"""Schedules are immutable values (issue 10 item 1): frozen attrs classes, changed with ``attrs.evolve``.

Setting an argument (or changing a list argument in place) raises a :class:`FrozenScheduleError` (an
``attrs.exceptions.FrozenInstanceError``, so an ``AttributeError``) saying how to change the schedule; equal
arguments make equal, equally hashed schedules; ``eval(repr(s)) == s``; the per-run cache is not an argument.
"""

from __future__ import annotations

import pickle

import attrs
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import schedulers
from schedulers import (
    ConstantScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWithWarmupScheduler,
    CyclicScheduler,
    LinearScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    Product,
    Schedule,
    SchedulerState,
    Sequence,
    StepScheduler,
    Warmup,
    as_schedule,
    evaluate_run,
    register_scheduler,
    registered_schedulers,
)
from schedulers.core.names import scheduler_family
from schedulers.core.schedule_arguments import FrozenScheduleError
from timeunits import Time, Timestamp

STATE = SchedulerState("100ba", Timestamp(batch=50))

# one instance per registered Cadence schedule class, with non-default arguments where there are any
INSTANCES = {
    "StepScheduler": StepScheduler("10ba", gamma=0.5),
    "MultiStepScheduler": MultiStepScheduler(["10ba", "0.5dur"], gamma=0.5),
    "ConstantScheduler": ConstantScheduler(0.5, "0.5dur"),
    "LinearScheduler": LinearScheduler(1.0, 0.25, "80ba"),
    "ExponentialScheduler": schedulers.ExponentialScheduler(0.9, "10ba"),
    "CosineAnnealingScheduler": CosineAnnealingScheduler("90ba", alpha_f=0.1),
    "CosineAnnealingWarmRestartsScheduler": schedulers.CosineAnnealingWarmRestartsScheduler("10ba", 2.0, 0.1),
    "PolynomialScheduler": schedulers.PolynomialScheduler(2.0, "1dur", 0.1),
    "MultiStepWithWarmupScheduler": MultiStepWithWarmupScheduler("5ba", ["50ba"], gamma=0.5, scale_warmup=True),
    "ConstantWithWarmupScheduler": schedulers.ConstantWithWarmupScheduler("5ba", alpha=0.5),
    "LinearWithWarmupScheduler": schedulers.LinearWithWarmupScheduler("5ba", 1.0, 0.1),
    "CosineAnnealingWithWarmupScheduler": CosineAnnealingWithWarmupScheduler("0.05dur", alpha_f=0.1),
    "PolynomialWithWarmupScheduler": schedulers.PolynomialWithWarmupScheduler("5ba", power=3.0, alpha_f=0.1),
    "WarmupStableDecayScheduler": schedulers.WarmupStableDecayScheduler("5ba", "20ba", 0.1, "cosine"),
    "InverseSquareRootScheduler": schedulers.InverseSquareRootScheduler("10ba", scale_warmup=True),
    "OneCycleScheduler": schedulers.OneCycleScheduler(pct_start=0.25, anneal_strategy="linear", three_phase=True),
    "CyclicScheduler": CyclicScheduler("10ba", "20ba", base_ratio=0.2, mode="exp_range", gamma=0.99),
    "Warmup": Warmup(StepScheduler("50ba", gamma=0.5), t_warmup="10ba"),
    "Sequence": Sequence([LinearScheduler(0.0, 1.0), CosineAnnealingScheduler()], ["0.1dur"]),
    "Product": Product([LinearScheduler(), StepScheduler("50ba", gamma=0.5)]),
    "PlateauScheduler": schedulers.PlateauScheduler(factor=0.29, patience="20ba", mode="max", reductions=["40ba"]),
}


def cadence_schedule_classes() -> set[type]:
    return {
        cls
        for cls in registered_schedulers().values()
        if isinstance(cls, type) and issubclass(cls, Schedule) and scheduler_family(cls) in ("composer", "cadence")
    }


def test_the_table_covers_every_registered_cadence_schedule_class():
    assert {type(s) for s in INSTANCES.values()} == cadence_schedule_classes()
    assert all(type(s).__name__ == name for name, s in INSTANCES.items())


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_every_schedule_class_is_a_frozen_hashable_value(name):
    schedule = INSTANCES[name]
    cls = type(schedule)
    assert attrs.has(cls) and attrs.inspect(cls).is_frozen
    twin = eval(repr(schedule), vars(schedulers))  # noqa: S307  (our own repr, in a test)
    assert twin == schedule and twin is not schedule and hash(twin) == hash(schedule)
    assert repr(twin) == repr(schedule)
    assert {schedule, twin} == {schedule}
    first = attrs.fields(cls)[0].name
    with pytest.raises(FrozenScheduleError, match=rf"attrs\.evolve\(schedule, {first}="):
        setattr(schedule, first, getattr(schedule, first))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        delattr(schedule, first)


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_the_run_cache_is_not_an_argument(name):
    """Calling a schedule caches its resolution on the instance; equality, hash, repr and pickling ignore it."""
    schedule, fresh = INSTANCES[name], eval(repr(INSTANCES[name]), vars(schedulers))  # noqa: S307
    before = (hash(schedule), repr(schedule))
    value = schedule(STATE)
    assert (hash(schedule), repr(schedule)) == before and schedule == fresh
    copied = pickle.loads(pickle.dumps(schedule))
    assert copied == schedule and copied(STATE) == value


def test_changing_a_list_argument_in_place_raises_with_the_evolve_hint():
    state = SchedulerState("100ba", Timestamp(batch=20))
    s = MultiStepScheduler(["10ba"])
    assert s(state) == pytest.approx(0.1)
    with pytest.raises(FrozenScheduleError, match=r"milestones .*attrs\.evolve\(schedule, milestones=") as error:
        s.milestones.append("20ba")
    assert isinstance(error.value, attrs.exceptions.FrozenInstanceError) and isinstance(error.value, AttributeError)
    assert s.milestones == (Time(10, "ba"),) and isinstance(s.milestones, tuple)
    assert s(state) == pytest.approx(0.1)  # never a stale value: nothing changed
    changed = attrs.evolve(s, milestones=["10ba", "20ba"])
    assert changed(state) == pytest.approx(0.01)
    assert changed.milestones == (Time(10, "ba"), Time(20, "ba"))


def test_changing_a_child_of_a_composite_raises_and_evolve_gives_the_fresh_value():
    state = SchedulerState("100ba", Timestamp(batch=60))
    child = StepScheduler("50ba", gamma=0.5)
    p = Product([LinearScheduler(), child])
    before = p(state)
    with pytest.raises(
        FrozenScheduleError, match=r"cannot set gamma of StepScheduler.*attrs\.evolve\(schedule, gamma=0\.1\)"
    ):
        child.gamma = 0.1
    assert p(state) == before
    evolved = attrs.evolve(p, schedules=[LinearScheduler(), attrs.evolve(child, gamma=0.1)])
    fresh = Product([LinearScheduler(), StepScheduler("50ba", gamma=0.1)])
    assert evolved == fresh and evolved(state) == fresh(state) == pytest.approx(0.4 * 0.1)
    with pytest.raises(FrozenScheduleError, match="schedules"):
        p.schedules.insert(0, child)


def test_equality_is_by_value_and_across_spellings():
    assert StepScheduler("10ba") == StepScheduler(Time(10, "ba"), gamma=0.1) == StepScheduler("10ba", 0.1)
    assert StepScheduler("10ba") != StepScheduler("10ba", gamma=0.2)
    assert StepScheduler("10ba") != StepScheduler("10sp")
    assert LinearScheduler() != schedulers.LinearWithWarmupScheduler("0ba")
    assert CosineAnnealingScheduler("1dur") == CosineAnnealingScheduler(t_max="1.0dur")
    assert MultiStepScheduler(["10ba"]) == MultiStepScheduler(("10ba",))
    fn = lambda state: 1.0  # noqa: E731
    assert as_schedule(fn) == as_schedule(fn) and as_schedule(fn) != as_schedule(lambda state: 1.0)
    assert hash(as_schedule(fn)) == hash(as_schedule(fn))


@settings(deadline=None, max_examples=60)
@given(
    step=st.integers(1, 10**6),
    gamma=st.floats(0.0, 1.0),
    alpha_f=st.floats(0.0, 1.0),
    milestones=st.lists(st.integers(0, 10**6).map(lambda n: f"{n}ba"), max_size=4),
    scale=st.booleans(),
)
def test_repr_rebuilds_an_equal_schedule(step, gamma, alpha_f, milestones, scale):
    for schedule in (
        StepScheduler(f"{step}ba", gamma=gamma),
        MultiStepWithWarmupScheduler(f"{step}ba", milestones, gamma=gamma, scale_warmup=scale),
        Warmup(Product([CosineAnnealingScheduler(alpha_f=alpha_f), ConstantScheduler(gamma)]), "1ep", scale),
        Sequence([LinearScheduler(1.0, alpha_f), StepScheduler(f"{step}ba", gamma)], ["0.5dur"]),
    ):
        rebuilt = eval(repr(schedule), vars(schedulers))  # noqa: S307  (our own repr, in a test)
        assert rebuilt == schedule and hash(rebuilt) == hash(schedule)


def test_equal_schedules_evaluate_equally():
    a, b = (Warmup(CosineAnnealingScheduler(alpha_f=0.1), "0.1dur") for _ in range(2))
    assert a == b and torch.equal(evaluate_run(a, "100ba"), evaluate_run(b, "100ba"))


# -- user classes ------------------------------------------------------------------------------------------


def test_a_frozen_attrs_user_class_is_a_schedule_value():
    @register_scheduler(aliases=("immutability_test_half",))
    @attrs.frozen
    class ImmutabilityTestHalf(Schedule):
        value: float = 0.5

        def __call__(self, state, ssr=1.0):
            return self.value

    half = ImmutabilityTestHalf()
    assert half(STATE) == 0.5 and half == ImmutabilityTestHalf(0.5) and hash(half) == hash(ImmutabilityTestHalf())
    with pytest.raises(FrozenScheduleError, match=r"attrs\.evolve\(schedule, value=0\.25\)"):
        half.value = 0.25
    assert attrs.evolve(half, value=0.25)(STATE) == 0.25
    assert half.to_config() == {"ImmutabilityTestHalf": {"value": 0.5}}


def test_a_plain_user_class_that_sets_attributes_is_told_to_use_attrs_frozen():
    class PlainSchedule(Schedule):
        def __init__(self, value=0.5):
            self.value = value

    with pytest.raises(FrozenScheduleError, match=r"PlainSchedule is a plain class.*decorate it with @attrs\.frozen"):
        PlainSchedule()


def test_a_plain_user_class_without_arguments_still_works():
    class Flat(Schedule):
        def __call__(self, state, ssr=1.0):
            return 0.5

    assert Flat()(STATE) == 0.5


def test_a_mutable_attrs_user_class_is_refused_at_definition():
    with pytest.raises(TypeError, match=r"MutableSchedule is a mutable attrs class.*@attrs\.frozen"):

        @attrs.define
        class MutableSchedule(Schedule):
            value: float = 0.5
