"""Parity with MosaicML Composer's scheduler tests (Composer's tests/optim/test_scheduler.py).

Every case of Composer's ``test_scheduler_init`` is here with the *exact* float Composer computes (the spec's
"exact" column), compared to 1e-12 (docs/composer-deviations.md; Composer itself uses ``abs=1e-3``). A case that a
deliberate deviation changes carries the deviation in its id (``dev1``) and expects Cadence's value; the
cases with ``alpha_f > 1`` carry ``dev3``: their values are Composer's, and Cadence also warns that the
schedule rises (a negative multiplier, which Composer would accept, is a ValueError in Cadence).

Harness (Composer's): ``dataloader_len = 1000``, ``max_duration = int(1000 * ssr) ep`` (already scaled, as
the trainer does), and for a time string ``"Nba"`` the timestamp ``batch=N, epoch=N // 1000``; for ``"Nep"``
``epoch=N, batch=1000 N``. Samples and tokens stay 0.
"""

from __future__ import annotations

import itertools
import math
import warnings

import pytest
import torch
import torch._dynamo

from schedulers import (
    ConstantScheduler,
    ConstantWithWarmupScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWarmRestartsScheduler,
    CosineAnnealingWithWarmupScheduler,
    ExponentialScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    PolynomialScheduler,
    PolynomialWithWarmupScheduler,
    SchedulerState,
    StepScheduler,
)
from schedulers.core.run import Run
from timeunits import Time, Timestamp, TimeUnit

TOL = dict(rel=1e-12, abs=1e-12)


def approx(expected):
    return pytest.approx(expected, **TOL)


# ------------------------------------------------------------------------------------------------------------
# §3.1: every parametrized case of Composer's test_scheduler_init
# (number, factory, ssr, [(time string, exact expected)], deviation or None)
# ------------------------------------------------------------------------------------------------------------

