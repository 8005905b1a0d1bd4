"""Schedules as configs (issue 7 item 6): ``schedule_to_config`` / ``schedule_from_config``, YAML round trips.

Two schedules are *equal* when they have the same class and the same ``schedule_to_config`` output
(``schedules_equal``); the round-trip properties also check that the rebuilt schedule gives the same
``evaluate_run`` values (or the same error) on a few runs of its unit family.
"""

from __future__ import annotations

import inspect
import json
import math
import warnings

import attrs
import numpy as np
import pytest
import torch
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedulers import (
    ConstantScheduler,
    ConstantWithWarmupScheduler,
    CosineAnnealingScheduler,
    CosineAnnealingWarmRestartsScheduler,
    CosineAnnealingWithWarmupScheduler,
    CyclicScheduler,
    ExponentialScheduler,
    InverseSquareRootScheduler,
    LinearScheduler,
    LinearWithWarmupScheduler,
    MultiStepScheduler,
    MultiStepWithWarmupScheduler,
    OneCycleScheduler,
    PlateauScheduler,
    PolynomialScheduler,
    PolynomialWithWarmupScheduler,
    Product,
    Schedule,
    Sequence,
    StepScheduler,
    Warmup,
    WarmupStableDecayScheduler,
    as_schedule,
    evaluate_run,
    register_scheduler,
    registered_schedulers,
)
from schedulers.core.names import scheduler_family
from schedulers.core.schedule import Curve
from schedulers.core.schedule_config import (
    ScheduleConfigError,
    ScheduleNotSerializableError,
    schedule_from_config,
    schedule_to_config,
    schedules_equal,
)
from timeunits import Time

ROUND_TRIP = settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])


def yaml_round_trip(config):
    return yaml.safe_load(yaml.safe_dump(config, sort_keys=False))


# -- runs on which rebuilt schedules must agree -----------------------------------------------------------

VARYING_SAMPLES = torch.arange(2000) % 33 + 16  # 16..48 samples per batch
VARYING_TOKENS = (torch.arange(2000) * 7) % 200 + 180

RUNS = {
    "ba": [
        dict(max_duration="240ba", dataloader_len=24),
        dict(max_duration="10ep", dataloader_len=24, ssr=0.5),
    ],
    "sp": [
        dict(max_duration="7680sp", samples_per_batch=32),
        dict(max_duration="7680sp", samples_per_batch=VARYING_SAMPLES, ssr=1.5),
    ],
    "tok": [
        dict(max_duration="61440tok", tokens_per_batch=256),
        dict(max_duration="61440tok", tokens_per_batch=VARYING_TOKENS, ssr=0.75),
    ],
}
FAMILY_UNITS = {"ba": ("ba", "ep", "dur"), "sp": ("sp", "dur"), "tok": ("tok", "dur")}
MAX_COUNT = {"ba": 300, "ep": 12, "sp": 9000, "tok": 70000}


def outcome(schedule: Schedule, run: dict):
    """α per batch, or the error (type and message) the run raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return evaluate_run(schedule, **run)
        except Exception as error:  # noqa: BLE001  (the rebuilt schedule must fail the same way)
            return (type(error), str(error))


def assert_same_runs(a: Schedule, b: Schedule, family: str) -> None:
    for run in RUNS[family]:
        first, second = outcome(a, run), outcome(b, run)
        if isinstance(first, torch.Tensor):
            assert isinstance(second, torch.Tensor), (run, second)
            torch.testing.assert_close(first, second, rtol=0, atol=0, equal_nan=True)
        else:
            assert first == second


# -- strategies: valid constructor arguments for every registered class -----------------------------------


def times(family: str, *, positive: bool = False) -> st.SearchStrategy:
    """A time in one of the family's units, written as a Time, a time string, or an upper-case string."""
    options = []
    for unit in FAMILY_UNITS[family]:
        if unit == "dur":
            values = st.floats(0.001 if positive else 0.0, 1.5, allow_nan=False)
        else:
            values = st.integers(1 if positive else 0, MAX_COUNT[unit])
        options.append(values.flatmap(lambda v, u=unit: st.sampled_from([Time(v, u), f"{v}{u}", f" {v} {u.upper()}"])))
    return st.one_of(options)


