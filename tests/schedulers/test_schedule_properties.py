"""Hypothesis properties of Composer's 13 schedulers in Cadence (docs/schedules.md,
docs/composer-deviations.md).

- values stay within the range of the schedule's alphas (0 included for warmups);
- the warmup ramp meets the post-warmup curve without a jump (also with ssr ≠ 1 and scale_warmup=True,
  deviation 1);
- decaying schedules never increase after the warmup;
- ssr invariance: ssr s on a run scaled by s, at count s·t, equals ssr 1 at t (int-exact cases);
- the float path and the float64 tensor path agree to 1e-12;
- ``schedule(state)`` equals ``schedule.resolve(...)(count)``;
- a schedule resolves once per (max_duration, dataloader_len, ssr) and again only when one changes.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

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
    Schedule,
    SchedulerState,
    StepScheduler,
)
from schedulers.core.run import Run
from timeunits import Time, Timestamp

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from resolve_spy import count_outermost_resolutions  # noqa: E402

# docs/architecture.md: a hypothesis profile with no deadline (the first example pays for imports).
settings.register_profile(
    "cadence-schedulers", deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow]
)
PROPERTY = settings(settings.get_profile("cadence-schedulers"))

CLASSES = [
    "Step",
    "MultiStep",
    "Constant",
    "Linear",
    "Exponential",
    "Cosine",
    "WarmRestarts",
    "Polynomial",
    "MultiStepWithWarmup",
    "ConstantWithWarmup",
    "LinearWithWarmup",
    "CosineWithWarmup",
    "PolynomialWithWarmup",
]
WARMUP_CLASSES = [c for c in CLASSES if c.endswith("WithWarmup")]
UNITS = ["ba", "sp", "tok"]


def close(a: float, b: float, tol: float = 1e-12) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def timestamp_at(unit: str, count: int) -> Timestamp:
    """A timestamp whose ``unit`` counter reads ``count``; the other counters read something else."""
    if unit == "ba":
        return Timestamp(batch=count, sample=3 * count + 1, token=7 * count + 2)
    if unit == "sp":
        return Timestamp(batch=count // 3, sample=count, token=5 * count + 1)
    return Timestamp(batch=count // 11, sample=count // 3, token=count)


@dataclass
class Case:
    """A drawn schedule with what the properties need to know about it."""

    name: str
    schedule: Schedule
    max_duration: str
    unit: str
    alphas: list = field(default_factory=list)  # values the schedule moves between (for the range)
    decreasing: bool = False  # non-increasing after warmup
    peak: float | None = None  # warmup target, for warmup classes
    dataloader_len: int | None = None
    growth: tuple | None = None  # (gamma, period argument) of Step / Exponential: α moves to gamma^(x/period)

    def range_up_to(self, curve, x_max: float) -> tuple[float, float]:
        """min and max of the alphas the schedule moves between on [0, x_max]."""
        values = list(self.alphas)
        if self.growth is not None:
            gamma, argument = self.growth
            values.append(gamma ** (x_max / curve.times[argument].value))
        return min(values), max(values)


# multipliers are >= 0 (a negative one is a ValueError naming it); above 1 a schedule rises, with a warning
alphas = st.floats(0.0, 3.0, allow_nan=False).map(lambda a: round(a, 3))
pytestmark = pytest.mark.filterwarnings(r"ignore:alpha_f=.* > 1. the schedule ends above:UserWarning")
unit_alphas = st.floats(0.0, 1.0).map(lambda a: round(a, 3))


class _Run:
    """What a case builder draws with: the run (M counts of ``unit``) and time strings within it."""

    def __init__(self, draw, unit: str, M: int) -> None:
        self.draw, self.unit, self.M, self.md = draw, unit, M, f"{M}{unit}"

    def t(self, lo: int, hi: int) -> str:  # a time in the run's unit, or the same as a dur when exact
        v = self.draw(st.integers(lo, hi))
        if self.draw(st.booleans()) and (v * 8) % self.M == 0:
            return f"{v / self.M}dur"
        return f"{v}{self.unit}"

    def t_max(self) -> str:  # a t_max covering the run
        M, unit = self.M, self.unit
        return self.draw(
            st.sampled_from(["1dur", "1.5dur", f"{M}{unit}", f"{M + self.draw(st.integers(1, 500))}{unit}"])
        )

    def case(self, name: str, sched, alphas: list, **options) -> Case:
        return Case(name, sched, self.md, self.unit, alphas, **options)


def _step_case(r: _Run) -> Case:
    gamma = r.draw(unit_alphas | st.floats(1.0, 1.5))
    # gamma > 1 grows without bound (Composer too): keep gamma^steps a float (≤ ~150 steps on [0, 3M])
    k = r.draw(st.integers(1 if gamma <= 1 else r.M // 50 + 1, r.M))
    sched = StepScheduler(f"{k}{r.unit}", gamma=gamma)
    return r.case("Step", sched, [1.0], decreasing=gamma <= 1, growth=(gamma, "step_size"))


def _multistep_case(r: _Run) -> Case:
    gamma = r.draw(unit_alphas | st.floats(1.0, 2.0))
    ms = [r.t(0, 2 * r.M) for _ in range(r.draw(st.integers(0, 4)))]
    return r.case("MultiStep", MultiStepScheduler(ms, gamma=gamma), [1.0, gamma ** len(ms)], decreasing=gamma <= 1)


def _constant_case(r: _Run) -> Case:
    alpha = r.draw(alphas)
    return r.case("Constant", ConstantScheduler(alpha=alpha, t_max=r.t(1, 2 * r.M)), [alpha, 1.0])


def _linear_case(r: _Run) -> Case:
    a_i, a_f = r.draw(alphas), r.draw(alphas)
    return r.case("Linear", LinearScheduler(a_i, a_f, t_max=r.t(1, 2 * r.M)), [a_i, a_f], decreasing=a_i >= a_f)


def _exponential_case(r: _Run) -> Case:
    gamma = r.draw(unit_alphas | st.floats(1.0, 1.1))
    period = r.draw(st.integers(1, r.M))
    growth = (gamma, "decay_period")
    if r.draw(st.booleans()):  # the default decay_period '1ep' needs dataloader_len, in batches
        L = r.draw(st.integers(1, r.M))
        sched = ExponentialScheduler(gamma) if r.draw(st.booleans()) else ExponentialScheduler(gamma, f"{1}ep")
        return Case(
            "Exponential", sched, f"{r.M}ba", "ba", [1.0], decreasing=gamma <= 1, dataloader_len=L, growth=growth
        )
    sched = ExponentialScheduler(gamma, f"{period}{r.unit}")
    return r.case("Exponential", sched, [1.0], decreasing=gamma <= 1, growth=growth)


def _cosine_case(r: _Run) -> Case:
    a_f = r.draw(alphas)
    return r.case("Cosine", CosineAnnealingScheduler(r.t(1, 2 * r.M), a_f), [1.0, a_f], decreasing=a_f <= 1)


def _warm_restarts_case(r: _Run) -> Case:
    a_f = r.draw(alphas)
    t_mult = r.draw(st.sampled_from([1.0, 1.5, 2.0, 3.0]))
    return r.case("WarmRestarts", CosineAnnealingWarmRestartsScheduler(r.t(1, r.M), t_mult, a_f), [1.0, a_f])


def _polynomial_case(r: _Run) -> Case:
    power, a_f = r.draw(st.floats(0.0, 4.0)), r.draw(alphas)
    return r.case("Polynomial", PolynomialScheduler(power, r.t(1, 2 * r.M), a_f), [1.0, a_f], decreasing=a_f <= 1)


def _multistep_with_warmup_case(r: _Run, tw: str, sw: bool) -> Case:
    gamma = r.draw(unit_alphas | st.floats(1.0, 2.0))
    ms = [r.t(0, 2 * r.M) for _ in range(r.draw(st.integers(0, 3)))]
    sched = MultiStepWithWarmupScheduler(tw, ms, gamma=gamma, scale_warmup=sw)
    return r.case("MultiStepWithWarmup", sched, [0.0, 1.0, gamma ** len(ms)], decreasing=gamma <= 1, peak=1.0)


def _constant_with_warmup_case(r: _Run, tw: str, sw: bool) -> Case:
    alpha = r.draw(alphas)
    sched = ConstantWithWarmupScheduler(tw, alpha=alpha, t_max=r.t_max(), scale_warmup=sw)
    return r.case("ConstantWithWarmup", sched, [0.0, alpha], decreasing=True, peak=alpha)


def _linear_with_warmup_case(r: _Run, tw: str, sw: bool) -> Case:
    a_i, a_f = r.draw(alphas), r.draw(alphas)
    sched = LinearWithWarmupScheduler(tw, a_i, a_f, t_max=r.t_max(), scale_warmup=sw)
    return r.case("LinearWithWarmup", sched, [0.0, a_i, a_f], decreasing=a_i >= a_f, peak=a_i)


def _cosine_with_warmup_case(r: _Run, tw: str, sw: bool) -> Case:
    a_f = r.draw(alphas)
    sched = CosineAnnealingWithWarmupScheduler(tw, t_max=r.t_max(), alpha_f=a_f, scale_warmup=sw)
    return r.case("CosineWithWarmup", sched, [0.0, 1.0, a_f], decreasing=a_f <= 1, peak=1.0)


def _polynomial_with_warmup_case(r: _Run, tw: str, sw: bool) -> Case:
    power, a_f = r.draw(st.floats(0.0, 4.0)), r.draw(alphas)
    sched = PolynomialWithWarmupScheduler(tw, power=power, t_max=r.t_max(), alpha_f=a_f, scale_warmup=sw)
    return r.case("PolynomialWithWarmup", sched, [0.0, 1.0, a_f], decreasing=a_f <= 1, peak=1.0)


_PLAIN_CASES = {
    "Step": _step_case,
    "MultiStep": _multistep_case,
    "Constant": _constant_case,
    "Linear": _linear_case,
    "Exponential": _exponential_case,
    "Cosine": _cosine_case,
    "WarmRestarts": _warm_restarts_case,
    "Polynomial": _polynomial_case,
}
_WARMUP_CASES = {
    "MultiStepWithWarmup": _multistep_with_warmup_case,
    "ConstantWithWarmup": _constant_with_warmup_case,
    "LinearWithWarmup": _linear_with_warmup_case,
    "CosineWithWarmup": _cosine_with_warmup_case,
    "PolynomialWithWarmup": _polynomial_with_warmup_case,
}
_BOTH_SCALINGS = st.booleans()


@st.composite
def cases(draw, names=CLASSES, scale_warmup=_BOTH_SCALINGS):
    """A schedule of one of ``names`` on a run of M counts in ba, sp or tok (times given in that unit or dur)."""
    name = draw(st.sampled_from(names))
    run = _Run(draw, draw(st.sampled_from(UNITS)), draw(st.integers(8, 1500)))
    if name in _PLAIN_CASES:
        return _PLAIN_CASES[name](run)
    sw = draw(scale_warmup)
    return _WARMUP_CASES[name](run, run.t(1, run.M), sw)


ssrs = st.sampled_from([0.5, 1.0, 1.0, 1.5, 0.25, 2.0, 3.0])


def run_length(case: Case, ssr: float = 1.0) -> int:
    """The run's length in its unit once scaled by ``ssr`` (as the trainer scales max_duration)."""
    return max(1, int(Time.from_timestring(case.max_duration).value * ssr))


