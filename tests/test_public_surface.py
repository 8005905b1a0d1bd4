"""The top level of ``schedulers`` is small: the schedules, what they read, the entry points a user calls and the
errors those raise; tooling and engine internals are imported from their sub-packages (docs/architecture.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import schedulers

ROOT = Path(__file__).resolve().parents[1]

SURFACE = {
    # Composer's 13 schedulers, the extended ones, composition
    *(
        f"{name}Scheduler"
        for name in (
            "Constant ConstantWithWarmup CosineAnnealing CosineAnnealingWarmRestarts CosineAnnealingWithWarmup "
            "Exponential Linear LinearWithWarmup MultiStep MultiStepWithWarmup Polynomial PolynomialWithWarmup "
            "Step Cyclic InverseSquareRoot OneCycle WarmupStableDecay Plateau"
        ).split()
    ),
    "FunctionSchedule",
    "Product",
    "Sequence",
    "Warmup",
    "Schedule",
    "Run",
    "StateLike",
    "SchedulerState",
    "Clock",
    "as_schedule",
    "compile_scheduler",
    "evaluate_run",
    "run_timeline",
    "scale_pytorch_scheduler",
    "get_scheduler",
    "register_scheduler",
    "registered_schedulers",
    "FrozenScheduleError",
    "MissingDataloaderLenError",
    "ScheduleConfigError",
    "UnknownSchedulerError",
}


def test_the_top_level_exports_exactly_the_surface():
    assert set(schedulers.__all__) == SURFACE
    public = {name for name in vars(schedulers) if not name.startswith("_")}
    assert public - SURFACE <= {"cerebras", "sambaflow", "core", "families", "tools", "integrations", "optim"}


def test_importing_schedulers_loads_no_tool():
    code = "import sys, schedulers; print(sorted(m for m in sys.modules if m.startswith('schedulers.tools')))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