def numbers(low: float | None = None, high: float | None = None, *, wide: bool = True) -> st.SearchStrategy:
    """Finite numbers, also as ints and numpy floats; mostly moderate, sometimes anywhere in range."""
    moderate = st.floats(-2.0 if low is None else low, 2.0 if high is None else high, allow_nan=False)
    anywhere = st.floats(low, high, allow_nan=False, allow_infinity=False)
    floats = st.one_of(moderate, anywhere) if wide else moderate
    ints = st.integers(0 if low is None else math.ceil(low), 3 if high is None else min(3, math.floor(high)))
    return st.one_of(floats, floats.map(np.float64), ints)


alphas = numbers(0.0)  # a negative multiplier is an error (it would write a negative lr)
# above 1 a schedule rises, which is allowed with a warning (tested in test_schedule_errors.py)
pytestmark = pytest.mark.filterwarnings(r"ignore:alpha_f=.* > 1. the schedule ends above:UserWarning")
gammas = numbers(0.0)
powers = numbers(0.0, 4.0, wide=False)
bools = st.booleans()


def build(cls, required: dict, optional: dict | None = None) -> st.SearchStrategy:
    return st.fixed_dictionaries(required, optional=optional or {}).map(lambda kwargs: cls(**kwargs))


def milestones(family: str) -> st.SearchStrategy:
    return st.lists(times(family), min_size=0, max_size=4)


# each entry: family -> strategy of instances (children of composites come from `leaves`)
LEAVES = {
    "StepScheduler": lambda f: build(StepScheduler, {"step_size": times(f, positive=True)}, {"gamma": gammas}),
    "MultiStepScheduler": lambda f: build(MultiStepScheduler, {"milestones": milestones(f)}, {"gamma": gammas}),
    "ConstantScheduler": lambda f: build(ConstantScheduler, {}, {"alpha": alphas, "t_max": times(f)}),
    "LinearScheduler": lambda f: build(
        LinearScheduler, {}, {"alpha_i": alphas, "alpha_f": alphas, "t_max": times(f, positive=True)}
    ),
    "ExponentialScheduler": lambda f: build(
        ExponentialScheduler, {"gamma": gammas}, {"decay_period": times(f, positive=True)}
    ),
    "CosineAnnealingScheduler": lambda f: build(
        CosineAnnealingScheduler, {}, {"t_max": times(f, positive=True), "alpha_f": alphas}
    ),
    "CosineAnnealingWarmRestartsScheduler": lambda f: build(
        CosineAnnealingWarmRestartsScheduler,
        {"t_0": times(f, positive=True)},
        {"t_mult": numbers(0.0, 3.0, wide=False), "alpha_f": alphas},
    ),
    "PolynomialScheduler": lambda f: build(
        PolynomialScheduler, {"power": powers}, {"t_max": times(f, positive=True), "alpha_f": alphas}
    ),
    "MultiStepWithWarmupScheduler": lambda f: build(
        MultiStepWithWarmupScheduler,
        {"t_warmup": times(f), "milestones": milestones(f)},
        {"gamma": gammas, "scale_warmup": bools},
    ),
    "ConstantWithWarmupScheduler": lambda f: build(
        ConstantWithWarmupScheduler, {"t_warmup": times(f)}, {"alpha": alphas, "t_max": times(f), "scale_warmup": bools}
    ),
    "LinearWithWarmupScheduler": lambda f: build(
        LinearWithWarmupScheduler,
        {"t_warmup": times(f)},
        {"alpha_i": alphas, "alpha_f": alphas, "t_max": times(f), "scale_warmup": bools},
    ),
    "CosineAnnealingWithWarmupScheduler": lambda f: build(
        CosineAnnealingWithWarmupScheduler,
        {"t_warmup": times(f)},
        {"t_max": times(f), "alpha_f": alphas, "scale_warmup": bools},
    ),
    "PolynomialWithWarmupScheduler": lambda f: build(
        PolynomialWithWarmupScheduler,
        {"t_warmup": times(f)},
        {"power": powers, "t_max": times(f), "alpha_f": alphas, "scale_warmup": bools},
    ),
    "WarmupStableDecayScheduler": lambda f: build(
        WarmupStableDecayScheduler,
        {"t_warmup": times(f)},
        {
            "t_decay": times(f, positive=True),
            "alpha_f": alphas,
            "decay_shape": st.sampled_from(["linear", "cosine", "1-sqrt"]),
            "t_max": times(f, positive=True),
            "scale_warmup": bools,
        },
    ),
    "PlateauScheduler": lambda f: build(
        PlateauScheduler,
        {},
        {
            "monitor": st.sampled_from(["eval/loss", "eval/acc"]),
            "mode": st.sampled_from(["min", "max"]),
            "factor": st.floats(0.0, 0.99),
            "patience": st.one_of(st.integers(0, 20), times(f)),
            "threshold": numbers(0.0),
            "threshold_mode": st.sampled_from(["rel", "abs"]),
            "cooldown": st.one_of(st.integers(0, 5), times(f)),
            "min_factor": alphas,
            "reductions": milestones(f),
        },
    ),
    "InverseSquareRootScheduler": lambda f: build(
        InverseSquareRootScheduler, {"t_warmup": times(f, positive=True)}, {"scale_warmup": bools}
    ),
    "OneCycleScheduler": lambda f: build(
        OneCycleScheduler,
        {},
        {
            "t_max": times(f, positive=True),
            "pct_start": st.floats(0.05, 0.95),
            "div_factor": numbers(0.5, 100.0, wide=False),
            "final_div_factor": numbers(0.5, 1e5, wide=False),
            "anneal_strategy": st.sampled_from(["cos", "linear"]),
            "three_phase": bools,
        },
    ),
    "CyclicScheduler": lambda f: build(
        CyclicScheduler,
        {"t_up": times(f, positive=True)},
        {
            "t_down": st.one_of(st.none(), times(f, positive=True)),
            "base_ratio": numbers(0.0, 1.0, wide=False),
            "mode": st.sampled_from(["triangular", "triangular2", "exp_range"]),
            "gamma": st.floats(0.5, 1.0),
        },
    ),
}