def scaled_run(case: Case, ssr: float) -> str:
    return f"{run_length(case, ssr)}{Time.from_timestring(case.max_duration).unit.value}"


def boundaries(curve, extra=()) -> list[int]:
    """0, every resolved time ± 1, and ``extra``: the points where schedules change branch."""
    points = {0, 1, *extra}
    for time in curve.times.values():
        points |= {time.value - 1, time.value, time.value + 1, 2 * time.value}
    return sorted(p for p in points if p >= 0)


def resolve(case: Case, ssr: float = 1.0):
    """The drawn schedule resolved on its run scaled by ``ssr``; a period that ssr shrinks to zero length is a
    (tested) ValueError, not this property's business, so such examples are rejected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a drawn warmup may resolve to 0 (warned once; tested elsewhere)
        try:
            return case.schedule.resolve(Run(scaled_run(case, ssr), case.dataloader_len, ssr=ssr, scaled=True))
        except ValueError as error:
            if "must be at least 1" in str(error) or "shrinks the interval" in str(error):
                assume(False)
            raise


# ------------------------------------------------------------------------------------------------------------
# range
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CLASSES)
@PROPERTY
@given(data=st.data(), ssr=ssrs)
def test_values_within_range_of_alphas(name, ssr, data):
    case = data.draw(cases(names=[name]), label="case")
    curve = resolve(case, ssr)
    M = run_length(case, ssr)
    drawn = data.draw(st.lists(st.integers(0, 2 * M), max_size=30))
    points = [x for x in boundaries(curve, [M, 2 * M, *drawn]) if x <= 2 * M]
    lo, hi = case.range_up_to(curve, 2 * M)
    slack = 1e-12 * max(1.0, abs(lo), abs(hi))
    for x in points:
        value = curve(float(x))
        assert lo - slack <= value <= hi + slack, (x, value, lo, hi)
    xs = torch.arange(0, 2 * M + 1, dtype=torch.float64)
    values = curve(xs)
    assert bool(((values >= lo - slack) & (values <= hi + slack)).all())


# ------------------------------------------------------------------------------------------------------------
# warmup continuity
# ------------------------------------------------------------------------------------------------------------


@PROPERTY
@given(case=cases(names=["CosineWithWarmup", "PolynomialWithWarmup", "LinearWithWarmup"]), ssr=ssrs)
def test_warmup_meets_the_main_curve_without_a_jump(case, ssr):
    curve = resolve(case, ssr)
    w = curve.times["t_warmup"].value
    t_max = curve.times["t_max"].value
    assume(w >= 1 and t_max > w)
    step = abs(curve(float(w)) - curve(float(w - 1)))
    assert step <= abs(case.peak) / w + 1e-12, (w, curve(float(w - 1)), curve(float(w)))
    # and the post-warmup branch starts at the peak, the ramp ends one step short of it
    assert close(curve(float(w)), case.peak)
    assert close(curve(float(w - 1)), case.peak * (w - 1) / w)


@pytest.mark.parametrize("ssr", [0.5, 2.0, 3.0])
@pytest.mark.parametrize(
    "factory",
    [
        lambda: CosineAnnealingWithWarmupScheduler("100ba", t_max="1000ba", scale_warmup=True),
        lambda: PolynomialWithWarmupScheduler("100ba", t_max="1000ba", scale_warmup=True),
        lambda: LinearWithWarmupScheduler("100ba", alpha_i=2.0, t_max="1000ba", scale_warmup=True),
    ],
    ids=["cosine", "polynomial", "linear"],
)
def test_scaled_warmup_has_no_jump_and_no_plateau(factory, ssr):
    """Deviation 1, every step of the scaled run: the lr never jumps more than peak/w (Composer jumps by
    peak·(1 − 1/ssr) at the unscaled boundary when ssr > 1) and never stalls at the peak during the warmup
    (Composer freezes it when ssr < 1)."""
    sched = factory()
    run = int(1000 * ssr)
    state = SchedulerState(f"{run}ba")
    values = []
    for _ in range(run + 1):
        values.append(sched(state, ssr))
        state.timestamp = state.timestamp.to_next_batch()
    w = int(100 * ssr)
    peak = max(values)
    assert max(abs(b - a) for a, b in zip(values, values[1:], strict=False)) <= peak / w + 1e-12
    assert values.index(peak) == w  # the peak is reached exactly at the scaled boundary, once


# ------------------------------------------------------------------------------------------------------------
# monotone after the warmup
# ------------------------------------------------------------------------------------------------------------

DECREASING = [
    "Cosine",
    "Linear",
    "Polynomial",
    "Step",
    "MultiStep",
    "Exponential",
    "ConstantWithWarmup",
    "MultiStepWithWarmup",
    "LinearWithWarmup",
    "CosineWithWarmup",
    "PolynomialWithWarmup",
]


@PROPERTY
@given(case=cases(names=DECREASING), ssr=ssrs)
def test_non_increasing_after_warmup(case, ssr):
    assume(case.decreasing)
    curve = resolve(case, ssr)
    M = run_length(case, ssr)
    start = curve.times["t_warmup"].value if "t_warmup" in curve.times else 0
    xs = list(range(max(start, 0), 2 * M + 1))
    values = [curve(float(x)) for x in xs]
    for x, a, b in zip(xs[1:], values, values[1:], strict=False):
        assert b <= a + 1e-12 * max(1.0, abs(a)), (x, a, b)
    tensor = curve(torch.tensor(xs, dtype=torch.float64))
    assert bool((tensor[1:] <= tensor[:-1] + 1e-12).all())


def test_non_increasing_detects_an_increase():
    """The property's check is live: a warmup ramp (increasing) fails it."""
    curve = CosineAnnealingWithWarmupScheduler("10ba").resolve("100ba")
    values = [curve(float(x)) for x in range(0, 10)]
    assert any(b > a for a, b in zip(values, values[1:], strict=False))


