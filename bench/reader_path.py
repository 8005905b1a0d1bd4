"""The files a reader opens to follow one schedule into a training loop (issue 25, item 7).

Run: ``python bench/reader_path.py [--root PATH] [--calls]``. ``--root`` runs another checkout's code (e.g. an
exported ``main``) with this script; ``--calls`` prints how many calls ran in each file.

The path is the one a newcomer reads::

    schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")
    Trainer(model, data, "2ep", optimizer, schedulers=schedule, progress_bar=False)

traced with ``sys.setprofile`` from the construction of the schedule to the first ``group["lr"] = ...`` of the
optimizer's param group (the group is watched by a dict subclass whose ``__setitem__`` ends the trace), with
everything imported beforehand, so the trace holds only the code that runs on this path. It lists the project's
files (``timeunits/``, ``schedulers/``, ``trainer/``) in which code ran, in the order they were first entered,
and counts them: the files a reader opens to follow the value from the call to the lr it writes.

This is a measurement, not a gate (Composer's path from its scheduler to the lr write is 4 files).
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


def follow(root: Path) -> Trace:
    """Trace the path in ``root``'s code and return the trace (the caller prints it)."""
    sys.path.insert(0, str(root))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    from schedulers import CosineAnnealingWithWarmupScheduler
    from trainer import Trainer

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer.param_groups[0] = _WatchedGroup(optimizer.param_groups[0])
    # a warm-up run, so that every lazy import and first-use cache of this path is done before the trace
    Trainer(
        model,
        data,
        "2ep",
        torch.optim.SGD(model.parameters(), lr=0.1),
        schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur"),
        progress_bar=False,
        print_schedule_report=False,
    )
    trace = Trace(root)
    _WatchedGroup.trace = trace
    sys.setprofile(trace)
    try:
        schedule = CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur")
        Trainer(model, data, "2ep", optimizer, schedulers=schedule, progress_bar=False, print_schedule_report=False)
    finally:
        sys.setprofile(None)
    if not trace.done:
        raise SystemExit("Trainer(...) wrote no lr into the param group")
    return trace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose code runs")
    parser.add_argument("--calls", action="store_true", help="print the calls per file")
    args = parser.parse_args()
    root = args.root.resolve()
    trace = follow(root)
    print(f"code: {root}")
    print('from CosineAnnealingWithWarmupScheduler(t_warmup="0.3dur") to the first group["lr"] write in Trainer(...):')
    for filename in trace.files:
        calls = f"  ({trace.calls[filename]} calls)" if args.calls else ""
        print(f"  {trace.shown(filename)}{calls}")
    print(f"{len(trace.files)} files")


if __name__ == "__main__":
    main()