def leaves(family: str) -> st.SearchStrategy:
    return st.one_of([strategy(family) for strategy in LEAVES.values()])


def children(family: str, depth: int) -> st.SearchStrategy:
    return (
        leaves(family)
        if depth <= 0
        else st.one_of(leaves(family), *(c(family, depth - 1) for c in COMPOSITES.values()))
    )


def sequences(family: str, depth: int) -> st.SearchStrategy:
    def with_milestones(schedules):
        k = len(schedules) - 1
        ordered = st.lists(st.floats(0.05, 0.95), min_size=k, max_size=k, unique=True).map(
            lambda xs: [f"{x}dur" for x in sorted(xs)]
        )
        anything = st.lists(times(family), min_size=k, max_size=k)
        return st.one_of(ordered, anything).map(lambda ms: Sequence(schedules, ms))

    return st.lists(children(family, depth), min_size=1, max_size=3).flatmap(with_milestones)


COMPOSITES = {
    "Warmup": lambda f, depth=1: build(
        Warmup, {"schedule": children(f, depth), "t_warmup": times(f)}, {"scale_warmup": bools}
    ),
    "Product": lambda f, depth=1: build(Product, {"schedules": st.lists(children(f, depth), min_size=1, max_size=3)}),
    "Sequence": lambda f, depth=1: sequences(f, depth),
}
STRATEGIES = {**LEAVES, **COMPOSITES}


def cadence_schedule_classes() -> dict[str, type]:
    """Every Schedule subclass Cadence itself registers (user classes registered by tests are left out)."""
    return {
        cls.__name__: cls
        for cls in registered_schedulers().values()
        if inspect.isclass(cls) and issubclass(cls, Schedule) and scheduler_family(cls) in ("composer", "cadence")
    }