# ------------------------------------------------------------------------------------------------------------
# ssr invariance (docs/composer-deviations.md): scaled run, scaled ssr, scaled count ⇒ same value
# ------------------------------------------------------------------------------------------------------------

RATIOS = [Fraction(1, 2), Fraction(1, 4), Fraction(3, 2), Fraction(2), Fraction(3), Fraction(5, 4), Fraction(3, 4)]


# each builds a schedule from (draw, t, t_max, a): times t(lo, hi) and t_max() exact under scaling, alpha a
_INVARIANT_BUILDERS = {
    "Step": lambda draw, t, t_max, a: StepScheduler(t(1, 1), gamma=draw(unit_alphas)),
    "MultiStep": lambda draw, t, t_max, a: MultiStepScheduler(
        [t(1, 1) for _ in range(draw(st.integers(0, 3)))], gamma=draw(unit_alphas)
    ),
    "Constant": lambda draw, t, t_max, a: ConstantScheduler(a, t(1, 1)),
    "Linear": lambda draw, t, t_max, a: LinearScheduler(a, draw(alphas), t(1, 1)),
    "Exponential": lambda draw, t, t_max, a: ExponentialScheduler(draw(unit_alphas), t(1, 1)),
    "Cosine": lambda draw, t, t_max, a: CosineAnnealingScheduler(t(1, 1), a),
    # integer t_mult keeps every cycle length an exact multiple under scaling
    "WarmRestarts": lambda draw, t, t_max, a: CosineAnnealingWarmRestartsScheduler(
        t(1, 1), t_mult=draw(st.sampled_from([1.0, 2.0, 3.0])), alpha_f=a
    ),
    "Polynomial": lambda draw, t, t_max, a: PolynomialScheduler(draw(st.floats(0.0, 3.0)), t(1, 1), a),
    "MultiStepWithWarmup": lambda draw, t, t_max, a: MultiStepWithWarmupScheduler(
        t(0, 1), [t(1, 1)], gamma=draw(unit_alphas), scale_warmup=True
    ),
    "ConstantWithWarmup": lambda draw, t, t_max, a: ConstantWithWarmupScheduler(
        t(0, 1), alpha=a, t_max=t_max(), scale_warmup=True
    ),
    "LinearWithWarmup": lambda draw, t, t_max, a: LinearWithWarmupScheduler(
        t(0, 1), a, draw(alphas), t_max=t_max(), scale_warmup=True
    ),
    "CosineWithWarmup": lambda draw, t, t_max, a: CosineAnnealingWithWarmupScheduler(
        t(0, 1), t_max=t_max(), alpha_f=a, scale_warmup=True
    ),
    "PolynomialWithWarmup": lambda draw, t, t_max, a: PolynomialWithWarmupScheduler(
        t(0, 1), power=2.0, t_max=t_max(), alpha_f=a, scale_warmup=True
    ),
}


