"""Schedules written in training time: Composer's schedulers and more, composition, and the torch glue.

The top level holds the schedules and the few entry points a user calls; the engine's parts live in
``schedulers.core`` (resolution, kernels, the clock, evaluation, configs), the tools in ``schedulers.tools``
(report, plot, expressions) and the front ends in ``schedulers.cerebras`` and ``schedulers.sambaflow``
(see docs/architecture.md).

>>> from schedulers import CosineAnnealingWithWarmupScheduler, SchedulerState
>>> schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur", alpha_f=0.1)
>>> schedule(SchedulerState("100ba"))          # start of warmup
0.0
"""

# The front ends register their names when imported: importing them here makes every built-in name
# known to the registry, which itself imports no front end.
from schedulers import cerebras as _cerebras  # noqa: F401  (registers the Cerebras names)
from schedulers import sambaflow as _sambaflow  # noqa: F401  (registers the SambaFlow names)
from schedulers.core.clock import Clock, SchedulerState
from schedulers.core.composition import Product, Sequence, Warmup
from schedulers.core.evaluate import evaluate_run, run_timeline
from schedulers.core.names import UnknownSchedulerError, get_scheduler, register_scheduler, registered_schedulers
from schedulers.core.plateau import PlateauScheduler
from schedulers.core.run import MissingDataloaderLenError, Run, StateLike
from schedulers.core.schedule import FunctionSchedule, Schedule, as_schedule
from schedulers.core.schedule_arguments import FrozenScheduleError
from schedulers.core.schedule_config import ScheduleConfigError
from schedulers.core.torch_scheduler import compile_scheduler, scale_pytorch_scheduler
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

__all__ = [
    # Composer's 13 schedulers
    "ConstantScheduler",
    "ConstantWithWarmupScheduler",
    "CosineAnnealingScheduler",
    "CosineAnnealingWarmRestartsScheduler",
    "CosineAnnealingWithWarmupScheduler",
    "ExponentialScheduler",
    "LinearScheduler",
    "LinearWithWarmupScheduler",
    "MultiStepScheduler",
    "MultiStepWithWarmupScheduler",
    "PolynomialScheduler",
    "PolynomialWithWarmupScheduler",
    "StepScheduler",
    # more schedules, and composition
    "CyclicScheduler",
    "InverseSquareRootScheduler",
    "OneCycleScheduler",
    "WarmupStableDecayScheduler",
    "PlateauScheduler",
    "FunctionSchedule",
    "Product",
    "Sequence",
    "Warmup",
    # what a schedule is and reads, and the run it is resolved for
    "Schedule",
    "Run",
    "StateLike",
    "SchedulerState",
    "Clock",
    # entry points
    "as_schedule",
    "compile_scheduler",
    "evaluate_run",
    "run_timeline",
    "scale_pytorch_scheduler",
    "get_scheduler",
    "register_scheduler",
    "registered_schedulers",
    # the errors those raise
    "FrozenScheduleError",
    "MissingDataloaderLenError",
    "ScheduleConfigError",
    "UnknownSchedulerError",
]