def test_every_registered_schedule_class_has_a_strategy():
    assert set(cadence_schedule_classes()) == set(STRATEGIES)
    assert len(STRATEGIES) == 21  # Composer's 13, the 4 extended, the plateau, the 3 composites


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@ROUND_TRIP
@given(data=st.data())
def test_yaml_round_trip_builds_an_equal_schedule(name, data):
    family = data.draw(st.sampled_from(sorted(RUNS)), label="family")
    schedule = data.draw(STRATEGIES[name](family), label="schedule")
    config = schedule_to_config(schedule)
    assert list(config) == [name]

    loaded = yaml_round_trip(config)
    assert loaded == config  # YAML keeps every value exactly (time strings, floats, bools, None, nesting)
    assert json.loads(json.dumps(config)) == config
    rebuilt = schedule_from_config(loaded)
    assert type(rebuilt) is type(schedule)
    assert schedule_to_config(rebuilt) == config
    assert schedules_equal(rebuilt, schedule)
    assert repr(rebuilt) == repr(schedule)
    assert_same_runs(schedule, rebuilt, family)

    compact = schedule_to_config(schedule, include_defaults=False)
    assert schedules_equal(schedule_from_config(yaml_round_trip(compact)), schedule)
    assert set(compact[name]) <= set(config[name])