@st.composite
def invariant_cases(draw):
    """A schedule whose every time, scaled by s, is a whole count: times multiples of 4q (q = s's
    denominator), dur fractions in quarters, epochs with a dataloader_len that is a multiple of q."""
    s = draw(st.sampled_from(RATIOS))
    q = s.denominator
    unit = draw(st.sampled_from(UNITS))
    M = 4 * q * draw(st.integers(2, 60))
    L = q * draw(st.integers(1, 20)) if unit == "ba" else None

    def t(lo: int, hi: int) -> str:
        kind = draw(st.sampled_from(["count", "dur", "ep"] if L else ["count", "dur"]))
        if kind == "dur":
            return f"{draw(st.integers(max(lo, 1), 4 * hi)) / 4}dur"
        if kind == "ep":
            return f"{draw(st.integers(max(lo, 1), 2 * M // L + 1))}ep"
        return f"{4 * q * draw(st.integers(max(lo, 1), 2 * M // (4 * q)))}{unit}"

    def t_max() -> str:
        return draw(st.sampled_from(["1dur", "1.25dur", f"{M}{unit}", f"{M + 4 * q}{unit}"]))

    name = draw(st.sampled_from(CLASSES))
    a = draw(alphas)
    sched = _INVARIANT_BUILDERS[name](draw, t, t_max, a)
    return sched, s, unit, M, L


