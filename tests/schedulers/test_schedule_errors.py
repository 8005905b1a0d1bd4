"""Bad input to Composer's schedulers: each a clear ValueError naming the argument (docs/schedules.md,
docs/composer-deviations.md deviation 3, docs/trainer.md).

An invalid argument may fail at construction or at the first resolution (deviation 3), never with a bare
ZeroDivisionError mid-run; the helper :func:`fails` builds the schedule *and* evaluates it, so either is fine.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import attrs
import pytest

from schedulers import (
    ConstantScheduler,
    ConstantWithWarmupScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWarmRestartsScheduler,
    CosineAnnealingWithWarmupScheduler,
    CyclicScheduler,
    ExponentialScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    MissingDataloaderLenError,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    PolynomialScheduler,
    PolynomialWithWarmupScheduler,
    SchedulerState,
    StepScheduler,
    WarmupStableDecayScheduler,
)
from schedulers.core.names import registered_schedulers
from schedulers.core.run import Run
from schedulers.core.schedule_arguments import number_argument
from timeunits import NonIntegralTimeError, NotATimeError, Time, TimeParseError, Timestamp, TimeUnit

# Every time argument of every class, as (id, builder(value) -> schedule, argument name in the message).
TIME_ARGUMENTS = [
    ("Step.step_size", lambda v: StepScheduler(v), "step_size"),
    ("MultiStep.milestones", lambda v: MultiStepScheduler(["10ba", v]), "milestones[1]"),
    ("Constant.t_max", lambda v: ConstantScheduler(t_max=v), "t_max"),
    ("Linear.t_max", lambda v: LinearScheduler(t_max=v), "t_max"),
    ("Exponential.decay_period", lambda v: ExponentialScheduler(0.5, decay_period=v), "decay_period"),
    ("Cosine.t_max", lambda v: CosineAnnealingScheduler(t_max=v), "t_max"),
    ("WarmRestarts.t_0", lambda v: CosineAnnealingWarmRestartsScheduler(v), "t_0"),
    ("Polynomial.t_max", lambda v: PolynomialScheduler(2.0, t_max=v), "t_max"),
    ("MultiStepWithWarmup.t_warmup", lambda v: MultiStepWithWarmupScheduler(v, ["10ba"]), "t_warmup"),
    ("MultiStepWithWarmup.milestones", lambda v: MultiStepWithWarmupScheduler("1ba", [v]), "milestones[0]"),
    ("ConstantWithWarmup.t_warmup", lambda v: ConstantWithWarmupScheduler(v), "t_warmup"),
    ("ConstantWithWarmup.t_max", lambda v: ConstantWithWarmupScheduler("1ba", t_max=v), "t_max"),
    ("LinearWithWarmup.t_warmup", lambda v: LinearWithWarmupScheduler(v), "t_warmup"),
    ("LinearWithWarmup.t_max", lambda v: LinearWithWarmupScheduler("1ba", t_max=v), "t_max"),
    ("CosineWithWarmup.t_warmup", lambda v: CosineAnnealingWithWarmupScheduler(v), "t_warmup"),
    ("CosineWithWarmup.t_max", lambda v: CosineAnnealingWithWarmupScheduler("1ba", t_max=v), "t_max"),
    ("PolynomialWithWarmup.t_warmup", lambda v: PolynomialWithWarmupScheduler(v), "t_warmup"),
    ("PolynomialWithWarmup.t_max", lambda v: PolynomialWithWarmupScheduler("1ba", t_max=v), "t_max"),
]
TIME_ARGUMENT_IDS = [t[0] for t in TIME_ARGUMENTS]


def fails(build, state=None, ssr=1.0, error=ValueError) -> pytest.ExceptionInfo:
    """Build a schedule and evaluate it once; the error must come from one of the two steps."""
    state = state if state is not None else SchedulerState("100ba", dataloader_len=10)
    with pytest.raises(error) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schedule = build()
            schedule(state, ssr)
    assert not isinstance(info.value, ZeroDivisionError)
    return info


def names(info: pytest.ExceptionInfo, *words: str) -> None:
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)


def works(schedule, state=None, ssr=1.0) -> float:
    state = state if state is not None else SchedulerState("100ba", dataloader_len=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = schedule(state, ssr)
    assert math.isfinite(value)
    return value


# ------------------------------------------------------------------------------------------------------------
# time strings and bare numbers
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad", ["0.3dru", "10bogus", "", "ba", "1.5ba", "10sec", "10iter", "nanba", "infdur", "10 ep s"]
)
@pytest.mark.parametrize("build, argument", [t[1:] for t in TIME_ARGUMENTS], ids=TIME_ARGUMENT_IDS)
def test_bad_time_string_names_argument_and_string(build, argument, bad):
    info = fails(lambda: build(bad))
    names(info, argument, repr(bad) if bad else "''")


# the error timeunits raised, kept: its class, and its message after the argument's name (each fact once)
NOT_A_TIME = [("1.5ba", NonIntegralTimeError), ("0.3dru", TimeParseError), ([10], NotATimeError)]


def said_once(info: pytest.ExceptionInfo, argument: str, bad: object) -> None:
    message = str(info.value)
    assert message.startswith(f"{argument}={bad!r} "), message
    assert message.count("is not a time") == 1 and message.count(repr(bad)) == 1, message


@pytest.mark.parametrize("bad, error_class", NOT_A_TIME, ids=repr)
@pytest.mark.parametrize("build, argument", [t[1:] for t in TIME_ARGUMENTS], ids=TIME_ARGUMENT_IDS)
def test_not_a_time_keeps_its_class_and_says_it_once(build, argument, bad, error_class):
    info = fails(lambda: build(bad), error=error_class)
    assert isinstance(info.value, ValueError)
    said_once(info, argument, bad)


def test_a_non_integral_step_size_is_a_value_and_a_type_error():
    with pytest.raises(NonIntegralTimeError) as info:
        StepScheduler(step_size="1.5ba")
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    assert str(info.value) == (
        "step_size='1.5ba' is not a time: 1.5 is not a whole number, and ba counts are integers "
        "(use a whole number, or a dur fraction such as '0.3dur')"
    )
    with pytest.raises(NonIntegralTimeError, match=r"^milestones\[0\]='1.5ba' is not a time: 1.5 is not"):
        MultiStepScheduler(["1.5ba"])


@pytest.mark.parametrize("bad", [10, 0.5, 0, None, [10], 2**60])
@pytest.mark.parametrize("build, argument", [t[1:] for t in TIME_ARGUMENTS], ids=TIME_ARGUMENT_IDS)
def test_bare_number_is_not_a_time(build, argument, bad):
    info = fails(lambda: build(bad))
    names(info, argument)


def test_good_time_strings_are_accepted():
    """The same builders with valid times run (so the failures above are about the value)."""
    for _, build, _ in TIME_ARGUMENTS:
        works(build("200ba"))
        works(build(Time(200, "ba")))


@pytest.mark.parametrize("bad", ["5ba", Time(5, "ba"), 5, None])
@pytest.mark.parametrize(
    "build",
    [lambda m: MultiStepScheduler(m), lambda m: MultiStepWithWarmupScheduler("1ba", m)],
    ids=["MultiStep", "MultiStepWithWarmup"],
)
def test_milestones_must_be_a_list(build, bad):
    names(fails(lambda: build(bad)), "milestones")


# ------------------------------------------------------------------------------------------------------------
# units of one schedule (Composer's warmup/t_max rule, extended to every time: docs/schedules.md)
# ------------------------------------------------------------------------------------------------------------

WARMUP_WITH_T_MAX = [
    ("ConstantWithWarmup", lambda w, m: ConstantWithWarmupScheduler(w, t_max=m)),
    ("LinearWithWarmup", lambda w, m: LinearWithWarmupScheduler(w, t_max=m)),
    ("CosineWithWarmup", lambda w, m: CosineAnnealingWithWarmupScheduler(w, t_max=m)),
    ("PolynomialWithWarmup", lambda w, m: PolynomialWithWarmupScheduler(w, t_max=m)),
]


@pytest.mark.parametrize(
    "t_warmup, t_max, max_duration",
    [
        ("10ba", "1000sp", "100ba"),
        ("10sp", "1000tok", "100ba"),
        ("1ep", "2000sp", "100ba"),  # ep becomes ba
        ("10ba", "1dur", "1000tok"),  # dur follows max_duration: tok
        ("0.1dur", "200ba", "1000sp"),
        ("10tok", "1dur", "10ep"),  # dur of an epoch run is in batches
    ],
)
@pytest.mark.parametrize("build", [b for _, b in WARMUP_WITH_T_MAX], ids=[n for n, _ in WARMUP_WITH_T_MAX])
def test_warmup_and_t_max_units_must_match(build, t_warmup, t_max, max_duration):
    state = SchedulerState(max_duration, dataloader_len=10)
    info = fails(lambda: build(t_warmup, t_max), state)
    names(info, "t_warmup", "t_max", str(Time.from_timestring(t_warmup)), str(Time.from_timestring(t_max)))
    # and the same through resolve()
    with pytest.raises(ValueError, match="t_warmup"):
        build(t_warmup, t_max).resolve(max_duration, 10)


@pytest.mark.parametrize(
    "build, first, second",
    [
        (lambda: MultiStepScheduler(["10sp", "60ba"]), "milestones[0]", "milestones[1]"),
        (lambda: MultiStepScheduler(["1ep", "10ba", "3tok"]), "milestones[0]", "milestones[2]"),
        (lambda: MultiStepWithWarmupScheduler("10sp", ["60ba"]), "t_warmup", "milestones[0]"),
        (lambda: MultiStepWithWarmupScheduler("0.1dur", ["60ba"]), "t_warmup", "milestones[0]"),  # run in sp
    ],
)
def test_every_time_of_a_schedule_resolves_to_one_unit(build, first, second):
    info = fails(build, SchedulerState("1000sp", dataloader_len=10))
    names(info, first, second)


def test_units_that_resolve_alike_are_fine():
    state = SchedulerState("10ep", dataloader_len=10)
    works(MultiStepScheduler(["1ep", "0.5dur", "30ba"]), state)
    works(CosineAnnealingWithWarmupScheduler("1ep", t_max="1dur"), state)
    works(LinearWithWarmupScheduler("0.1dur", t_max="100ba"), state)


# ------------------------------------------------------------------------------------------------------------
# t_max must cover max_duration (warmup schedules with a t_max; comparable units only)
# ------------------------------------------------------------------------------------------------------------

SHORT = "must be greater than or equal to max_duration"


@pytest.mark.parametrize(
    "t_max, max_duration, dataloader_len, ssr",
    [
        ("99ba", "100ba", None, 1.0),
        ("0.99dur", "100ba", None, 1.0),
        ("9ep", "100ba", 10, 1.0),  # 90ba
        ("90ba", "10ep", 10, 1.0),  # max_duration 100ba
        ("999sp", "1000sp", None, 1.0),
        ("100ba", "100ba", None, 0.5),  # t_max scaled to 50ba against a run left at 100ba
        ("2000tok", "1500tok", None, 0.5),
    ],
)
@pytest.mark.parametrize("build", [b for _, b in WARMUP_WITH_T_MAX], ids=[n for n, _ in WARMUP_WITH_T_MAX])
def test_t_max_shorter_than_max_duration(build, t_max, max_duration, dataloader_len, ssr):
    warmup = "1" + Time.from_timestring(t_max).unit.value if not t_max.endswith("dur") else "0.01dur"
    warmup = "1ba" if warmup == "1ep" else warmup
    state = SchedulerState(max_duration, dataloader_len=dataloader_len)
    info = fails(lambda: build(warmup, t_max), state, ssr)
    names(info, "t_max", SHORT)
    with pytest.raises(ValueError, match=SHORT):  # the run the state describes: 100ba is already scaled
        build(warmup, t_max).resolve(Run.of_state(state, ssr))


@pytest.mark.parametrize(
    "t_max, max_duration, dataloader_len",
    [
        ("100ba", "100ba", None),  # equal is fine
        ("1dur", "100ba", None),
        ("10ep", "100ba", 10),
        ("50ba", "1000tok", None),  # ba vs tok: not comparable, no check (Composer: a debug log)
        ("50sp", "100ba", None),
        ("50ba", "10ep", None),  # ba vs ep without dataloader_len: no check
    ],
)
@pytest.mark.parametrize("build", [b for _, b in WARMUP_WITH_T_MAX], ids=[n for n, _ in WARMUP_WITH_T_MAX])
def test_t_max_covering_or_not_comparable_is_fine(build, t_max, max_duration, dataloader_len):
    warmup = "1" + _effective_unit(t_max, max_duration)
    works(build(warmup, t_max), SchedulerState(max_duration, dataloader_len=dataloader_len))


def _effective_unit(time: str, max_duration: str) -> str:
    unit = Time.from_timestring(time).unit.value
    unit = Time.from_timestring(max_duration).unit.value if unit == "dur" else unit
    return "ba" if unit == "ep" else unit


@pytest.mark.parametrize(
    "schedule",
    [
        LinearScheduler(t_max="10ba"),
        CosineAnnealingScheduler(t_max="10ba"),
        PolynomialScheduler(2.0, t_max="10ba"),
        ConstantScheduler(0.5, t_max="10ba"),
        MultiStepWithWarmupScheduler("5ba", ["10ba"]),
    ],
    ids=repr,
)
def test_schedules_without_the_check_accept_a_short_t_max(schedule):
    """Composer checks t_max only in the four warmup schedules that have one."""
    works(schedule, SchedulerState("100ba", Timestamp(batch=50)))


# ------------------------------------------------------------------------------------------------------------
# dataloader_len needed but missing: a ValueError and a RuntimeError naming the argument
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("build, argument", [t[1:] for t in TIME_ARGUMENTS], ids=TIME_ARGUMENT_IDS)
@pytest.mark.parametrize("value, max_duration", [("1ep", "100ba"), ("1dur", "10ep")], ids=["ep", "dur-of-ep"])
def test_missing_dataloader_len(build, argument, value, max_duration):
    state = SchedulerState(max_duration)  # dataloader_len None
    info = fails(lambda: build(value), state, error=MissingDataloaderLenError)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, RuntimeError)
    names(info, argument, "dataloader_len")
    with pytest.raises(RuntimeError, match="dataloader_len"):
        build(value).resolve(max_duration)  # Composer users catch RuntimeError
    # with a dataloader_len the same schedule resolves
    build(value).resolve(max_duration, 100)


def test_dataloader_len_not_needed_without_epochs():
    """A dur of a ba/sp/tok run or a ba time needs no dataloader_len, even when max_duration is in epochs."""
    works(LinearScheduler(t_max="0.5dur"), SchedulerState("100ba"))
    works(CosineAnnealingWithWarmupScheduler("10sp", t_max="1dur"), SchedulerState("1000sp"))
    works(StepScheduler("10ba"), SchedulerState("10ep"))
    works(LinearWithWarmupScheduler("10ba", t_max="200ba"), SchedulerState("10ep"))


# ------------------------------------------------------------------------------------------------------------
# periods that resolve to zero length (deviation 3: a ValueError naming the argument, no ZeroDivisionError)
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, max_duration, ssr, argument",
    [
        (lambda: StepScheduler("1ba"), "100ba", 0.5, "step_size"),
        (lambda: StepScheduler("0.001dur"), "100ba", 1.0, "step_size"),
        (lambda: StepScheduler("0ba"), "100ba", 1.0, "step_size"),
        (lambda: StepScheduler("-10ba"), "100ba", 1.0, "step_size"),
        (lambda: LinearScheduler(t_max="0.001dur"), "100ba", 1.0, "t_max"),
        (lambda: LinearScheduler(t_max="1sp"), "100sp", 0.5, "t_max"),
        (lambda: ExponentialScheduler(0.5, "1ba"), "100ba", 0.5, "decay_period"),
        (lambda: ExponentialScheduler(0.5, "0.001dur"), "100tok", 1.0, "decay_period"),
        (lambda: CosineAnnealingScheduler(t_max="0.001dur"), "100ba", 1.0, "t_max"),
        (lambda: CosineAnnealingScheduler(t_max="1ba"), "100ba", 0.25, "t_max"),
        (lambda: PolynomialScheduler(2.0, t_max="0.001dur"), "100ba", 1.0, "t_max"),
        (lambda: CosineAnnealingWarmRestartsScheduler("0.001dur"), "100ba", 1.0, "t_0"),
        (lambda: CosineAnnealingWarmRestartsScheduler("1ba"), "100ba", 0.5, "t_0"),
        (lambda: CosineAnnealingWarmRestartsScheduler("0ba"), "100ba", 1.0, "t_0"),
        # cycles shrink to zero length within the run (Composer: ValueError once passed; here at resolution)
        (lambda: CosineAnnealingWarmRestartsScheduler("10ba", t_mult=0.5), "100ba", 1.0, "t_mult"),
        (lambda: CosineAnnealingWarmRestartsScheduler("10ba", t_mult=0.0), "100ba", 1.0, "t_mult"),
    ],
)
def test_zero_length_period(build, max_duration, ssr, argument):
    info = fails(build, SchedulerState(max_duration), ssr)
    names(info, argument)
    with pytest.raises(ValueError, match=argument.replace("[", r"\[")):
        build().resolve(max_duration, None, ssr)


def test_shrinking_restarts_that_cover_the_run_are_fine():
    """t_mult < 1 is fine while the shrinking cycles still cover the run (10 + 5 + 2 + 1 = 18 ≥ 17)."""
    sched = CosineAnnealingWarmRestartsScheduler("10ba", t_mult=0.5)
    state = SchedulerState("17ba")
    for _ in range(18):
        works(sched, state)
        state.timestamp = state.timestamp.to_next_batch()


def test_zero_length_warmup_and_t_max_not_an_error():
    """A zero warmup only warns (Composer too); a t_max ≤ t_warmup in a warmup schedule means no decay."""
    sched = LinearWithWarmupScheduler("200ba", t_max="150ba")
    assert works(sched, SchedulerState("100ba", Timestamp(batch=250))) == 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert CosineAnnealingWithWarmupScheduler("0ba")(SchedulerState("100ba")) == 1.0
    assert len(caught) == 1


# ------------------------------------------------------------------------------------------------------------
# numeric arguments
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [-0.1, -1, -math.inf, math.nan, math.inf, "x", None])
@pytest.mark.parametrize(
    "build",
    [
        lambda g: StepScheduler("10ba", gamma=g),
        lambda g: MultiStepScheduler(["10ba"], gamma=g),
        lambda g: ExponentialScheduler(g),
        lambda g: MultiStepWithWarmupScheduler("1ba", ["10ba"], gamma=g),
    ],
    ids=["Step", "MultiStep", "Exponential", "MultiStepWithWarmup"],
)
def test_bad_gamma(build, gamma):
    names(fails(lambda: build(gamma)), "gamma")


@pytest.mark.parametrize("gamma", [0.0, 0, 1.0, 0.5, 2.0])
def test_non_negative_gamma_is_fine(gamma):
    works(StepScheduler("10ba", gamma=gamma), SchedulerState("100ba", Timestamp(batch=25)))
    works(ExponentialScheduler(gamma, "10ba"), SchedulerState("100ba", Timestamp(batch=25)))


ALPHA_ARGUMENTS = [
    ("Constant.alpha", lambda a: ConstantScheduler(alpha=a), "alpha"),
    ("Linear.alpha_i", lambda a: LinearScheduler(alpha_i=a), "alpha_i"),
    ("Linear.alpha_f", lambda a: LinearScheduler(alpha_f=a), "alpha_f"),
    ("Cosine.alpha_f", lambda a: CosineAnnealingScheduler(alpha_f=a), "alpha_f"),
    ("WarmRestarts.alpha_f", lambda a: CosineAnnealingWarmRestartsScheduler("10ba", alpha_f=a), "alpha_f"),
    ("Polynomial.alpha_f", lambda a: PolynomialScheduler(2.0, alpha_f=a), "alpha_f"),
    ("ConstantWithWarmup.alpha", lambda a: ConstantWithWarmupScheduler("1ba", alpha=a), "alpha"),
    ("LinearWithWarmup.alpha_i", lambda a: LinearWithWarmupScheduler("1ba", alpha_i=a), "alpha_i"),
    ("LinearWithWarmup.alpha_f", lambda a: LinearWithWarmupScheduler("1ba", alpha_f=a), "alpha_f"),
    ("CosineWithWarmup.alpha_f", lambda a: CosineAnnealingWithWarmupScheduler("1ba", alpha_f=a), "alpha_f"),
    ("PolynomialWithWarmup.alpha_f", lambda a: PolynomialWithWarmupScheduler("1ba", alpha_f=a), "alpha_f"),
]


@pytest.mark.parametrize("alpha", [math.nan, math.inf, -math.inf, "x", None])
@pytest.mark.parametrize("build, argument", [a[1:] for a in ALPHA_ARGUMENTS], ids=[a[0] for a in ALPHA_ARGUMENTS])
def test_non_finite_alpha(build, argument, alpha):
    info = fails(lambda: build(alpha))
    names(info, argument)


NEGATIVE_MULTIPLIERS = ALPHA_ARGUMENTS + [
    ("WSD.alpha_f", lambda a: WarmupStableDecayScheduler("1ba", alpha_f=a), "alpha_f"),
    ("Cyclic.base_ratio", lambda a: CyclicScheduler("1ba", base_ratio=a), "base_ratio"),
]


@pytest.mark.parametrize("alpha", [-0.5, -1, -1e-300])
@pytest.mark.parametrize(
    "build, argument", [a[1:] for a in NEGATIVE_MULTIPLIERS], ids=[a[0] for a in NEGATIVE_MULTIPLIERS]
)
def test_negative_multiplier_is_an_error_naming_it(build, argument, alpha):
    """Issue 11 item 8: a multiplier that would write a negative learning rate fails at construction."""
    with pytest.raises(ValueError, match=rf"^{argument}={alpha!r} must be >= 0: a negative multiplier would write"):
        build(alpha)


FINAL_MULTIPLIERS = [a for a in NEGATIVE_MULTIPLIERS if a[2] == "alpha_f"]


@pytest.mark.parametrize("build, argument", [a[1:] for a in FINAL_MULTIPLIERS], ids=[a[0] for a in FINAL_MULTIPLIERS])
def test_alpha_f_above_one_rises_with_one_warning_naming_it(build, argument):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schedule = build(1.5)
        schedule(SchedulerState("100ba", Timestamp(batch=99)))
    assert [str(w.message) for w in caught] == [
        "alpha_f=1.5 > 1: the schedule ends above the base value (it rises); pass alpha_f <= 1 for a decay"
    ]
    assert caught[0].category is UserWarning and caught[0].filename == __file__  # points at the caller
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build(1.0)  # exactly 1 (and anything up to it) is quiet
        build(0.0)


@pytest.mark.parametrize(
    "build, argument",
    [
        (lambda: PolynomialScheduler(-1.0), "power"),
        (lambda: PolynomialScheduler(math.nan), "power"),
        (lambda: PolynomialWithWarmupScheduler("1ba", power=-0.5), "power"),
        (lambda: PolynomialWithWarmupScheduler("1ba", power=math.inf), "power"),
        (lambda: CosineAnnealingWarmRestartsScheduler("10ba", t_mult=-1.0), "t_mult"),
        (lambda: CosineAnnealingWarmRestartsScheduler("10ba", t_mult=math.nan), "t_mult"),
    ],
)
def test_other_bad_numbers(build, argument):
    names(fails(build), argument)


@pytest.mark.parametrize("build, argument", [t[1:] for t in TIME_ARGUMENTS], ids=TIME_ARGUMENT_IDS)
@pytest.mark.parametrize("bad", ["-5ba", "-1ep", "-0.5dur"])
def test_negative_time_names_argument(build, argument, bad):
    names(fails(lambda: build(bad)), argument)


def test_negative_warmup_is_an_error():
    """A negative warmup is an invalid argument (deviation 3), not a silent 'zero warmup': Composer would even
    compute the decay from t_warmup = -5 (frac = (t + 5) / (t_max + 5))."""
    info = fails(lambda: LinearWithWarmupScheduler("-5ba", t_max="100ba"))
    names(info, "t_warmup")


def _warmup_classes() -> list[type]:
    """Every registered schedule class that carries a ``t_warmup`` (Composer's, the extended ones, ``Warmup``)."""
    classes = {c for c in registered_schedulers().values() if attrs.has(c) and "t_warmup" in attrs.fields_dict(c)}
    return sorted(classes, key=lambda c: c.__name__)


WARMUP_CLASSES = _warmup_classes()
WARMUP_REST = {"MultiStepWithWarmupScheduler": {"milestones": ["50ba"]}, "Warmup": {"schedule": StepScheduler("50ba")}}


def test_every_warmup_carrying_schedule_is_checked_below():
    names_ = {c.__name__ for c in WARMUP_CLASSES}
    assert len(names_) >= 8 and {"Warmup", "WarmupStableDecayScheduler", "InverseSquareRootScheduler"} <= names_


@pytest.mark.parametrize("cls", WARMUP_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", ["-5ba", "-1ep", "-0.05dur", "-1sp", Time(-3, "tok")], ids=str)
def test_a_negative_warmup_is_refused_when_the_schedule_is_built(cls, bad):
    # at construction, before any run is known: one line naming t_warmup and what a time may be
    rest = WARMUP_REST.get(cls.__name__, {})
    with pytest.raises(ValueError) as info:
        cls(t_warmup=bad, **rest)
    assert str(info.value) == f"t_warmup={bad!r} is negative: a time must be >= 0 (e.g. '0ba', '100ba', '0.05dur')"
    with pytest.raises(ValueError, match=r"^t_warmup=.* is negative"):  # and a changed copy is checked the same
        attrs.evolve(cls(t_warmup="0ba", **rest), t_warmup=bad)


ZERO_WARMUPS = [
    (CosineAnnealingWithWarmupScheduler("0ba", alpha_f=0.29), CosineAnnealingScheduler(alpha_f=0.29)),
    (LinearWithWarmupScheduler("0dur", alpha_i=0.7, alpha_f=0.29), LinearScheduler(alpha_i=0.7, alpha_f=0.29)),
    (PolynomialWithWarmupScheduler("0ep", power=1.7, alpha_f=0.29), PolynomialScheduler(power=1.7, alpha_f=0.29)),
    (ConstantWithWarmupScheduler("0ba", alpha=0.29), ConstantScheduler(alpha=0.29)),
    (MultiStepWithWarmupScheduler("-0.0dur", ["30ba", "70ba"], gamma=0.29), MultiStepScheduler(["30ba", "70ba"], 0.29)),
]


@pytest.mark.parametrize("zero, composer", ZERO_WARMUPS, ids=lambda s: type(s).__name__)
def test_a_zero_warmup_is_still_composers_schedule_without_one(zero, composer):
    # 0 stays legitimate (Composer warns and skips the warmup): the curve is the one without a warmup, to 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the zero-warmup warning
        with_zero = zero.resolve("100ba", dataloader_len=10)
    without = composer.resolve("100ba", dataloader_len=10)
    for batch in (0, 1, 29, 30, 37, 38, 71, 99):  # before t_max (at it, Composer's constant ends at 1 alone)
        assert with_zero(batch) == pytest.approx(without(batch), abs=1e-12), batch


# ------------------------------------------------------------------------------------------------------------
# ssr (docs/trainer.md): a finite number > 0, a ValueError naming it
# ------------------------------------------------------------------------------------------------------------

BAD_SSRS = [0, 0.0, -1, -0.5, math.nan, math.inf, -math.inf, "x", "1.0", None]


@pytest.mark.parametrize("ssr", BAD_SSRS, ids=repr)
@pytest.mark.parametrize(
    "build",
    [
        lambda: StepScheduler("10ba"),
        lambda: LinearScheduler(),
        lambda: CosineAnnealingWithWarmupScheduler("10ba"),
        lambda: MultiStepWithWarmupScheduler("10ba", ["50ba"]),
        lambda: ConstantScheduler(),
    ],
    ids=["Step", "Linear", "CosineWithWarmup", "MultiStepWithWarmup", "Constant"],
)
def test_invalid_ssr(build, ssr):
    state = SchedulerState("100ba", Timestamp(batch=20))
    info = fails(build, state, ssr)
    names(info, "ssr")
    with pytest.raises(ValueError, match="ssr"):
        build().resolve("100ba", None, ssr)
    # a bad ssr leaves the schedule usable
    sched = build()
    good = sched(state)
    with pytest.raises(ValueError, match="ssr"):
        sched(state, ssr)
    assert sched(state) == good


# ------------------------------------------------------------------------------------------------------------
# SchedulerState / resolve(): max_duration never in dur, never a bare number; dataloader_len a positive int
# ------------------------------------------------------------------------------------------------------------

BAD_MAX_DURATIONS = ["1dur", "0.5dur", Time(1.0, "dur"), 100, 1.5, None, "100", "10bogus", "0ba", "-5ep"]


@pytest.mark.parametrize("bad", BAD_MAX_DURATIONS, ids=repr)
def test_bad_max_duration(bad):
    with pytest.raises(ValueError, match="max_duration"):
        SchedulerState(bad)
    state = SchedulerState("100ba")
    with pytest.raises(ValueError, match="max_duration"):
        state.max_duration = bad
    assert state.max_duration == Time(100, "ba")  # unchanged by the failed assignment
    with pytest.raises(ValueError, match="max_duration"):
        LinearScheduler().resolve(bad)


@pytest.mark.parametrize("bad, error_class", [("1.5ep", NonIntegralTimeError), ("0.3dru", TimeParseError)], ids=repr)
def test_a_max_duration_that_is_not_a_time_keeps_its_class(bad, error_class):
    state = SchedulerState("100ba")
    for entry in (SchedulerState, lambda v: setattr(state, "max_duration", v), LinearScheduler().resolve):
        with pytest.raises(error_class) as info:
            entry(bad)
        said_once(info, "max_duration", bad)
    if error_class is NonIntegralTimeError:
        assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("good", ["10ep", "100ba", "1000sp", "5tok", Time(3, "ep"), " 7 BA "])
def test_good_max_duration(good):
    state = SchedulerState(good)
    assert isinstance(state.max_duration, Time)
    assert state.max_duration.unit is not TimeUnit.DURATION
    assert state.max_duration == Time.from_input(good)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", Time(10, "ep"), True])
def test_bad_dataloader_len(bad):
    with pytest.raises(ValueError, match="dataloader_len"):
        SchedulerState("10ep", dataloader_len=bad)
    with pytest.raises(ValueError, match="dataloader_len"):
        StepScheduler("1ep").resolve("10ep", bad)


# Bytes, strings and Times are no numbers (timeunits.is_number), although float() reads each of them.
NOT_NUMBERS = [b"0.5", bytearray(b"0.5"), "0.5", Time(0.5, "dur"), True, None]


@pytest.mark.parametrize("bad", NOT_NUMBERS, ids=repr)
def test_a_number_argument_takes_numbers_only(bad):
    with pytest.raises(ValueError, match=r"^gamma=.* must be a number$"):
        StepScheduler("10ba", gamma=bad)
    with pytest.raises(ValueError, match=r"^ssr=.* must be a finite number > 0$"):
        check_ssr(bad)
    with pytest.raises(ValueError, match="ssr"):
        LinearScheduler().resolve("10ba", ssr=bad)


def test_numeric_scalars_are_still_numbers():
    import numpy as np
    import torch

    assert StepScheduler("10ba", gamma=np.float32(0.5)).gamma == 0.5
    assert StepScheduler("10ba", gamma=torch.tensor(0.25)).gamma == 0.25
    assert check_ssr(np.int64(2)) == 2.0 and check_ssr(Fraction(1, 2)) == 0.5


def check_ssr(value):
    """The ratio's check (the one number check of the core, as every entry point applies it to ``ssr``)."""
    return number_argument("ssr", value, low=0.0, low_open=True)
