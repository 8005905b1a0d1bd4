"""The Python calls one schedule's resolution makes, and the files they run in (issue 37, item 5).

Run: ``python bench/curve_calls.py [--root PATH] [--calls]``. ``--root`` runs another checkout's code (e.g. an
exported ``main``) with this script; ``--calls`` lists the calls by function.

For each schedule below, ``schedule.curve(run)`` of a schedule built beforehand (its arguments checked then) on
``Run("100ba", 10)`` is traced with ``sys.setprofile``: the ``call`` events in the project's files
(``timeunits/``, ``schedulers/``, ``trainer/``) are counted, with the files they ran in. Everything is imported
and one curve of an equal schedule resolved beforehand, so the trace holds only the resolution itself:

* Composer's ``CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1)``, a warmup and a cosine
  composed for the run (aim: at most 120 calls);
* the Cerebras curves of ``SequentialLR([LinearLR(0 → 0.1, 30 steps), CosineDecayLR(0.1 → 0.01, 70 steps)],
  milestones=[30])`` (``schedulers.families.cerebras``: ``Sequential`` of ``Linear`` and ``CosineDecay``);
* the same ``SequentialLR`` as the scheduler Cerebras users build (``schedulers.cerebras.SequentialLR`` on an
  SGD optimizer), traced through ``scheduler.attach_state(state)`` for the run's state: the composed form
  resolved, each child taking its part of it, the value written;
* SambaFlow's ``cosine_schedule_with_warmup(num_warmup_steps=30, num_training_steps=100, end_ratio=0.1)``
  multiplier (``schedulers.families.sambaflow.SambaFlowLambda``).

A call count is a measure of how much a resolution does, not of time; ``tests/schedulers/test_composition.py``
keeps Composer's warmup within its budget.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGES = ("timeunits", "schedulers", "trainer")


class CallCount:
    """The profile function: ``call`` events in the project's files, by file and by function."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = tuple(str(root / package) + os.sep for package in PACKAGES)
        self.functions: Counter[tuple[str, str]] = Counter()

    def __call__(self, frame, event, arg):  # noqa: ANN001 (sys.setprofile's signature)
        if event == "call":
            filename = frame.f_code.co_filename
            if filename.startswith(self.project):
                self.functions[(os.path.relpath(filename, self.root), frame.f_code.co_name)] += 1

    @property
    def calls(self) -> int:
        return sum(self.functions.values())

    @property
    def files(self) -> list[str]:
        return sorted({filename for filename, _ in self.functions})


def count_calls(root: Path, build: Callable[[], Any], run: Any) -> CallCount:
    """Count the calls of ``build().curve(run)``, a fresh schedule's resolution (one built and resolved first);
    a scheduler (it has ``attach_state``) is attached to a state of ``run`` instead."""
    from schedulers import SchedulerState

    state = SchedulerState(run.length, dataloader_len=run.dataloader_len)

    def resolve(schedule: Any) -> None:
        if hasattr(schedule, "attach_state"):
            schedule.attach_state(state)
        else:
            schedule.curve(run)

    resolve(build())  # first uses (lazy imports, caches) happen outside the trace
    schedule = build()
    count = CallCount(root)
    sys.setprofile(count)
    try:
        resolve(schedule)
    finally:
        sys.setprofile(None)
    return count


def _cerebras_sequential_lr() -> object:
    import torch

    import schedulers.cerebras as cstorch

    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    parts = [cstorch.LinearLR(optimizer, 0.0, 0.1, 30), cstorch.CosineDecayLR(optimizer, 0.1, 0.01, 70)]
    return cstorch.SequentialLR(optimizer, parts, milestones=[30])


def cases() -> dict[str, Callable[[], object]]:
    """The schedules traced, by what a user writes."""
    from schedulers import CosineAnnealingWithWarmupScheduler
    from schedulers.families.cerebras import CosineDecay, Linear, Sequential
    from schedulers.families.sambaflow import SambaFlowLambda

    return {
        'CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1)': lambda: (
            CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur", alpha_f=0.1)
        ),
        "Cerebras SequentialLR([LinearLR(0, 0.1, 30), CosineDecayLR(0.1, 0.01, 70)], milestones=[30])": lambda: (
            Sequential((Linear(0.0, 0.1, 30), CosineDecay(0.1, 0.01, 70)), [30])
        ),
        "the same as the scheduler: cstorch.SequentialLR(...).attach_state(state)": _cerebras_sequential_lr,
        "SambaFlow cosine_schedule_with_warmup(30, 100, end_ratio=0.1)": lambda: SambaFlowLambda(
            "cosine", 30, 100, 0.1
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose code runs")
    parser.add_argument("--calls", action="store_true", help="list the calls by function")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    from schedulers import Run

    run = Run("100ba", 10)
    print(f"code: {root}")
    print(f"one schedule.curve({run!r}) of a schedule built beforehand:")
    for name, build in cases().items():
        count = count_calls(root, build, run)
        print(f"  {name}\n    {count.calls} calls in {len(count.files)} files: {', '.join(count.files)}")
        if args.calls:
            for (filename, function), calls in count.functions.most_common():
                print(f"      {calls:4d}  {filename}  {function}")


if __name__ == "__main__":
    main()
