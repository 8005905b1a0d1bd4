"""Schedules written in training time: closed-form kernels, Composer's schedulers, composition, torch glue.

>>> from schedulers import CosineAnnealingWithWarmupScheduler, SchedulerState
>>> schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
>>> schedule(SchedulerState("100ba"))          # start of warmup
0.0
"""

from schedulers.base import Curve, Schedule
from schedulers.composer import (
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
    StepScheduler,
)
from schedulers.resolution import MissingDataloaderLenError, RunContext
from schedulers.state import SchedulerState

__all__ = [
    "ConstantScheduler",
    "ConstantWithWarmupScheduler",
    "CosineAnnealingScheduler",
    "CosineAnnealingWarmRestartsScheduler",
    "CosineAnnealingWithWarmupScheduler",
    "Curve",
    "ExponentialScheduler",
    "LinearScheduler",
    "LinearWithWarmupScheduler",
    "MissingDataloaderLenError",
    "MultiStepScheduler",
    "MultiStepWithWarmupScheduler",
    "PolynomialScheduler",
    "PolynomialWithWarmupScheduler",
    "RunContext",
    "Schedule",
    "SchedulerState",
    "StepScheduler",
]
