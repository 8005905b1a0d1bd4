"""Every Cerebras class is in the registry under its full name (family "cerebras"), ending in LR or WD."""

from __future__ import annotations

import pytest

import schedulers.cerebras as cs
from schedulers.cerebras.configure import configure_lr_scheduler  # noqa: F401  (imported for the package)
from schedulers.core.names import UnknownSchedulerError, get_scheduler, registered_schedulers

LR_NAMES = [
    "ConstantLR",
    "PolynomialLR",
    "LinearLR",
    "ExponentialLR",
    "InverseExponentialTimeDecayLR",
    "InverseSquareRootDecayLR",
    "CosineDecayLR",
    "SequentialLR",
    "PiecewiseConstantLR",
    "MultiStepLR",
    "StepLR",
    "CosineAnnealingLR",
    "LambdaLR",
    "CosineAnnealingWarmRestarts",
    "MultiplicativeLR",
    "ChainedLR",
    "CyclicLR",
    "OneCycleLR",
    "ScalePerParamLR",
]
WD_NAMES = [name[:-2] + "WD" if name.endswith("LR") else name + "WD" for name in LR_NAMES]


@pytest.mark.parametrize("name", LR_NAMES + WD_NAMES)
def test_registered_under_its_full_name(name):
    cls = getattr(cs, name)
    assert get_scheduler(name, family="cerebras") is cls
    assert get_scheduler(name.lower()) is cls
    assert name in registered_schedulers("cerebras")


def test_full_names_end_in_lr_or_wd_and_aliases_cover_the_rest():
    assert get_scheduler("ChainedScheduler") is cs.ChainedLR
    assert get_scheduler("CosineAnnealingWarmRestartsLR") is cs.CosineAnnealingWarmRestarts
    classes = {c for c in registered_schedulers("cerebras").values() if c.__module__.startswith("schedulers.cerebras")}
    assert len(classes) == 38
    # Cerebras's own name for the one class without a suffix; its alias ends in LR
    assert {c.__name__ for c in classes if not c.__name__.endswith(("LR", "WD"))} == {"CosineAnnealingWarmRestarts"}


def test_a_name_shared_by_an_lr_and_a_wd_class_is_ambiguous_without_its_suffix():
    with pytest.raises(UnknownSchedulerError, match="CosineDecayLR, CosineDecayWD"):
        get_scheduler("CosineDecay", family="cerebras")
