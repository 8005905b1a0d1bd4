"""The files a reader opens to follow one schedule into a training loop (issue 25, item 7; issue 37, item 6).

Run: ``python bench/reader_path.py [--root PATH] [--calls]``. ``--root`` runs another checkout's code (e.g. an
exported ``main``) with this script; ``--calls`` prints how many calls ran in each file.

Two paths are traced. The one a newcomer reads::

    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")
    Trainer(model, data, "2ep", optimizer, schedulers=schedule, progress_bar=False)

and the same schedule driven by ``compile_scheduler`` alone, in a loop of one's own (the state, like the model,
the data and the optimizer above, built beforehand)::

    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")
    compile_scheduler(schedule, optimizer, state)      # state = SchedulerState("2ep", dataloader_len=5)

each traced with ``sys.setprofile`` from the construction of the schedule to the first ``group["lr"] = ...`` of the
optimizer's param group (the group is watched by a dict subclass whose ``__setitem__`` ends the trace), with
everything imported and each path run once beforehand, so the trace holds only the code that runs on this path.
It lists the project's files (``timeunits/``, ``schedulers/``, ``trainer/``) in which code ran, in the order they
were first entered, and counts them: the files a reader opens to follow the value from the call to the lr it
writes.

This is a measurement, not a gate (Composer's own ``Trainer`` enters 19 files on this path; docs/architecture.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGES = ("timeunits", "schedulers", "trainer")


class Trace:
    """The profile function: the project files entered by Python calls, in order, until the first lr write."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = tuple(str(root / package) + os.sep for package in PACKAGES)
        self.files: list[str] = []  # first entry order
        self.calls: Counter[str] = Counter()
        self.done = False

    def __call__(self, frame, event, arg):  # noqa: ANN001 (sys.setprofile's signature)
        if event != "call" or self.done:
            return
        filename = frame.f_code.co_filename
        if filename.startswith(self.project):
            if filename not in self.calls:
                self.files.append(filename)
            self.calls[filename] += 1

    def stop(self) -> None:
        if not self.done:
            self.done = True
            sys.setprofile(None)

    def shown(self, filename: str) -> str:
        return os.path.relpath(filename, self.root)


class _WatchedGroup(dict):
    trace: Trace | None = None

    def __setitem__(self, key, value):  # noqa: ANN001
        if key == "lr" and self.trace is not None:
            self.trace.stop()
        super().__setitem__(key, value)


def _traced(root: Path, optimizer, first_write) -> Trace:  # noqa: ANN001 (a torch optimizer, a callable)
    """Trace ``first_write()`` in ``root``'s code until it writes an lr into ``optimizer``'s first param group."""
    optimizer.param_groups[0] = _WatchedGroup(optimizer.param_groups[0])
    trace = Trace(root)
    _WatchedGroup.trace = trace
    sys.setprofile(trace)
    try:
        first_write()
    finally:
        sys.setprofile(None)
        _WatchedGroup.trace = None
    if not trace.done:
        raise SystemExit("the path wrote no lr into the param group")
    return trace


def _setting(root: Path):  # noqa: ANN202
    """Import ``root``'s code; the model, its data and a fresh optimizer of the paths."""
    sys.path.insert(0, str(root))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
    return model, data, lambda: torch.optim.SGD(model.parameters(), lr=0.1)


def follow(root: Path) -> Trace:
    """Trace the trainer's path in ``root``'s code and return the trace (the caller prints it)."""
    model, data, optimizer_of = _setting(root)
    from schedulers import CosineAnnealingWithWarmupScheduler
    from trainer import Trainer

    def first_write(optimizer) -> None:  # noqa: ANN001
        schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")
        Trainer(model, data, "2ep", optimizer, schedulers=schedule, progress_bar=False, print_schedule_report=False)

    first_write(optimizer_of())  # a warm-up run: every lazy import and first-use cache of this path is done
    optimizer = optimizer_of()
    return _traced(root, optimizer, lambda: first_write(optimizer))


def follow_compile(root: Path) -> Trace:
    """Trace the path through ``compile_scheduler`` alone in ``root``'s code and return the trace."""
    _, _, optimizer_of = _setting(root)
    from schedulers import CosineAnnealingWithWarmupScheduler, SchedulerState, compile_scheduler

    def first_write(optimizer, state) -> None:  # noqa: ANN001
        schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")
        compile_scheduler(schedule, optimizer, state)

    first_write(optimizer_of(), SchedulerState("2ep", dataloader_len=5))  # the warm-up run
    optimizer, state = optimizer_of(), SchedulerState("2ep", dataloader_len=5)
    return _traced(root, optimizer, lambda: first_write(optimizer, state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose code runs")
    parser.add_argument("--calls", action="store_true", help="print the calls per file")
    args = parser.parse_args()
    root = args.root.resolve()
    print(f"code: {root}")
    paths = {"Trainer(...)": follow, "compile_scheduler(schedule, optimizer, state)": follow_compile}
    for name, follow_path in paths.items():
        trace = follow_path(root)
        print(f'from CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur") to the first group["lr"] write in {name}:')
        for filename in trace.files:
            calls = f"  ({trace.calls[filename]} calls)" if args.calls else ""
            print(f"  {trace.shown(filename)}{calls}")
        print(f"{len(trace.files)} files, {sum(trace.calls.values())} calls")


if __name__ == "__main__":
    main()