COMPOSER_CASES = [
    (
        1,
        lambda: StepScheduler(step_size="10ba"),
        1.0,
        [("5ba", 1.0), ("15ba", 0.1), ("35ba", 0.0010000000000000002)],
        None,
    ),
    (
        2,
        lambda: StepScheduler(step_size="0.002dur", gamma=0.8),
        1.0,
        [("1000ba", 1.0), ("3000ba", 0.8), ("7000ba", 0.5120000000000001)],
        None,
    ),
    (
        3,
        lambda: StepScheduler(step_size="1ep", gamma=0.5),
        1.0,
        [("500ba", 1.0), ("1500ba", 0.5), ("3500ba", 0.125)],
        None,
    ),
    (4, lambda: StepScheduler(step_size="10ba", gamma=0.5), 0.5, [("3ba", 1.0), ("8ba", 0.5), ("18ba", 0.125)], None),
    (
        5,
        lambda: MultiStepScheduler(milestones=["10ba", "30ba", "70ba"]),
        1.0,
        [("5ba", 1.0), ("20ba", 0.1), ("50ba", 0.010000000000000002), ("100ba", 0.0010000000000000002)],
        None,
    ),
    (
        6,
        lambda: MultiStepScheduler(milestones=["100ba", "1ep", "0.01dur"], gamma=0.5),
        1.0,
        [("50ba", 1.0), ("500ba", 0.5), ("5000ba", 0.25), ("50000ba", 0.125)],
        None,
    ),
    (
        7,
        lambda: MultiStepScheduler(milestones=["100ba", "1ep", "0.01dur"], gamma=0.5),
        4.0,
        [("200ba", 1.0), ("2000ba", 0.5), ("20000ba", 0.25), ("200000ba", 0.125)],
        None,
    ),
    (8, lambda: LinearScheduler(), 1.0, [("100000ba", 0.9), ("200000ba", 0.8), ("400000ba", 0.6)], None),
    (
        9,
        lambda: LinearScheduler(alpha_i=0.0, alpha_f=2.0),
        1.0,
        [("100000ba", 0.2), ("200000ba", 0.4), ("400000ba", 0.8)],
        3,  # alpha_f > 1: Cadence warns (deviation 3), the values are Composer's
    ),
    (
        10,
        lambda: LinearScheduler(alpha_i=0.0, alpha_f=1.0, t_max="0.25dur"),
        1.0,
        [("100000ba", 0.4), ("200000ba", 0.8), ("400000ba", 1.0)],
        None,
    ),
    (
        11,
        lambda: LinearScheduler(alpha_i=0.0, alpha_f=1.0, t_max="0.25dur"),
        2.0,
        [("100000ba", 0.2), ("200000ba", 0.4), ("400000ba", 0.8)],
        None,
    ),
    (12, lambda: ExponentialScheduler(gamma=0.5), 1.0, [("1ep", 0.5), ("2ep", 0.25), ("4ep", 0.0625)], None),
    (13, lambda: ExponentialScheduler(gamma=0.5), 2.0, [("2ep", 0.5), ("4ep", 0.25), ("8ep", 0.0625)], None),
    (
        14,
        lambda: CosineAnnealingScheduler(),
        1.0,
        [
            ("0ba", 1.0),
            ("333333ba", 0.750000453449704),
            ("500000ba", 0.5),
            ("666667ba", 0.24999954655029605),
            ("1000000ba", 0.0),
        ],
        None,
    ),
    (
        15,
        lambda: CosineAnnealingScheduler(t_max="30ba", alpha_f=0.5),
        1.0,
        [("0ba", 1.0), ("10ba", 0.875), ("15ba", 0.75), ("20ba", 0.625), ("30ba", 0.5), ("50ba", 0.5)],
        None,
    ),
    (
        16,
        lambda: CosineAnnealingScheduler(t_max="30ba", alpha_f=0.5),
        0.2,
        [("0ba", 1.0), ("2ba", 0.875), ("3ba", 0.75), ("4ba", 0.625), ("6ba", 0.5), ("10ba", 0.5)],
        None,
    ),
    (
        17,
        lambda: CosineAnnealingWarmRestartsScheduler(t_0="30ba"),
        1.0,
        [("0ba", 1.0), ("10ba", 0.75), ("15ba", 0.5), ("20ba", 0.2500000000000001), ("30ba", 1.0), ("40ba", 0.75)],
        None,
    ),
    (
        18,
        lambda: CosineAnnealingWarmRestartsScheduler(t_0="0.003dur", t_mult=1.5),
        1.0,
        [("0ba", 1.0), ("1000ba", 0.75), ("3000ba", 1.0), ("4500ba", 0.75), ("7500ba", 1.0), ("14250ba", 1.0)],
        None,
    ),
    (
        19,
        lambda: CosineAnnealingWarmRestartsScheduler(t_0="30ep", t_mult=2.0, alpha_f=0.5),
        0.5,
        [("0ba", 1.0), ("5000ba", 0.875), ("15000ba", 1.0), ("25000ba", 0.875)],
        None,
    ),
    (
        20,
        lambda: PolynomialScheduler(power=2.0),
        1.0,
        [("0ba", 1.0), ("100000ba", 0.81), ("200000ba", 0.6400000000000001), ("500000ba", 0.25)],
        None,
    ),
    (
        21,
        lambda: PolynomialScheduler(power=2.0, t_max="100ba", alpha_f=0.5),
        1.0,
        [("0ba", 1.0), ("10ba", 0.905), ("20ba", 0.8200000000000001), ("50ba", 0.625)],
        None,
    ),
    (
        22,
        lambda: PolynomialScheduler(power=2.0, t_max="100ba", alpha_f=0.5),
        0.5,
        [("0ba", 1.0), ("10ba", 0.8200000000000001), ("20ba", 0.6799999999999999), ("50ba", 0.5)],
        None,
    ),
    (
        23,
        lambda: MultiStepWithWarmupScheduler(t_warmup="10ba", milestones=["20ba", "40ba"]),
        1.0,
        [("0ba", 0.0), ("5ba", 0.5), ("15ba", 1.0), ("25ba", 0.1), ("45ba", 0.010000000000000002)],
        None,
    ),
    (
        24,
        lambda: MultiStepWithWarmupScheduler(t_warmup="10ba", milestones=["2ep", "4ep"], gamma=0.5),
        0.5,
        [("0ba", 0.0), ("5ba", 0.5), ("15ba", 1.0), ("1500ba", 0.5), ("2500ba", 0.25)],
        None,
    ),
    # At 5ba Composer is still warming up (ramp 5/5, "frozen"); Cadence (deviation 1) is past the warmup.
    # Both give 1.0, so the value is unchanged.
    (
        25,
        lambda: MultiStepWithWarmupScheduler(t_warmup="10ba", milestones=["2ep", "4ep"], gamma=0.5, scale_warmup=True),
        0.5,
        [("0ba", 0.0), ("5ba", 1.0), ("15ba", 1.0), ("1500ba", 0.5), ("2500ba", 0.25)],
        None,
    ),
    (
        26,
        lambda: MultiStepWithWarmupScheduler(t_warmup="1000ep", milestones=[]),
        1.0,
        [("0ep", 0.0), ("100ep", 0.1), ("1000ep", 1.0)],
        None,
    ),
    (
        27,
        lambda: ConstantWithWarmupScheduler(t_warmup="500ep"),
        1.0,
        [("0ba", 0.0), ("250000ba", 0.5), ("500000ba", 1.0), ("750000ba", 1.0), ("1000000ba", 1.0)],
        None,
    ),
    # Composer lists this case twice (28a / 28b).
    (
        "28a",
        lambda: ConstantWithWarmupScheduler(t_warmup="500ep", alpha=3.0),
        1.0,
        [("0ba", 0.0), ("250000ba", 1.5), ("500000ba", 3.0), ("500500ba", 3.0), ("501000ba", 3.0), ("502000ba", 3.0)],
        None,
    ),
    (
        "28b",
        lambda: ConstantWithWarmupScheduler(t_warmup="500ep", alpha=3.0),
        1.0,
        [("0ba", 0.0), ("250000ba", 1.5), ("500000ba", 3.0), ("500500ba", 3.0), ("501000ba", 3.0), ("502000ba", 3.0)],
        None,
    ),
    (
        29,
        lambda: ConstantWithWarmupScheduler(t_warmup="0.0005dur"),
        1.0,
        [("0ba", 0.0), ("250ba", 0.5), ("500ba", 1.0), ("499750ba", 1.0)],
        None,
    ),
    (
        30,
        lambda: ConstantWithWarmupScheduler(t_warmup="500ep", alpha=3.0, t_max="501000ep"),
        0.5,
        [("0ba", 0.0), ("250000ba", 1.5), ("500000ba", 3.0), ("500500ba", 3.0), ("501000ba", 3.0), ("502000ba", 3.0)],
        None,
    ),
    (
        31,
        lambda: ConstantWithWarmupScheduler(t_warmup="1000ep"),
        1.0,
        [("0ep", 0.0), ("100ep", 0.1), ("1000ep", 1.0)],
        None,
    ),
    (
        32,
        lambda: LinearWithWarmupScheduler(t_warmup="500ep"),
        1.0,
        [("0ba", 0.0), ("250000ba", 0.5), ("500000ba", 1.0), ("750000ba", 0.5), ("1000000ba", 0.0)],
        None,
    ),
    (
        33,
        lambda: LinearWithWarmupScheduler(t_warmup="500ep", alpha_i=3.0, alpha_f=2.0, t_max="1002ep"),
        0.5,
        [("0ba", 0.0), ("250000ba", 1.5), ("500000ba", 3.0), ("500500ba", 2.5), ("501000ba", 2.0), ("502000ba", 2.0)],
        3,  # alpha_f > 1: Cadence warns (deviation 3), the values are Composer's
    ),
    (
        34,
        lambda: LinearWithWarmupScheduler(t_warmup="0.0005dur"),
        1.0,
        [("0ba", 0.0), ("250ba", 0.5), ("500ba", 1.0), ("499750ba", 0.5005002501250626)],
        None,
    ),  # 1 − 499250/999500
    (
        35,
        lambda: LinearWithWarmupScheduler(t_warmup="500ba", scale_warmup=False),
        0.5,
        [("0ba", 0.0), ("250ba", 0.5), ("500ba", 1.0), ("249875ba", 0.5007507507507507)],
        None,
    ),  # 1 − 249375/499500
    # Deviation 1 (docs/composer-deviations.md): scale_warmup=True scales the warmup boundary too, so the
    # warmup ends at 250ba, not 500ba. Composer gives 0.5007507507507507 (1 − 249375/499500) at 249875ba;
    # Cadence gives 1 − 249625/499750 = 0.5005002501250626. At 250ba both give 1.0 (Composer: frozen ramp).
    (
        36,
        lambda: LinearWithWarmupScheduler(t_warmup="500ba", scale_warmup=True),
        0.5,
        [("0ba", 0.0), ("125ba", 0.5), ("250ba", 1.0), ("249875ba", 0.5005002501250626)],
        1,
    ),
    (
        37,
        lambda: LinearWithWarmupScheduler(t_warmup="1000ep"),
        1.0,
        [("0ep", 0.0), ("100ep", 0.1), ("1000ep", 1.0)],
        None,
    ),
    (
        38,
        lambda: CosineAnnealingWithWarmupScheduler(t_warmup="0.9dur"),
        1.0,
        [
            ("0ba", 0.0),
            ("450000ba", 0.5),
            ("900000ba", 1.0),
            ("933333ba", 0.7500045344847027),
            ("950000ba", 0.5),
            ("1000000ba", 0.0),
        ],
        None,
    ),
    (
        39,
        lambda: CosineAnnealingWithWarmupScheduler(t_warmup="0.9dur", alpha_f=0.5),
        0.01,
        [
            ("0ba", 0.0),
            ("4500ba", 0.5),
            ("9000ba", 1.0),
            ("9333ba", 0.8752266563401775),
            ("9500ba", 0.75),
            ("10000ba", 0.5),
        ],
        None,
    ),
    (
        40,
        lambda: CosineAnnealingWithWarmupScheduler(t_warmup="0.9dur", alpha_f=0.5, scale_warmup=True),
        0.01,
        [
            ("0ba", 0.0),
            ("4500ba", 0.5),
            ("9000ba", 1.0),
            ("9333ba", 0.8752266563401775),
            ("9500ba", 0.75),
            ("10000ba", 0.5),
        ],
        None,
    ),
    (
        41,
        lambda: CosineAnnealingWithWarmupScheduler(t_warmup="1000ep"),
        1.0,
        [("0ep", 0.0), ("100ep", 0.1), ("1000ep", 1.0)],
        None,
    ),
    (
        42,
        lambda: PolynomialWithWarmupScheduler(t_warmup="0.9dur"),
        1.0,
        [
            ("0ba", 0.0),
            ("450000ba", 0.5),
            ("900000ba", 1.0),
            ("913397ba", 0.7500079609),
            ("929289ba", 0.5000045521),
            ("1000000ba", 0.0),
        ],
        None,
    ),
    (
        43,
        lambda: PolynomialWithWarmupScheduler(t_warmup="0.9dur", alpha_f=0.5),
        0.01,
        [
            ("0ba", 0.0),
            ("4500ba", 0.5),
            ("9000ba", 1.0),
            ("9134ba", 0.874978),
            ("9293ba", 0.7499245000000001),
            ("10000ba", 0.5),
        ],
        None,
    ),
    (
        44,
        lambda: PolynomialWithWarmupScheduler(t_warmup="0.9dur", alpha_f=0.5, scale_warmup=True),
        0.01,
        [
            ("0ba", 0.0),
            ("4500ba", 0.5),
            ("9000ba", 1.0),
            ("9134ba", 0.874978),
            ("9293ba", 0.7499245000000001),
            ("10000ba", 0.5),
        ],
        None,
    ),
    (
        45,
        lambda: PolynomialWithWarmupScheduler(t_warmup="1000ep"),
        1.0,
        [("0ep", 0.0), ("100ep", 0.1), ("1000ep", 1.0)],
        None,
    ),
]

