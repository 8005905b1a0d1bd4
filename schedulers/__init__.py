"""Schedules written in training time: closed-form kernels, Composer's schedulers, composition, torch glue.

>>> from schedulers import CosineAnnealingWithWarmupScheduler, SchedulerState
>>> schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
>>> schedule(SchedulerState("100ba"))          # start of warmup
0.0
"""

# The front ends register their names when imported: importing them here makes every built-in name
# known to the registry, which itself imports no front end.
from schedulers import cerebras as _cerebras  # noqa: F401  (registers the Cerebras names)
from schedulers import sambaflow as _sambaflow  # noqa: F401  (registers the SambaFlow names)
from schedulers.core.arguments import FrozenScheduleError
from schedulers.core.base import Curve, FunctionSchedule, Schedule, as_schedule
from schedulers.core.clock import Clock
from schedulers.core.compile import CompiledScheduler, compile_scheduler
from schedulers.core.composition import Product, Sequence, Warmup
from schedulers.core.evaluate import RunTimeline, evaluate_run, run_timeline
from schedulers.core.registry import UnknownSchedulerError, get_scheduler, register_scheduler, registered_schedulers
from schedulers.core.resolution import MissingDataloaderLenError, RunContext, scale_max_duration
from schedulers.core.state import SchedulerState, ScheduleState
from schedulers.core.torch_scaling import scale_pytorch_scheduler
from schedulers.families.composer import (
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
from schedulers.families.extended import (
    CyclicScheduler,
    InverseSquareRootScheduler,
    OneCycleScheduler,
    WarmupStableDecayScheduler,
)
from schedulers.tools.report import schedule_report, schedule_report_rows
from schedulers.tools.serialization import (
    ScheduleConfigError,
    ScheduleNotSerializableError,
    schedule_from_config,
    schedule_to_config,
    schedules_equal,
)

__all__ = [
    "Clock",
    "ScheduleConfigError",
    "ScheduleNotSerializableError",
    "schedule_from_config",
    "schedule_report",
    "schedule_report_rows",
    "schedule_to_config",
    "schedules_equal",
    "CyclicScheduler",
    "InverseSquareRootScheduler",
    "OneCycleScheduler",
    "WarmupStableDecayScheduler",
    "CompiledScheduler",
    "ConstantScheduler",
    "ConstantWithWarmupScheduler",
    "CosineAnnealingScheduler",
    "CosineAnnealingWarmRestartsScheduler",
    "CosineAnnealingWithWarmupScheduler",
    "Curve",
    "FrozenScheduleError",
    "FunctionSchedule",
    "ExponentialScheduler",
    "LinearScheduler",
    "LinearWithWarmupScheduler",
    "MissingDataloaderLenError",
    "MultiStepScheduler",
    "MultiStepWithWarmupScheduler",
    "PolynomialScheduler",
    "PolynomialWithWarmupScheduler",
    "Product",
    "RunContext",
    "RunTimeline",
    "Schedule",
    "SchedulerState",
    "ScheduleState",
    "Sequence",
    "StepScheduler",
    "UnknownSchedulerError",
    "Warmup",
    "as_schedule",
    "compile_scheduler",
    "evaluate_run",
    "get_scheduler",
    "register_scheduler",
    "registered_schedulers",
    "run_timeline",
    "scale_max_duration",
    "scale_pytorch_scheduler",
]