# one valid instance per class, which must evaluate (not only fail the same way) after the round trip
EXAMPLES = {
    "StepScheduler": (StepScheduler("30ba", gamma=0.5), "ba"),
    "MultiStepScheduler": (MultiStepScheduler(["2ep", "0.75dur"], gamma=0.3), "ba"),
    "ConstantScheduler": (ConstantScheduler(0.25, "0.5dur"), "sp"),
    "LinearScheduler": (LinearScheduler(1.0, 0.1, "5000tok"), "tok"),
    "ExponentialScheduler": (ExponentialScheduler(0.9, "1ep"), "ba"),
    "CosineAnnealingScheduler": (CosineAnnealingScheduler(alpha_f=0.05), "sp"),
    "CosineAnnealingWarmRestartsScheduler": (CosineAnnealingWarmRestartsScheduler("0.1dur", t_mult=2.0), "ba"),
    "PolynomialScheduler": (PolynomialScheduler(power=1.5, alpha_f=0.1), "tok"),
    "MultiStepWithWarmupScheduler": (MultiStepWithWarmupScheduler("1ep", ["4ep", "8ep"]), "ba"),
    "ConstantWithWarmupScheduler": (ConstantWithWarmupScheduler("500sp", alpha=0.5), "sp"),
    "LinearWithWarmupScheduler": (LinearWithWarmupScheduler("0.1dur", 1.0, 0.2, scale_warmup=True), "tok"),
    "CosineAnnealingWithWarmupScheduler": (CosineAnnealingWithWarmupScheduler("0.05dur", alpha_f=0.1), "ba"),
    "PolynomialWithWarmupScheduler": (PolynomialWithWarmupScheduler("300sp", power=3.0), "sp"),
    "WarmupStableDecayScheduler": (WarmupStableDecayScheduler("0.05dur", "0.2dur", decay_shape="1-sqrt"), "ba"),
    "InverseSquareRootScheduler": (InverseSquareRootScheduler("2000tok"), "tok"),
    "PlateauScheduler": (
        PlateauScheduler(factor=0.29, patience="1ep", cooldown=2, reductions=["30ba", "0.5dur"]),
        "ba",
    ),
    "OneCycleScheduler": (OneCycleScheduler(pct_start=0.25, anneal_strategy="linear", three_phase=True), "sp"),
    "CyclicScheduler": (CyclicScheduler("20ba", "40ba", mode="triangular2"), "ba"),
    "Warmup": (Warmup(StepScheduler("1000sp", gamma=0.5), "0.1dur"), "sp"),
    "Product": (Product([LinearScheduler(), CyclicScheduler("0.1dur", base_ratio=0.5)]), "tok"),
    "Sequence": (
        Sequence(
            [LinearScheduler(0.0, 1.0), Warmup(CosineAnnealingScheduler(), "1ep"), ConstantScheduler(0.1)],
            ["0.1dur", "8ep"],
        ),
        "ba",
    ),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_round_trip_and_evaluate_equally(name):
    schedule, family = EXAMPLES[name]
    assert set(EXAMPLES) == set(STRATEGIES)
    rebuilt = schedule_from_config(yaml_round_trip(schedule_to_config(schedule)))
    assert schedules_equal(rebuilt, schedule)
    for run in RUNS[family]:
        expected = evaluate_run(schedule, **run)
        assert torch.equal(evaluate_run(rebuilt, **run), expected)


# -- the config format ------------------------------------------------------------------------------------


def test_config_writes_every_argument_in_order_with_time_strings():
    schedule = CosineAnnealingWithWarmupScheduler(t_warmup=Time(0.05, "dur"), alpha_f=np.float64(0.1))
    assert schedule_to_config(schedule) == {
        "CosineAnnealingWithWarmupScheduler": {
            "t_warmup": "0.05dur",
            "t_max": "1.0dur",
            "alpha_f": 0.1,
            "scale_warmup": False,
        }
    }
    value = schedule_to_config(schedule)["CosineAnnealingWithWarmupScheduler"]["alpha_f"]
    assert type(value) is float  # numpy scalars become plain floats (yaml.safe_dump refuses numpy)


def test_compact_config_keeps_required_and_changed_arguments_only():
    assert schedule_to_config(CosineAnnealingWithWarmupScheduler("10ep"), include_defaults=False) == {
        "CosineAnnealingWithWarmupScheduler": {"t_warmup": "10ep"}
    }
    # "1dur" written as "1.0dur", 10000 as 1e4: still the default
    assert schedule_to_config(OneCycleScheduler("1dur", final_div_factor=10000), include_defaults=False) == {
        "OneCycleScheduler": {}
    }
    assert schedule_to_config(OneCycleScheduler("0.5dur", three_phase=True), include_defaults=False) == {
        "OneCycleScheduler": {"t_max": "0.5dur", "three_phase": True}
    }
    assert schedule_to_config(CyclicScheduler("4ba", "8ba"), include_defaults=False) == {
        "CyclicScheduler": {"t_up": "4ba", "t_down": "8ba"}
    }
    assert schedule_to_config(ConstantWithWarmupScheduler("0ba", alpha=0.5), include_defaults=False) == {
        "ConstantWithWarmupScheduler": {"t_warmup": "0ba", "alpha": 0.5}
    }


def test_nested_schedules_become_nested_configs_and_yaml_reads_well():
    schedule = Sequence(
        [
            Warmup(StepScheduler("10ba", gamma=0.5), "5ba"),
            Product([CosineAnnealingScheduler(), ConstantScheduler(0.5)]),
        ],
        ["0.2dur"],
    )
    text = yaml.safe_dump(schedule_to_config(schedule, include_defaults=False), sort_keys=False)
    assert text == (
        "Sequence:\n"
        "  schedules:\n"
        "  - Warmup:\n"
        "      schedule:\n"
        "        StepScheduler:\n"
        "          step_size: 10ba\n"
        "          gamma: 0.5\n"
        "      t_warmup: 5ba\n"
        "  - Product:\n"
        "      schedules:\n"
        "      - CosineAnnealingScheduler: {}\n"
        "      - ConstantScheduler:\n"
        "          alpha: 0.5\n"
        "  milestones:\n"
        "  - 0.2dur\n"
    )
    rebuilt = schedule_from_config(yaml.safe_load(text))
    assert schedules_equal(rebuilt, schedule)
    assert torch.equal(evaluate_run(rebuilt, "100ba"), evaluate_run(schedule, "100ba"))


def test_from_config_accepts_aliases_any_case_bare_names_and_empty_arguments():
    expected = CosineAnnealingWithWarmupScheduler("0.1dur", alpha_f=0.1)
    for name in ("CosineAnnealingWithWarmupScheduler", "cosine_with_warmup", "COSINEANNEALINGWITHWARMUPSCHEDULER"):
        built = schedule_from_config({name: {"t_warmup": "0.1dur", "alpha_f": 0.1}})
        assert schedules_equal(built, expected)
    assert schedules_equal(schedule_from_config("cosine"), CosineAnnealingScheduler())
    assert schedules_equal(schedule_from_config({"cosine": None}), CosineAnnealingScheduler())
    assert schedules_equal(schedule_from_config({"cosine": {}}), CosineAnnealingScheduler())
    # names shared with a Cerebras class without their suffix resolve among the Cadence schedules
    assert type(schedule_from_config({"CosineAnnealing": {}})) is CosineAnnealingScheduler
    # child schedules by name, as in the trainer's YAML
    built = schedule_from_config({"Sequence": {"schedules": ["linear", {"cosine": {}}], "milestones": ["0.5dur"]}})
    assert schedules_equal(built, Sequence([LinearScheduler(), CosineAnnealingScheduler()], ["0.5dur"]))
    built = schedule_from_config({"Warmup": {"schedule": "cosine", "t_warmup": "3ba"}})
    assert schedules_equal(built, Warmup(CosineAnnealingScheduler(), "3ba"))


def test_from_config_passes_schedule_objects_through():
    child = StepScheduler("10ba")
    built = schedule_from_config({"Warmup": {"schedule": child, "t_warmup": "2ba"}})
    assert built.schedule is child
    assert schedule_from_config(child) is child


def test_schedules_equal_compares_class_and_config():
    assert schedules_equal(StepScheduler("10ba"), StepScheduler(Time(10, "ba"), gamma=0.1))
    assert not schedules_equal(StepScheduler("10ba"), StepScheduler("10ba", gamma=0.2))
    assert not schedules_equal(StepScheduler("10ba"), StepScheduler("10sp"))
    assert not schedules_equal(LinearScheduler(), LinearWithWarmupScheduler("0ba"))
    assert not schedules_equal(Warmup(LinearScheduler(), "1ba"), Warmup(LinearScheduler(alpha_f=0.5), "1ba"))


def test_exact_values_survive_yaml():
    schedule = Sequence(
        [LinearScheduler(0.1 + 0.2, 1 / 3, "9007199254740993ba"), ExponentialScheduler(1e-300, "1_000_000tok")],
        [Time(0.1 + 0.7, "dur")],
    )
    config = yaml_round_trip(schedule_to_config(schedule))
    rebuilt = schedule_from_config(config)
    assert rebuilt.schedules[0].alpha_i == 0.1 + 0.2 and rebuilt.schedules[0].alpha_f == 1 / 3
    assert rebuilt.schedules[0].t_max == Time(9007199254740993, "ba")
    assert rebuilt.schedules[1].gamma == 1e-300 and rebuilt.schedules[1].decay_period == Time(1_000_000, "tok")
    assert rebuilt.milestones == (Time(0.1 + 0.7, "dur"),)  # list arguments are kept as tuples


# -- a user's schedule class ------------------------------------------------------------------------------


def _register_user_class():
    @register_scheduler(aliases=("serialization_test_drop",))
    @attrs.frozen
    class SerializationTestDropSchedule(Schedule):
        """1 until ``at``, then ``low``; ``note`` is a free-form string, ``weights`` a list of numbers."""

        at: Time = attrs.field(default="0.5dur", converter=Time.from_input)
        low: float = attrs.field(default=0.5, converter=float)
        note: str = ""
        weights: tuple = attrs.field(default=(1.0,), converter=tuple)

        def _resolve(self, run):
            times = self._resolve_times(run, self._arguments("at"))
            at, low = times["at"].value, self.low
            return Curve(times["at"].unit, lambda x: (x < at) * 1.0 + (x >= at) * low, times)

    return SerializationTestDropSchedule


def test_a_registered_user_class_round_trips():
    cls = _register_user_class()
    schedule = cls("30ba", low=np.float32(0.25), note="from a sweep", weights=(1, 2.5))
    config = schedule_to_config(schedule)
    assert config == {
        "SerializationTestDropSchedule": {"at": "30ba", "low": 0.25, "note": "from a sweep", "weights": [1, 2.5]}
    }
    assert schedule_to_config(cls(), include_defaults=False) == {"SerializationTestDropSchedule": {}}
    rebuilt = schedule_from_config(yaml_round_trip({"serialization_test_drop": config[cls.__name__]}))
    assert schedules_equal(rebuilt, schedule)
    assert torch.equal(evaluate_run(rebuilt, "100ba"), evaluate_run(schedule, "100ba"))


# -- errors -----------------------------------------------------------------------------------------------


def test_functions_of_the_state_have_no_config():
    fn = as_schedule(lambda state: 1.0)
    with pytest.raises(ScheduleNotSerializableError, match=r"^FunctionSchedule: as_schedule\(.*function of the state"):
        schedule_to_config(fn)
    nested = Sequence([LinearScheduler(), Warmup(fn, "1ba")], ["0.5dur"])
    with pytest.raises(ScheduleNotSerializableError, match=r"^Sequence\.schedules\[1\]\.Warmup\.schedule\.Function"):
        schedule_to_config(nested)
    with pytest.raises(TypeError):  # also a ValueError
        schedule_to_config(fn)
    with pytest.raises(ScheduleNotSerializableError, match="is not a Cadence schedule"):
        schedule_to_config(lambda state, ssr=1.0: 1.0)


def test_unregistered_classes_and_unreadable_arguments_are_not_serialisable():
    class Unregistered(LinearScheduler):
        pass

    with pytest.raises(ScheduleNotSerializableError, match="Unregistered is not registered.*register_scheduler"):
        schedule_to_config(Unregistered())

    @register_scheduler
    @attrs.frozen
    class SerializationTestOddSchedule(Schedule):
        table: object = None

    with pytest.raises(ScheduleNotSerializableError, match=r"SerializationTestOddSchedule\.table=\{'a': 1\}"):
        schedule_to_config(SerializationTestOddSchedule({"a": 1}))
    # numpy and 0-d tensor scalars become plain Python values that yaml.safe_dump accepts
    raw = [np.int64(3), np.float32(0.5), torch.tensor(0.25), torch.tensor(7), np.bool_(True), (1, "x", None)]
    written = schedule_to_config(SerializationTestOddSchedule(raw))["SerializationTestOddSchedule"]["table"]
    assert written == [3, 0.5, 0.25, 7, True, [1, "x", None]]
    assert [type(v) for v in written[:5]] == [int, float, float, int, bool]
    assert yaml_round_trip(written) == written


@pytest.mark.parametrize(
    "config, path, message",
    [
        ({"StepSchedulr": {}}, "StepSchedulr", r"unknown schedule 'StepSchedulr' \(did you mean StepScheduler"),
        ({"StepScheduler": {"gamma": 0.1}}, "StepScheduler", "missing required argument 'step_size'"),
        ({"StepScheduler": {"step_size": "10ba", "gama": 0.5}}, "StepScheduler.gama", "did you mean 'gamma'"),
        ({"StepScheduler": {"step_size": "10ba", "gamma": -1}}, "StepScheduler.gamma", "gamma=-1 must be >= 0"),
        ({"StepScheduler": {"step_size": 10}}, "StepScheduler.step_size", "bare number, not a time"),
        ({"multistep": {"milestones": ["1ba", "2x"]}}, "multistep.milestones[1]", "is not a time"),
        ({"StepScheduler": ["10ba"]}, "StepScheduler", "must be a mapping"),
        ({"a": {}, "b": {}}, "", "one key, the schedule's name.*found 'a', 'b'"),
        (3, "", "got 3 of type int"),
        ({3: {}}, "", "name must be a string"),
        ({"CosineDecayLR": {"initial_learning_rate": 1.0}}, "CosineDecayLR", "not a Cadence schedule"),
        ({"fixed_lr": {}}, "fixed_lr", "not a Cadence schedule"),
        (
            {"Sequence": {"schedules": ["linear", {"cosin": {}}], "milestones": ["0.5dur"]}},
            "Sequence.schedules[1].cosin",
            "unknown schedule 'cosin'",
        ),
        (
            {"Sequence": {"schedules": ["linear", {"cosine": {"t_mx": "1dur"}}], "milestones": ["0.5dur"]}},
            "Sequence.schedules[1].cosine.t_mx",
            r"CosineAnnealingScheduler got an unexpected keyword argument 't_mx' \(did you mean 't_max'\?\); "
            r"accepted: CosineAnnealingScheduler\(t_max='1dur', alpha_f=0.0\)$",
        ),
        (
            {"Warmup": {"schedule": {"step": {"step_size": "1ba", "gamma": "big"}}, "t_warmup": "1ba"}},
            "Warmup.schedule.step.gamma",
            "must be a number",
        ),
        ({"Warmup": {"schedule": 3, "t_warmup": "1ba"}}, "Warmup.schedule", "is not a Cadence schedule"),
        ({"Sequence": {"schedules": ["linear"], "milestones": ["0.5dur"]}}, "Sequence", "need 0 milestones"),
    ],
)
def test_config_errors_name_the_key_path(config, path, message):
    with pytest.raises(ScheduleConfigError, match=message) as error:
        schedule_from_config(config)
    assert error.value.key_path == path
    assert str(error.value).startswith(f"{path}: " if path else "")
    assert isinstance(error.value, ValueError)


def test_key_path_prefix_is_prepended():
    with pytest.raises(ScheduleConfigError) as error:
        schedule_from_config(
            {"Warmup": {"schedule": {"nope": {}}, "t_warmup": "1ba"}}, key_path="trainer.init.schedulers[0]"
        )
    assert error.value.key_path == "trainer.init.schedulers[0].Warmup.schedule.nope"


def test_unknown_name_lists_schedule_names_only():
    with pytest.raises(ScheduleConfigError) as error:
        schedule_from_config("no_such_schedule")
    text = str(error.value)
    assert "schedule names: ConstantScheduler" in text and "WarmupStableDecayScheduler" in text
    assert "CosineDecayLR" not in text  # optimizer-built classes are not offered


def test_unknown_name_suggests_schedule_names_only():
    with pytest.raises(ScheduleConfigError) as error:
        schedule_from_config({"Cosinne": {}})
    assert str(error.value).startswith("Cosinne: unknown schedule 'Cosinne' (did you mean cosine?); schedule names: ")
    with pytest.raises(ScheduleConfigError) as error:
        schedule_from_config({"CosineDecayLRR": {}})
    assert "CosineDecayLR," not in str(error.value) and "CosineDecayWD" not in str(error.value)
    # ambiguous across front ends, one schedule among them: that one
    assert type(schedule_from_config({"CosineAnnealing": {}})).__name__ == "CosineAnnealingScheduler"


def test_expected_class_is_checked():
    built = schedule_from_config({"step": {"step_size": "5ba"}}, expected=StepScheduler)
    assert type(built) is StepScheduler
    assert type(schedule_from_config({"step": {"step_size": "5ba"}}, expected=Schedule)) is StepScheduler
    with pytest.raises(ScheduleConfigError, match="^cosine: builds a CosineAnnealingScheduler, not a StepScheduler"):
        schedule_from_config({"cosine": {}}, expected=StepScheduler)


# -- the methods, and where the conversion lives ---------------------------------------------------------


def test_to_config_and_from_config_methods():
    schedule = Warmup(MultiStepScheduler(["30ep", "0.8dur"], gamma=0.5), "2ep")
    assert schedule.to_config() == schedule_to_config(schedule)
    assert schedule.to_config(include_defaults=False) == schedule_to_config(schedule, include_defaults=False)
    assert Schedule.from_config(yaml_round_trip(schedule.to_config())) == schedule
    assert StepScheduler.from_config({"step": {"step_size": "10ba"}}) == StepScheduler("10ba")
    assert Schedule.from_config("cosine") == CosineAnnealingScheduler()
    with pytest.raises(ScheduleConfigError, match="builds a CosineAnnealingScheduler, not a StepScheduler"):
        StepScheduler.from_config("cosine")


def test_the_engine_imports_nothing_from_tools():
    """schedulers.core (the engine) never imports schedulers.tools, not even inside a function; the config
    conversion in core does not import the schedule base class (no base <-> config cycle)."""
    import ast
    from pathlib import Path

    import schedulers.core

    imported: dict[str, set[str]] = {}
    for path in Path(schedulers.core.__file__).parent.glob("*.py"):
        names = imported.setdefault(path.stem, set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    assert {m: sorted(n for n in names if n.startswith("schedulers.tools")) for m, names in imported.items()} == {
        m: [] for m in imported
    }
    assert "schedulers.core.schedule" not in imported["schedule_config"]