DATALOADER_LEN = 1000


def harness_state(ssr: float, timestring: str) -> SchedulerState:
    """Composer's harness: max_duration int(1000·ssr) ep, dataloader_len 1000, timestamp from the string."""
    time = Time.from_timestring(timestring)
    if time.unit is TimeUnit.EPOCH:
        timestamp = Timestamp(epoch=time.value, batch=DATALOADER_LEN * time.value)
    else:
        assert time.unit is TimeUnit.BATCH
        timestamp = Timestamp(batch=time.value, epoch=time.value // DATALOADER_LEN)
    return SchedulerState(Time(int(1000 * ssr), "ep"), timestamp, dataloader_len=DATALOADER_LEN)


def _case_id(number, deviation) -> str:
    number = f"{number:02d}" if isinstance(number, int) else number
    return f"case{number}" + (f"-dev{deviation}" if deviation else "")


POINT_PARAMS = [
    pytest.param(factory, ssr, timestring, expected, id=f"{_case_id(number, deviation)}-{timestring}")
    for number, factory, ssr, points, deviation in COMPOSER_CASES
    for timestring, expected in points
]
CASE_PARAMS = [
    pytest.param(factory, ssr, points, id=_case_id(number, deviation))
    for number, factory, ssr, points, deviation in COMPOSER_CASES
]


def test_case_table_is_complete():
    # 45 cases in the spec, case 28 listed twice → 46 Composer params; every point counted once.
    assert len(COMPOSER_CASES) == 46
    assert len(RISING_CASES) == 2
    assert len(POINT_PARAMS) == sum(len(points) for *_, points, _ in COMPOSER_CASES) == 203


@pytest.mark.parametrize("factory, ssr, timestring, expected", POINT_PARAMS)
def test_composer_case_fresh_scheduler(factory, ssr, timestring, expected):
    """Each point with a fresh scheduler: the per-step path ``scheduler(state, ssr)``."""
    state = harness_state(ssr, timestring)
    value = factory()(state, ssr)
    assert isinstance(value, float)
    assert value == approx(expected)


@pytest.mark.parametrize("factory, ssr, timestring, expected", POINT_PARAMS)
def test_composer_case_resolved_curve(factory, ssr, timestring, expected):
    """The same point through ``resolve(...)``: float, int and float64-tensor arguments."""
    state = harness_state(ssr, timestring)
    curve = factory().resolve(Run(state.max_duration, DATALOADER_LEN, ssr=ssr, scaled=True))  # the state's run
    assert curve.unit is TimeUnit.BATCH  # every Composer case resolves to batches (ep → ba)
    count = state.timestamp.batch.value
    assert curve(float(count)) == approx(expected)
    tensor = curve(torch.tensor([count], dtype=torch.float64))
    assert tensor.dtype == torch.float64
    assert float(tensor[0]) == approx(expected)


@pytest.mark.parametrize("factory, ssr, points", CASE_PARAMS)
def test_composer_case_one_scheduler_all_points(factory, ssr, points):
    """Composer's own loop: one scheduler and one state object, the timestamp moved point to point
    (forwards, then backwards), so the cached resolution is exercised."""
    scheduler = factory()
    state = harness_state(ssr, points[0][0])
    for timestring, expected in points + points[::-1]:
        state.timestamp = harness_state(ssr, timestring).timestamp
        assert scheduler(state, ssr) == approx(expected), timestring


# the rising cases warn at construction; the tests below check the warning, the others only the values
pytestmark = pytest.mark.filterwarnings(r"ignore:alpha_f=2.0 > 1. the schedule ends above:UserWarning")
RISING_CASES = [pytest.param(factory, id=_case_id(n, dev)) for n, factory, _, _, dev in COMPOSER_CASES if dev == 3]


@pytest.mark.parametrize("factory", RISING_CASES)
def test_deviation3_rising_cases_warn_once_naming_alpha_f(factory):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schedule = factory()
        schedule(harness_state(1.0, "10ba"))
        schedule(harness_state(1.0, "20ba"))
    assert [str(w.message)[:15] for w in caught] == ["alpha_f=2.0 > 1"]
    assert caught[0].category is UserWarning and "the schedule ends above the base value" in str(caught[0].message)


def test_deviation3_negative_multipliers_composer_accepts_are_errors():
    for build, argument in [
        (lambda: LinearScheduler(alpha_i=0.0, alpha_f=-0.5), "alpha_f"),
        (lambda: LinearWithWarmupScheduler("1ba", alpha_i=-1.0), "alpha_i"),
        (lambda: ConstantWithWarmupScheduler("1ba", alpha=-0.1), "alpha"),
        (lambda: CosineAnnealingScheduler(alpha_f=-0.5), "alpha_f"),
    ]:
        with pytest.raises(ValueError, match=rf"^{argument}=-[0-9.]+ must be >= 0: a negative multiplier"):
            build()


def test_deviation1_case36_differs_from_composer():
    """Case 36 is the one value deviation 1 changes: Composer's number must NOT come out."""
    state = harness_state(0.5, "249875ba")
    value = LinearWithWarmupScheduler(t_warmup="500ba", scale_warmup=True)(state, 0.5)
    assert value != approx(0.5007507507507507)
    curve = LinearWithWarmupScheduler(t_warmup="500ba", scale_warmup=True).resolve(
        Run("500ep", 1000, ssr=0.5, scaled=True)
    )
    assert curve.times["t_warmup"] == Time(250, "ba")
    assert curve.times["t_max"] == Time(500_000, "ba")
    # with scale_warmup=False (case 35) the boundary stays at 500ba, as in Composer
    curve = LinearWithWarmupScheduler(t_warmup="500ba", scale_warmup=False).resolve(
        Run("500ep", 1000, ssr=0.5, scaled=True)
    )
    assert curve.times["t_warmup"] == Time(500, "ba")


def test_deviation1_no_frozen_ramp_and_no_jump():
    """Composer (scale_warmup=True) freezes the ramp when ssr < 1 and jumps when ssr > 1; Cadence ends the warmup
    at the scaled boundary (deviation 1)."""
    # ssr 0.5: warmup 100ba → 50ba; Composer holds 1.0 on [50, 100) then decays from 100. Cadence decays from 50.
    sched = LinearWithWarmupScheduler(t_warmup="100ba", scale_warmup=True)
    state = SchedulerState("500ba", Timestamp(batch=49))
    assert sched(state, 0.5) == approx(0.98)
    state.timestamp = Timestamp(batch=50)
    assert sched(state, 0.5) == approx(1.0)
    state.timestamp = Timestamp(batch=75)
    assert sched(state, 0.5) == approx(1 - 25 / 450)  # Composer: 1.0 (frozen)
    # ssr 2: warmup 100ba → 200ba; Composer reaches 0.495 at 99 and jumps to 1.0 at 100
    sched = LinearWithWarmupScheduler(t_warmup="100ba", scale_warmup=True)
    state = SchedulerState("2000ba", Timestamp(batch=99))
    assert sched(state, 2.0) == approx(0.495)
    state.timestamp = Timestamp(batch=100)
    assert sched(state, 2.0) == approx(0.5)  # Composer: 1.0 (jump)
    state.timestamp = Timestamp(batch=199)
    assert sched(state, 2.0) == approx(199 / 200)
    state.timestamp = Timestamp(batch=200)
    assert sched(state, 2.0) == approx(1.0)


def test_deviation1_scaled_warmup_that_rounds_to_zero_is_no_warmup():
    """Composer: tw=1ba, ssr 0.5, scale_warmup=True → ZeroDivisionError at t=0. Cadence: the warmup resolves to
    0ba, so there is no warmup (warned once), never a ZeroDivisionError."""
    sched = CosineAnnealingWithWarmupScheduler(t_warmup="1ba", scale_warmup=True)
    state = SchedulerState("100ba")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert sched(state, 0.5) == approx(1.0)
    assert any("warmup" in str(w.message).lower() for w in caught)


# ------------------------------------------------------------------------------------------------------------
# Extra cases: samples and tokens, ssr ∈ {0.5, 1, 1.5}, scale_warmup on/off, warmup boundary, t_max, past t_max
# ------------------------------------------------------------------------------------------------------------

RUN = 1000  # unscaled run length in sp / tok


def _timestamp(unit: str, count: int) -> Timestamp:
    # batches advance too, but far from the sp/tok counts, so reading the wrong counter shows
    return Timestamp(batch=7, sample=count, token=0) if unit == "sp" else Timestamp(batch=7, sample=3, token=count)


def _cos(frac: float, alpha_f: float) -> float:
    frac = min(max(frac, 0.0), 1.0)
    return alpha_f + (1 - alpha_f) * (1 + math.cos(math.pi * frac)) / 2


def _after(x: int, tw: int, tmax: int) -> float:
    return min(1.0, (x - tw) / (tmax - tw)) if tmax > tw else 0.0


# Warmup schedules: t_warmup 200, t_max 1200 (in sp or tok), run int(1000·ssr).
# Each entry: (name, factory(unit, scale_warmup), post-warmup value f(x, tw, tmax, ssr), peak)
WARMUP_EXTRA = [
    (
        "LinearWithWarmup",
        lambda u, sw: LinearWithWarmupScheduler(f"200{u}", alpha_i=2.0, alpha_f=0.5, t_max=f"1200{u}", scale_warmup=sw),
        lambda x, tw, tmax, s: 2.0 + (0.5 - 2.0) * _after(x, tw, tmax),
        2.0,
    ),
    (
        "CosineWithWarmup",
        lambda u, sw: CosineAnnealingWithWarmupScheduler(f"200{u}", t_max=f"1200{u}", alpha_f=0.1, scale_warmup=sw),
        lambda x, tw, tmax, s: _cos(_after(x, tw, tmax), 0.1),
        1.0,
    ),
    (
        "PolynomialWithWarmup",
        lambda u, sw: PolynomialWithWarmupScheduler(
            f"200{u}", power=3.0, t_max=f"1200{u}", alpha_f=0.2, scale_warmup=sw
        ),
        lambda x, tw, tmax, s: 0.2 + 0.8 * (1 - _after(x, tw, tmax)) ** 3.0,
        1.0,
    ),
    (
        "ConstantWithWarmup",
        lambda u, sw: ConstantWithWarmupScheduler(f"200{u}", alpha=0.7, t_max=f"1200{u}", scale_warmup=sw),
        lambda x, tw, tmax, s: 0.7,
        0.7,
    ),
    (
        "MultiStepWithWarmup",
        lambda u, sw: MultiStepWithWarmupScheduler(
            f"200{u}", milestones=[f"600{u}", f"900{u}"], gamma=0.5, scale_warmup=sw
        ),
        lambda x, tw, tmax, s: 0.5 ** ((x >= int(600 * s)) + (x >= int(900 * s))),
        1.0,
    ),
]

SSRS = [0.5, 1.0, 1.5]


def _warmup_extra_params():
    for (name, factory, post, peak), unit, ssr, sw in itertools.product(
        WARMUP_EXTRA, ["sp", "tok"], SSRS, [False, True]
    ):
        dev = "-dev1" if (sw and ssr != 1.0) else ""
        yield pytest.param(factory, post, peak, unit, ssr, sw, id=f"{name}-{unit}-ssr{ssr}-sw{int(sw)}{dev}")


@pytest.mark.parametrize("factory, post, peak, unit, ssr, scale_warmup", list(_warmup_extra_params()))
def test_warmup_schedules_in_samples_and_tokens(factory, post, peak, unit, ssr, scale_warmup):
    # Composer: t_warmup never ssr-scaled; Cadence with scale_warmup=True scales it (deviation 1)
    tw = int(200 * ssr) if scale_warmup else 200
    tmax = int(1200 * ssr)
    run = f"{int(RUN * ssr)}{unit}"
    sched = factory(unit, scale_warmup)
    curve = sched.resolve(Run(run, ssr=ssr, scaled=True))  # no dataloader_len needed for sp / tok
    assert curve.unit is TimeUnit(unit)
    assert curve.times["t_warmup"] == Time(tw, unit)
    if "t_max" in curve.times:
        assert curve.times["t_max"] == Time(tmax, unit)
    points = {
        0: 0.0,
        tw // 2: peak * (tw // 2) / tw,
        tw - 1: peak * (tw - 1) / tw,
        tw: post(tw, tw, tmax, ssr),  # exactly t_warmup: the post-warmup branch (strict <)
        tw + 1: post(tw + 1, tw, tmax, ssr),
        (tw + tmax) // 2: post((tw + tmax) // 2, tw, tmax, ssr),
        tmax - 1: post(tmax - 1, tw, tmax, ssr),
        tmax: post(tmax, tw, tmax, ssr),
        tmax + 333: post(tmax + 333, tw, tmax, ssr),  # past t_max: held
    }
    state = SchedulerState(run)
    for x, expected in sorted(points.items()):
        state.timestamp = _timestamp(unit, x)
        assert sched(state, ssr) == approx(expected), x
        assert curve(float(x)) == approx(expected), x


def test_warmup_boundary_values_literal():
    """A few literal values (no helper formulas) in tokens and samples."""
    sched = CosineAnnealingWithWarmupScheduler("200tok", t_max="1200tok", alpha_f=0.1)
    state = SchedulerState("1000tok", Timestamp(token=199))
    assert sched(state) == approx(0.995)
    state.timestamp = Timestamp(token=200)
    assert sched(state) == approx(1.0)
    state.timestamp = Timestamp(token=700)
    assert sched(state) == approx(0.55)
    state.timestamp = Timestamp(token=1200)
    assert sched(state) == approx(0.1)
    state.timestamp = Timestamp(token=5000)
    assert sched(state) == approx(0.1)
    # ssr 1.5, scale_warmup=False: boundary 200, t_max 1800, run 1500sp
    sched = LinearWithWarmupScheduler("200sp", alpha_i=2.0, alpha_f=0.5, t_max="1200sp")
    state = SchedulerState("1500sp", Timestamp(sample=100))
    assert sched(state, 1.5) == approx(1.0)
    state.timestamp = Timestamp(sample=200)
    assert sched(state, 1.5) == approx(2.0)
    state.timestamp = Timestamp(sample=1000)
    assert sched(state, 1.5) == approx(1.25)
    state.timestamp = Timestamp(sample=1800)
    assert sched(state, 1.5) == approx(0.5)
    state.timestamp = Timestamp(sample=1801)
    assert sched(state, 1.5) == approx(0.5)


# Schedules without warmup in sp / tok: (name, factory(unit), expected(x, s), breakpoints(s))
PLAIN_EXTRA = [
    (
        "Step",
        lambda u: StepScheduler(f"100{u}", gamma=0.5),
        lambda x, s: 0.5 ** (x // int(100 * s)),
        lambda s: [int(100 * s) * k for k in (1, 2, 5)],
    ),
    (
        "MultiStep",
        lambda u: MultiStepScheduler([f"300{u}", "0.5dur", f"300{u}"], gamma=0.1),
        lambda x, s: 0.1 ** (2 * (x >= int(300 * s)) + (x >= int(500 * s))),
        lambda s: [int(300 * s), int(500 * s)],
    ),
    (
        "Constant",
        lambda u: ConstantScheduler(alpha=0.3, t_max="0.5dur"),
        lambda x, s: 0.3 if x < int(500 * s) else 1.0,
        lambda s: [int(500 * s)],
    ),
    (
        "Linear",
        lambda u: LinearScheduler(alpha_i=1.0, alpha_f=0.25, t_max=f"800{u}"),
        lambda x, s: 1.0 + (0.25 - 1.0) * min(1.0, x / int(800 * s)),
        lambda s: [int(800 * s)],
    ),
    (
        "Exponential",
        lambda u: ExponentialScheduler(0.5, decay_period=f"250{u}"),
        lambda x, s: 0.5 ** (x / int(250 * s)),
        lambda s: [int(250 * s)],
    ),
    (
        "Cosine",
        lambda u: CosineAnnealingScheduler(t_max=f"800{u}", alpha_f=0.2),
        lambda x, s: _cos(x / int(800 * s), 0.2),
        lambda s: [int(800 * s)],
    ),
    (
        "WarmRestarts",
        lambda u: CosineAnnealingWarmRestartsScheduler(f"200{u}", t_mult=2.0, alpha_f=0.1),
        # ends 200s, 600s, 1400s, 3000s (lengths 200s, 400s, 800s, 1600s)
        lambda x, s: _restarts(x, [int(200 * s) * k for k in (1, 3, 7, 15)], 0.1),
        lambda s: [int(200 * s) * k for k in (1, 3)],
    ),
    (
        "Polynomial",
        lambda u: PolynomialScheduler(2.0, t_max=f"800{u}", alpha_f=0.1),
        lambda x, s: 0.1 + 0.9 * (1 - min(1.0, x / int(800 * s))) ** 2,
        lambda s: [int(800 * s)],
    ),
]


def _restarts(x: int, ends: list[int], alpha_f: float) -> float:
    start = 0
    for end in ends:
        if x < end:
            return _cos((x - start) / (end - start), alpha_f)
        start = end
    raise AssertionError("point past the last end")


@pytest.mark.parametrize("unit", ["sp", "tok"])
@pytest.mark.parametrize("ssr", SSRS)
@pytest.mark.parametrize("name, factory, expected, breaks", PLAIN_EXTRA, ids=[c[0] for c in PLAIN_EXTRA])
def test_plain_schedules_in_samples_and_tokens(name, factory, expected, breaks, unit, ssr):
    run = f"{int(RUN * ssr)}{unit}"
    sched = factory(unit)
    points = {0, 1, 137, int(RUN * ssr) - 1, int(RUN * ssr), int(RUN * ssr) + 250}
    for b in breaks(ssr):
        points |= {b - 1, b, b + 1}
    if name == "WarmRestarts":
        # within the run only; past max_duration see test_warm_restarts_past_max_duration
        points = {x for x in points if x <= int(RUN * ssr)}
    state = SchedulerState(run)
    curve = sched.resolve(Run(run, ssr=ssr, scaled=True))
    assert curve.unit is TimeUnit(unit)
    for x in sorted(points):
        state.timestamp = _timestamp(unit, x)
        assert sched(state, ssr) == approx(expected(x, ssr)), x
        assert curve(float(x)) == approx(expected(x, ssr)), x


def _composer_warm_restarts(x: int, t_0: int, t_mult: float, alpha_f: float = 0.0) -> float:
    """Composer's loop (spec §2.7): cycle lengths int(t_mult · previous), restart at exactly a cycle end."""
    length = end = t_0
    while end <= x:
        if length == 0:
            raise ValueError("Interval between restarts for cosine annealing/warm restarts scheduler has decayed to 0.")
        length = int(t_mult * length)
        end += length
    return _cos((x - (end - length)) / length, alpha_f)


@pytest.mark.parametrize(
    "t_0, max_duration, dataloader_len, counts",
    [
        # t_0 in samples, run in batches (10 samples per batch → 1000 samples): Composer has no unit check here
        pytest.param("100sp", "100ba", None, lambda x: Timestamp(batch=x // 10, sample=x), id="t0-sp-run-ba"),
        # t_0 in batches, run in epochs without dataloader_len: Composer needs no dataloader_len for a ba t_0
        pytest.param(
            "100ba", "10ep", None, lambda x: Timestamp(epoch=x // 100, batch=x, sample=3 * x), id="t0-ba-run-ep-no-L"
        ),
        pytest.param("100tok", "1000sp", None, lambda x: Timestamp(sample=x // 4, token=x), id="t0-tok-run-sp"),
    ],
)
def test_warm_restarts_t0_in_another_unit_than_max_duration(t_0, max_duration, dataloader_len, counts):
    """t_0 = 100, t_mult = 2: cycles end at 100, 300, 700, 1500 (in t_0's unit) for the whole run.

    ``counts(x)`` is the timestamp where t_0's unit reads ``x`` (the run is 1000 of t_0's unit long)."""
    sched = CosineAnnealingWarmRestartsScheduler(t_0, t_mult=2.0)
    state = SchedulerState(max_duration, dataloader_len=dataloader_len)
    for x in (0, 99, 100, 250, 300, 400, 500, 699, 700, 1000):
        state.timestamp = counts(x)
        assert sched(state) == approx(_composer_warm_restarts(x, 100, 2.0)), x


def test_warm_restarts_past_max_duration():
    """Composer's cycles go on growing after max_duration (it has no horizon): ends 10, 30, 70, 150, 310, 630."""
    sched = CosineAnnealingWarmRestartsScheduler("10ba", t_mult=2.0, alpha_f=0.1)
    state = SchedulerState("100ba")
    for x in (100, 149, 150, 200, 310, 320, 629, 630, 1000):
        state.timestamp = Timestamp(batch=x)
        assert sched(state) == approx(_composer_warm_restarts(x, 10, 2.0, 0.1)), x


@pytest.mark.parametrize(
    "t_0, t_mult, last",
    [
        (60, 0.5, 115),  # lengths 60, 30, 15, 7, 3, 1: Composer raises from 116 on
        (60, 0.75, 217),  # 60, 45, 33, 24, 18, 13, 9, 6, 4, 3, 2, 1
        (30, 1.0, 400),
        (30, 1.5, 400),  # 30, 45, 67, 100, 150: truncation, not geometric
        (7, 3.0, 400),
    ],
)
def test_warm_restarts_keep_composers_intervals_past_max_duration(t_0, t_mult, last):
    """Past the run the intervals keep shrinking or growing by t_mult; the last interval inside the run does not
    repeat. Per step, on a tensor of counts and traced by torch.compile, to Composer's loop."""
    sched = CosineAnnealingWarmRestartsScheduler(f"{t_0}ba", t_mult=t_mult, alpha_f=0.1)
    state = SchedulerState("100ba")
    xs = list(range(last + 1))
    expected = [_composer_warm_restarts(x, t_0, t_mult, 0.1) for x in xs]
    per_step = []
    for x in xs:
        state.timestamp = Timestamp(batch=x)
        per_step.append(sched(state))
    assert per_step == approx(expected)
    curve = sched.resolve("100ba")
    counts = torch.tensor(xs, dtype=torch.float64)
    assert curve(counts).tolist() == approx(expected)
    torch._dynamo.reset()
    traced = torch.compile(curve.fn, fullgraph=True, backend="eager")
    assert traced(counts).tolist() == approx(expected)


def test_shrinking_warm_restarts_at_batch_110_of_a_100_batch_run():
    """The issue's case: t_0 = 60ba, t_mult = 0.5 on 100ba; batch 110 lies in [105, 112), 5/7 of the way."""
    state = SchedulerState("100ba", Timestamp(batch=110))
    value = CosineAnnealingWarmRestartsScheduler("60ba", t_mult=0.5)(state)
    assert value == approx((1 + math.cos(math.pi * 5 / 7)) / 2) and round(value, 3) == 0.188


def test_shrinking_warm_restarts_repeat_the_last_interval_where_composer_raises():
    """From 116 Composer's next interval is 0 long and it raises; Cadence repeats the last one (1 batch)."""
    sched = CosineAnnealingWarmRestartsScheduler("60ba", t_mult=0.5, alpha_f=0.1)
    with pytest.raises(ValueError, match="decayed to 0"):
        _composer_warm_restarts(116, 60, 0.5)
    for x in (115, 116, 117, 500):
        assert sched(SchedulerState("100ba", Timestamp(batch=x))) == 1.0


def test_composer_warm_restarts_reference_matches_spec():
    # the reference loop above against spec case 18 (t_0 = 3000, t_mult 1.5: ends 3000, 7500, 14250)
    assert [_composer_warm_restarts(x, 3000, 1.5) for x in (0, 1000, 3000, 4500, 7500, 14250)] == approx(
        [1.0, 0.75, 1.0, 0.75, 1.0, 1.0]
    )


def test_epoch_times_scale_via_dataloader_len():
    """'2ep' with 10 batches/epoch at ssr 1.5 is 30 batches; a dur of an epoch run is in batches, unscaled."""
    sched = StepScheduler("2ep", gamma=0.5)
    curve = sched.resolve(Run("9ep", 10, ssr=1.5, scaled=True))
    assert curve.times["step_size"] == Time(30, "ba")
    state = SchedulerState("9ep", Timestamp(epoch=2, batch=29), dataloader_len=10)
    assert sched(state, 1.5) == approx(1.0)
    state.timestamp = Timestamp(epoch=3, batch=30)
    assert sched(state, 1.5) == approx(0.5)
    curve = CosineAnnealingScheduler(t_max="0.5dur").resolve(Run("9ep", 10, ssr=1.5, scaled=True))
    assert curve.times["t_max"] == Time(45, "ba")


# ------------------------------------------------------------------------------------------------------------
# Deviation 2: dur / ssr products snap to the nearest integer within 1e-9 (Composer truncates float error)
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "t_max, max_duration, dataloader_len, ssr, expected, composer",
    [
        pytest.param("0.29dur", "100ba", None, 1.0, Time(29, "ba"), 28, id="0.29dur-of-100ba-dev2"),
        pytest.param("0.57dur", "100ba", None, 1.0, Time(57, "ba"), 56, id="0.57dur-of-100ba-dev2"),
        pytest.param("0.29dur", "100sp", None, 1.0, Time(29, "sp"), 28, id="0.29dur-of-100sp-dev2"),
        pytest.param("100ba", "29ba", None, 0.29, Time(29, "ba"), 28, id="100ba-ssr0.29-dev2"),
        pytest.param("1ep", "1ep", 100, 0.29, Time(29, "ba"), 28, id="1ep-L100-ssr0.29-dev2"),
        pytest.param("0.29dur", "1ep", 100, 1.0, Time(29, "ba"), 28, id="0.29dur-of-1ep-L100-dev2"),
        # not near an integer: truncated, as Composer
        pytest.param("0.295dur", "100ba", None, 1.0, Time(29, "ba"), 29, id="0.295dur-truncates"),
        pytest.param("0.999dur", "100ba", None, 1.0, Time(99, "ba"), 99, id="0.999dur-truncates"),
    ],
)
def test_deviation2_whole_counts(t_max, max_duration, dataloader_len, ssr, expected, composer):
    # check Composer's number really is what the spec says (the float error exists), then Cadence's
    value = Time.from_timestring(t_max).value
    md = Time.from_timestring(max_duration)
    if t_max.endswith("dur"):
        product = value * dataloader_len * md.value if md.unit is TimeUnit.EPOCH else value * md.value
    else:
        product = value * (dataloader_len or 1) * ssr
    assert int(product) == composer
    times = LinearScheduler(t_max=t_max).resolve(Run(max_duration, dataloader_len, ssr=ssr, scaled=True)).times
    assert times["t_max"] == expected
    assert times["t_max"].unit is expected.unit


def test_deviation2_changes_values():
    """0.29dur of 100ba: at batch 28 Composer is already at alpha_f (28/28); Cadence is at 1 − 28/29."""
    sched = LinearScheduler(t_max="0.29dur")
    state = SchedulerState("100ba", Timestamp(batch=28))
    assert sched(state) == approx(1 - 28 / 29)
    state.timestamp = Timestamp(batch=29)
    assert sched(state) == approx(0.0)


# ------------------------------------------------------------------------------------------------------------
# Deviation 3: the zero-warmup warning is issued once per scheduler
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "factory, expected_first",
    [
        pytest.param(lambda: CosineAnnealingWithWarmupScheduler(t_warmup="0ba"), 1.0, id="cosine-0ba"),
        pytest.param(lambda: LinearWithWarmupScheduler(t_warmup="0.001dur"), 1.0, id="linear-0.001dur"),
        pytest.param(lambda: PolynomialWithWarmupScheduler(t_warmup="0ba"), 1.0, id="poly-0ba"),
        pytest.param(lambda: ConstantWithWarmupScheduler(t_warmup="0ep", alpha=0.5), 0.5, id="constant-0ep"),
        pytest.param(
            lambda: MultiStepWithWarmupScheduler(t_warmup="0ba", milestones=["50ba"]), 1.0, id="multistep-0ba"
        ),
    ],
)
def test_deviation3_zero_warmup_warns_once_per_scheduler(factory, expected_first):
    sched = factory()
    state = SchedulerState("100ba", dataloader_len=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = sched(state)
        for _ in range(999):
            state.timestamp = state.timestamp.to_next_batch()
            sched(state)
    zero_warnings = [w for w in caught if "warmup" in str(w.message).lower()]
    assert len(zero_warnings) == 1, [str(w.message) for w in caught]
    assert issubclass(zero_warnings[0].category, UserWarning)
    # no warmup at all: the schedule starts in the post-warmup branch (no ZeroDivisionError)
    assert first == approx(expected_first)
    # re-resolving for other runs (max_duration / ssr change every call) does not warn again either
    other_run = SchedulerState("50ba", dataloader_len=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(50):
            sched(state if i % 2 else other_run, 1.0 if i % 3 else 1.0 + i / 100)
    assert not [w for w in caught if "warmup" in str(w.message).lower()]
    # a second scheduler warns again (once per scheduler, not once per process)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        other = factory()
        other(SchedulerState("100ba", dataloader_len=10))
        other(SchedulerState("100ba", Timestamp(batch=5), dataloader_len=10))
    assert len([w for w in caught if "warmup" in str(w.message).lower()]) == 1


def test_nonzero_warmup_does_not_warn():
    sched = CosineAnnealingWithWarmupScheduler(t_warmup="1ba")
    state = SchedulerState("100ba")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(10):
            sched(state)
            state.timestamp = state.timestamp.to_next_batch()
    assert not caught


# ------------------------------------------------------------------------------------------------------------
# §3.3: test_warmup_schedulers_fail_fast, with Cadence's one-unit rule (docs/schedules.md)
# ------------------------------------------------------------------------------------------------------------

TOK_PER_SAMPLE, SAMPLES_PER_BATCH, BATCHES_PER_EPOCH, EPOCHS = 8, 16, 32, 4
TOTAL = {
    "ep": EPOCHS,
    "ba": EPOCHS * BATCHES_PER_EPOCH,  # 128
    "sp": EPOCHS * BATCHES_PER_EPOCH * SAMPLES_PER_BATCH,  # 2048
    "tok": EPOCHS * BATCHES_PER_EPOCH * SAMPLES_PER_BATCH * TOK_PER_SAMPLE,  # 16384
}
TIME_UNITS = ["ba", "tok", "sp", "ep", "dur"]


def _time_string(unit: str, pct: float) -> str:
    if unit == "dur":
        return f"{pct}dur"
    return f"{int(TOTAL[unit] * pct)}{unit}"


def _effective(unit: str, md_unit: str) -> str:
    """The unit a time resolves to: dur follows max_duration, then ep becomes ba."""
    unit = md_unit if unit == "dur" else unit
    return "ba" if unit == "ep" else unit


def _in_batches_or_none(unit: str, pct: float, md_unit: str):
    """t_max and max_duration as comparable numbers, or None when the units are not comparable."""
    t_unit = _effective(unit, md_unit)
    md_eff = _effective(md_unit, md_unit)
    if t_unit != md_eff:
        return None
    if unit == "dur":
        t_value = pct * TOTAL[md_eff]
    elif unit == "ep":
        t_value = int(TOTAL["ep"] * pct) * BATCHES_PER_EPOCH
    else:
        t_value = int(TOTAL[unit] * pct)
    return t_value, TOTAL[md_eff]


def _expected_outcome(cls_name: str, md_unit: str, warmup_unit: str, t_max_unit: str, pct: float):
    warm = _effective(warmup_unit, md_unit)
    if cls_name == "MultiStepWithWarmup":
        # no t_max; Cadence (docs/schedules.md) requires t_warmup and milestones=['60ba'] to share one unit
        return "units" if warm != "ba" else "ok"
    if warm != _effective(t_max_unit, md_unit):
        return "units"
    compared = _in_batches_or_none(t_max_unit, pct, md_unit)
    if compared is not None and compared[0] < compared[1]:
        return "tmax"
    return "ok"


FAIL_FAST_CLASSES = {
    "CosineWithWarmup": lambda tw, tm: CosineAnnealingWithWarmupScheduler(t_warmup=tw, t_max=tm),
    "MultiStepWithWarmup": lambda tw, tm: MultiStepWithWarmupScheduler(t_warmup=tw, milestones=["60ba"]),
    "ConstantWithWarmup": lambda tw, tm: ConstantWithWarmupScheduler(t_warmup=tw, t_max=tm),
    "LinearWithWarmup": lambda tw, tm: LinearWithWarmupScheduler(t_warmup=tw, t_max=tm),
    "PolynomialWithWarmup": lambda tw, tm: PolynomialWithWarmupScheduler(t_warmup=tw, t_max=tm),
}

FAIL_FAST_PARAMS = [
    pytest.param(cls_name, md, wu, tu, pct, id=f"{cls_name}-md_{md}-warm_{wu}-tmax_{tu}-{pct}")
    for cls_name in FAIL_FAST_CLASSES
    for md in ["tok", "sp", "ba", "ep"]
    for wu in TIME_UNITS
    for tu in TIME_UNITS
    for pct in [0.75, 1.25]
]


def test_fail_fast_expectations_match_spec_examples():
    """The rule above reproduces the spec's example rows (for the four classes with t_max)."""
    rows = {
        ("tok", "ba", "ba"): ("ok", "ok"),
        ("tok", "ba", "tok"): ("units", "units"),
        ("tok", "tok", "dur"): ("tmax", "ok"),
        ("tok", "ep", "ep"): ("ok", "ok"),
        ("sp", "tok", "tok"): ("ok", "ok"),
        ("ba", "ba", "ep"): ("tmax", "ok"),
        ("ba", "dur", "sp"): ("units", "units"),
        ("ep", "ep", "dur"): ("tmax", "ok"),
        ("ep", "sp", "sp"): ("ok", "ok"),
    }
    for (md, wu, tu), outcomes in rows.items():
        got = tuple(_expected_outcome("LinearWithWarmup", md, wu, tu, pct) for pct in (0.75, 1.25))
        assert got == outcomes, (md, wu, tu)
    # and every 0.75 t_max in a comparable unit fails, every 1.25 passes that check
    assert _expected_outcome("CosineWithWarmup", "ba", "ba", "ba", 0.75) == "tmax"
    assert _expected_outcome("CosineWithWarmup", "ba", "ba", "ba", 1.25) == "ok"
    # MultiStepWithWarmup (Cadence): a warmup in sp/tok, or a dur warmup of a sp/tok run, mismatches '60ba'
    assert _expected_outcome("MultiStepWithWarmup", "tok", "dur", "ba", 0.75) == "units"
    assert _expected_outcome("MultiStepWithWarmup", "ep", "dur", "tok", 0.75) == "ok"
    assert _expected_outcome("MultiStepWithWarmup", "ba", "sp", "ba", 1.25) == "units"


def test_fail_fast_matrix_size():
    assert len(FAIL_FAST_PARAMS) == 5 * 4 * 5 * 5 * 2
    outcomes = [_expected_outcome(*p.values) for p in FAIL_FAST_PARAMS]
    # all three outcomes occur, so the matrix tests both the errors and the clean runs
    assert {o: outcomes.count(o) for o in ("ok", "units", "tmax")} == {"ok": 316, "units": 580, "tmax": 104}


@pytest.mark.parametrize("cls_name, md_unit, warmup_unit, t_max_unit, pct", FAIL_FAST_PARAMS)
def test_warmup_schedulers_fail_fast(cls_name, md_unit, warmup_unit, t_max_unit, pct):
    warmup = _time_string(warmup_unit, 0.25)
    t_max = _time_string(t_max_unit, pct)
    state = SchedulerState(f"{TOTAL[md_unit]}{md_unit}", dataloader_len=BATCHES_PER_EPOCH)
    expected = _expected_outcome(cls_name, md_unit, warmup_unit, t_max_unit, pct)

    def run():
        scheduler = FAIL_FAST_CLASSES[cls_name](warmup, t_max)
        values = []
        for _ in range(TOTAL["ba"]):
            values.append(scheduler(state))
            state.timestamp = state.timestamp.to_next_batch(
                samples=SAMPLES_PER_BATCH, tokens=SAMPLES_PER_BATCH * TOK_PER_SAMPLE
            )
        return values

    if expected == "units":
        with pytest.raises(ValueError) as info:
            run()
        message = str(info.value)
        assert "t_warmup" in message
        assert ("t_max" in message) if cls_name != "MultiStepWithWarmup" else ("milestones" in message)
        assert "must be greater than or equal to max_duration" not in message
    elif expected == "tmax":
        with pytest.raises(ValueError, match="must be greater than or equal to max_duration") as info:
            run()
        assert "t_max" in str(info.value)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a 25 % warmup is never zero
            values = run()
        assert len(values) == TOTAL["ba"]
        assert values[0] == 0.0  # warmup starts at 0
        assert all(math.isfinite(v) for v in values)
        # the warmup lasts exactly 32 batches: α(batch 16) is half the peak
        peak = 1.0
        assert values[16] == approx(0.5 * peak)
        assert values[32] == approx(peak)