@PROPERTY
@given(drawn=invariant_cases(), data=st.data())
def test_ssr_invariance(drawn, data):
    sched, s, unit, M, L = drawn
    q = s.denominator
    scaled_run = M * s
    assert scaled_run.denominator == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            base = sched.resolve(Run(f"{M}{unit}", L, ssr=1.0, scaled=True))
        except ValueError:
            assume(False)  # e.g. a warmup longer than t_max, units that differ: not this property's business
        scaled = sched.resolve(Run(f"{int(scaled_run)}{unit}", L, ssr=float(s), scaled=True))
    # every time resolves to exactly s × its unscaled count
    for name, time in base.times.items():
        assert scaled.times[name].value == time.value * s, name
    ts = sorted({*data.draw(st.lists(st.integers(0, 2 * M // q), max_size=25)), 0, M // q, 2 * M // q})
    points = sorted(
        {q * t for t in ts} | {v.value + d for v in base.times.values() for d in (-q, 0, q) if v.value + d >= 0}
    )
    state_1 = SchedulerState(f"{M}{unit}", dataloader_len=L)
    state_s = SchedulerState(f"{int(scaled_run)}{unit}", dataloader_len=L)
    for t in points:
        assert (t * s).denominator == 1
        state_1.timestamp = timestamp_at(unit, t)
        state_s.timestamp = timestamp_at(unit, int(t * s))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = sched(state_1, 1.0)
            got = sched(state_s, float(s))
        assert close(got, expected), (t, got, expected)


@pytest.mark.parametrize("s", [0.5, 2.0])
def test_ssr_invariance_holds_for_warmup_only_with_scale_warmup(s):
    """The property above relies on scale_warmup=True: without it the warmup boundary stays put, so a
    scaled run differs — this keeps the property honest."""

    def value(scale_warmup, run, ssr, count):
        sched = LinearWithWarmupScheduler("40ba", t_max="1dur", scale_warmup=scale_warmup)
        return sched(SchedulerState(f"{run}ba", Timestamp(batch=count)), ssr)

    assert close(value(True, int(400 * s), s, int(30 * s)), value(True, 400, 1.0, 30))
    assert not close(value(False, int(400 * s), s, int(30 * s)), value(False, 400, 1.0, 30))


# ------------------------------------------------------------------------------------------------------------
# float path vs tensor path; per-step path vs resolved curve
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CLASSES)
@PROPERTY
@given(data=st.data(), ssr=ssrs)
def test_float_and_tensor_paths_agree(name, ssr, data):
    case = data.draw(cases(names=[name]), label="case")
    curve = resolve(case, ssr)
    M = run_length(case, ssr)
    drawn = data.draw(st.lists(st.integers(0, 3 * M), max_size=40))
    fractional = data.draw(st.lists(st.floats(0.0, 3.0 * M), max_size=10))
    xs = [float(x) for x in boundaries(curve, [M, 2 * M, 3 * M, *drawn])] + fractional
    tensor = curve(torch.tensor(xs, dtype=torch.float64))
    assert tensor.dtype == torch.float64 and tensor.shape == (len(xs),)
    for x, from_tensor in zip(xs, tensor.tolist(), strict=True):
        from_float = curve(x)
        assert isinstance(from_float, float), (x, type(from_float))
        assert close(from_float, from_tensor), (x, from_float, from_tensor)
    # a 2-d tensor keeps its shape
    grid = torch.tensor(xs[: 2 * (len(xs) // 2)], dtype=torch.float64).reshape(2, -1)
    assert curve(grid).shape == grid.shape


@pytest.mark.parametrize("name", CLASSES)
@PROPERTY
@given(data=st.data(), ssr=ssrs)
def test_call_equals_resolved_curve(name, ssr, data):
    case = data.draw(cases(names=[name]), label="case")
    curve = resolve(case, ssr)
    state = SchedulerState(scaled_run(case, ssr), dataloader_len=case.dataloader_len)
    samples, tokens = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 50))
    counter = {"ba": lambda ts: ts.batch.value, "sp": lambda ts: ts.sample.value, "tok": lambda ts: ts.token.value}
    steps = data.draw(st.integers(1, 300))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            value = case.schedule(state, ssr)
            count = counter[curve.unit.value](state.timestamp)
            assert isinstance(value, float)
            assert close(value, curve(float(count))), (count, value)
            state.timestamp = state.timestamp.to_next_batch(samples=samples, tokens=tokens)


# ------------------------------------------------------------------------------------------------------------
# resolution happens once per (max_duration, dataloader_len, ssr)
# ------------------------------------------------------------------------------------------------------------


@pytest.fixture
def resolve_calls(monkeypatch):
    """Counts the outermost ``_resolve`` calls of every Composer class (spied, still resolving; a warmup class
    resolves through the schedules it composes, whose ``_resolve`` calls inside it are not counted again)."""
    return count_outermost_resolutions(monkeypatch, {type(f()) for f in ALL_FACTORIES.values()})


ALL_FACTORIES = {
    "Step": lambda: StepScheduler("1ep", gamma=0.5),
    "MultiStep": lambda: MultiStepScheduler(["1ep", "0.5dur"], gamma=0.5),
    "Constant": lambda: ConstantScheduler(0.5, t_max="2ep"),
    "Linear": lambda: LinearScheduler(t_max="3ep"),
    "Exponential": lambda: ExponentialScheduler(0.5),
    "Cosine": lambda: CosineAnnealingScheduler(t_max="3ep"),
    "WarmRestarts": lambda: CosineAnnealingWarmRestartsScheduler("1ep", t_mult=2.0),
    "Polynomial": lambda: PolynomialScheduler(2.0, t_max="3ep"),
    # scale_warmup=True so that ssr changes these too (their t_max is 1dur, which ssr never scales)
    "MultiStepWithWarmup": lambda: MultiStepWithWarmupScheduler("1ep", ["2ep"], scale_warmup=True),
    "ConstantWithWarmup": lambda: ConstantWithWarmupScheduler("1ep", alpha=0.5, scale_warmup=True),
    "LinearWithWarmup": lambda: LinearWithWarmupScheduler("1ep", scale_warmup=True),
    "CosineWithWarmup": lambda: CosineAnnealingWithWarmupScheduler("1ep", scale_warmup=True),
    "PolynomialWithWarmup": lambda: PolynomialWithWarmupScheduler("1ep", scale_warmup=True),
}


def _sweep(sched, state, ssr=1.0, steps=1000):
    state.timestamp = Timestamp()
    values = []
    for _ in range(steps):
        values.append(sched(state, ssr))
        state.timestamp = state.timestamp.to_next_batch(samples=2, tokens=8)
    return values


def _expected(sched, state, ssr, steps=1000):
    curve = sched.resolve(Run.of_state(state, ssr))  # the run the state describes (already scaled)
    return [curve(float(b)) for b in range(steps)]


@pytest.mark.parametrize("name", list(ALL_FACTORIES))
def test_resolves_once_per_run_and_again_on_change(name, resolve_calls):
    sched = ALL_FACTORIES[name]()
    state = SchedulerState("1000ba", dataloader_len=100)
    first = _sweep(sched, state)
    assert len(resolve_calls) == 1, resolve_calls

    # an equal max_duration given anew (a new object) resolves nothing new, values identical
    state.max_duration = "1000ba"
    assert _sweep(sched, state) == first
    state.max_duration = Time(1000, "ba")
    state.dataloader_len = 100
    assert _sweep(sched, state) == first
    # ssr given as an equal int is the same ssr
    assert _sweep(sched, state, ssr=1) == first
    assert len(resolve_calls) == 1

    # a new dataloader_len: epochs are a different number of batches
    state.dataloader_len = 50
    by_len = _sweep(sched, state)
    assert len(resolve_calls) == 2
    assert by_len != first
    assert by_len == _expected(sched, state, 1.0)  # resolve() itself calls _resolve once more
    assert len(resolve_calls) == 3

    # a new max_duration (dur times and t_max checks follow it)
    state.max_duration = "1500ba"
    by_md = _sweep(sched, state)
    assert len(resolve_calls) == 4
    assert by_md == _expected(sched, state, 1.0)
    assert len(resolve_calls) == 5

    # a new ssr
    state.max_duration = "2000ba"
    state.dataloader_len = 100
    by_ssr = _sweep(sched, state, ssr=2.0)
    assert len(resolve_calls) == 6
    assert by_ssr == _expected(sched, state, 2.0)
    assert by_ssr != _expected(sched, state, 1.0)

    # back to the first run: resolved again, same values as the first time
    state.max_duration = "1000ba"
    assert _sweep(sched, state) == first


def test_resolution_count_over_1000_steps_with_dur_times(resolve_calls):
    sched = CosineAnnealingWithWarmupScheduler("0.1dur", alpha_f=0.1)
    state = SchedulerState("1000ba")
    values = _sweep(sched, state)
    assert resolve_calls == ["CosineAnnealingWithWarmupScheduler"]
    assert values[50] == pytest.approx(0.5, abs=1e-12)


def test_changing_max_duration_changes_values():
    sched = LinearScheduler()  # t_max = 1dur
    state = SchedulerState("100ba", Timestamp(batch=50))
    assert close(sched(state), 0.5)
    state.max_duration = "200ba"
    assert close(sched(state), 0.75)
    state.max_duration = Time(100, "ba")
    assert close(sched(state), 0.5)


def test_changing_dataloader_len_changes_values():
    sched = StepScheduler("1ep", gamma=0.5)
    state = SchedulerState("10ep", Timestamp(batch=20), dataloader_len=10)
    assert close(sched(state), 0.25)
    state.dataloader_len = 20
    assert close(sched(state), 0.5)
    state.dataloader_len = 5
    assert close(sched(state), 0.0625)


def test_changing_ssr_changes_values():
    sched = StepScheduler("10ba", gamma=0.5)
    state = SchedulerState("100ba", Timestamp(batch=20))
    assert close(sched(state, 1.0), 0.25)
    assert close(sched(state, 2.0), 0.5)
    assert close(sched(state, 0.5), 0.0625)
    assert close(sched(state), 0.25)


def test_changing_a_schedule_argument_changes_values():
    sched = CosineAnnealingScheduler(alpha_f=0.0)
    state = SchedulerState("100ba", Timestamp(batch=100))
    assert close(sched(state), 0.0)
    sched = attrs.evolve(sched, alpha_f=0.5)  # schedules are immutable: a changed one is a new one
    assert close(sched(state), 0.5)


def test_two_states_alternating_on_one_schedule():
    """One schedule object read by two runs in turn: each read follows its own run, never a stale resolution."""
    sched = LinearWithWarmupScheduler("0.1dur")
    a = SchedulerState("100ba", Timestamp(batch=50))
    b = SchedulerState("1000ba", Timestamp(batch=50), dataloader_len=3)
    c = SchedulerState(Time(100, "ba"), Timestamp(batch=50), dataloader_len=3)  # equal run, other object
    for _ in range(3):
        assert close(sched(a), 1 - 40 / 90)
        assert close(sched(b), 0.5)
        assert close(sched(c), 1 - 40 / 90)
        assert close(sched(b, 2.0), 0.5)  # dur warmup is not scaled


def _rising(cls, **arguments):
    """A schedule with alpha_f > 1, built without its (intended) warning at collection time."""
    with pytest.warns(UserWarning, match="alpha_f=2 > 1"):
        return cls(**arguments)


@pytest.mark.parametrize(
    "schedule",
    [
        ConstantScheduler(alpha=2, t_max="50ba"),
        StepScheduler("5ba", gamma=1),
        StepScheduler("5ba", gamma=0),
        MultiStepScheduler([], gamma=1),
        MultiStepScheduler(["5ba"], gamma=2),
        ExponentialScheduler(1, decay_period="5ba"),
        _rising(LinearScheduler, alpha_i=2, alpha_f=2),
        CosineAnnealingScheduler(alpha_f=1),
        PolynomialScheduler(power=0),
        MultiStepWithWarmupScheduler("5ba", ["20ba"], gamma=1),
        ConstantWithWarmupScheduler("5ba", alpha=2),
    ],
    ids=repr,
)
def test_returns_a_float_even_for_int_arguments(schedule):
    """docs/schedules.md: ``scheduler(state, ssr=1.0) -> float``, also when alpha/gamma/power are given as ints."""
    for batch in (0, 3, 10, 60):
        value = schedule(SchedulerState("100ba", Timestamp(batch=batch)))
        assert type(value) is float, (batch, value)
        assert type(schedule.resolve("100ba")(float(batch))) is float
