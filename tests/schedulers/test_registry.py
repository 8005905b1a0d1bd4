"""The registry: every public schedule by class name (any case), by alias, and user classes."""

from __future__ import annotations

import pytest

import schedulers
from schedulers import Schedule, UnknownSchedulerError, get_scheduler, register_scheduler, registered_schedulers

COMPOSER_NAMES = [
    "StepScheduler",
    "MultiStepScheduler",
    "ConstantScheduler",
    "LinearScheduler",
    "ExponentialScheduler",
    "CosineAnnealingScheduler",
    "CosineAnnealingWarmRestartsScheduler",
    "PolynomialScheduler",
    "MultiStepWithWarmupScheduler",
    "ConstantWithWarmupScheduler",
    "LinearWithWarmupScheduler",
    "CosineAnnealingWithWarmupScheduler",
    "PolynomialWithWarmupScheduler",
]
CADENCE_NAMES = [
    "WarmupStableDecayScheduler",
    "InverseSquareRootScheduler",
    "OneCycleScheduler",
    "CyclicScheduler",
    "Warmup",
    "Sequence",
    "Product",
]


@pytest.mark.parametrize("name", COMPOSER_NAMES + CADENCE_NAMES)
def test_every_public_schedule_by_name_in_any_case(name):
    cls = getattr(schedulers, name)
    assert get_scheduler(name) is cls
    assert get_scheduler(name.lower()) is cls
    assert get_scheduler(name.upper()) is cls
    assert name in registered_schedulers()


@pytest.mark.parametrize(
    "alias, name",
    [
        ("cosine_with_warmup", "CosineAnnealingWithWarmupScheduler"),
        ("wsd", "WarmupStableDecayScheduler"),
        ("WSD", "WarmupStableDecayScheduler"),
        ("inverse_sqrt", "InverseSquareRootScheduler"),
        ("one_cycle", "OneCycleScheduler"),
        ("multistep", "MultiStepScheduler"),
        ("linear_with_warmup", "LinearWithWarmupScheduler"),
        ("CosineAnnealingWithWarmup", "CosineAnnealingWithWarmupScheduler"),  # without the family suffix
    ],
)
def test_aliases(alias, name):
    assert get_scheduler(alias) is getattr(schedulers, name)


def test_aliases_are_unique():
    names = registered_schedulers()
    lowered = [n.lower() for n in names]
    assert len(lowered) == len(set(lowered))


def test_unknown_name_suggests_close_names_and_lists_known():
    with pytest.raises(UnknownSchedulerError, match="did you mean cosine_with_warmup") as error:
        get_scheduler("cosine_with_warmpu")
    assert isinstance(error.value, ValueError) and isinstance(error.value, KeyError)
    assert "StepScheduler" in str(error.value)
    with pytest.raises(UnknownSchedulerError, match="must be a string"):
        get_scheduler(3)


def test_user_classes_register_and_cannot_shadow_builtins():
    @register_scheduler(aliases=("half_forever",))
    class HalfForeverSchedule(Schedule):
        def __call__(self, state, ssr=1.0):
            return 0.5

    assert get_scheduler("half_forever") is HalfForeverSchedule
    assert get_scheduler("HalfForeverSchedule") is HalfForeverSchedule
    with pytest.raises(ValueError, match="already registered"):

        @register_scheduler
        class StepScheduler(Schedule):  # noqa: F811  (same name as Composer's)
            pass

    with pytest.raises(ValueError, match="alias 'wsd' already names"):
        register_scheduler(type("Other", (Schedule,), {}), aliases=("wsd",))


def test_ambiguous_suffixless_name_lists_full_names():
    @register_scheduler(family="cerebras-test")
    class ZigzagLR(Schedule):
        pass

    @register_scheduler(family="composer-test")
    class ZigzagScheduler(Schedule):
        pass

    with pytest.raises(UnknownSchedulerError, match="ambiguous.*ZigzagLR, ZigzagScheduler"):
        get_scheduler("zigzag")
    assert get_scheduler("zigzag", family="cerebras-test") is ZigzagLR


def _is_schedule(cls: object) -> bool:
    return isinstance(cls, type) and issubclass(cls, Schedule)


def test_where_filters_before_ambiguity_and_suggestions():
    # 'CosineAnnealing' matches Composer's CosineAnnealingScheduler and Cerebras's CosineAnnealingLR
    with pytest.raises(UnknownSchedulerError, match="ambiguous"):
        get_scheduler("CosineAnnealing")
    assert get_scheduler("CosineAnnealing", where=_is_schedule) is schedulers.CosineAnnealingScheduler
    with pytest.raises(UnknownSchedulerError) as error:
        get_scheduler("Cosinne", where=_is_schedule)
    assert error.value.reason == "unknown schedule 'Cosinne' (did you mean cosine?)"  # no Cerebras names offered
    assert str(error.value).startswith(error.value.reason + "; known: ")
    assert "CosineDecayLR" not in str(error.value)
    # an exact name that ``where`` drops is unknown, not read as the shortened name of another entry
    with pytest.raises(UnknownSchedulerError, match="unknown schedule 'CosineAnnealingWarmRestarts'"):
        get_scheduler("CosineAnnealingWarmRestarts", where=_is_schedule)
    listed = registered_schedulers(where=_is_schedule)
    assert "cosine" in listed and "CosineDecayLR" not in listed and "fixed_lr" not in listed


def test_the_reason_survives_pickling():
    import pickle

    with pytest.raises(UnknownSchedulerError) as error:
        get_scheduler("Cosinne")
    copy = pickle.loads(pickle.dumps(error.value))
    assert str(copy) == str(error.value) and copy.reason == error.value.reason
