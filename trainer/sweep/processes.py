"""The local launcher: each point a ``cadence fit`` process on this machine (``cadence sweep --launcher local``,
the default).

A point's process runs its line of ``points.txt`` (as ``python -m trainer fit`` of this Python) and holds the
sweep's lock on its folder (the descriptor is inherited). With one point at a time its progress bar, labelled
with the point, shows on the terminal; with more, each point's output goes to ``OUT/<point>/log.txt``. A
stop reaches it as a signal (:mod:`trainer.sweep.running`); the processes share the sweep's process group,
so Ctrl-C in a terminal reaches them directly.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from trainer.sweep import folders
from trainer.sweep.plan import SweepPoint
from trainer.sweep.remote import send_signal
from trainer.sweep.running import Outcome

__all__ = ["LocalLauncher"]


@dataclass
class _Process:
    process: subprocess.Popen
    output: str


class LocalLauncher:
    """Runs points as local processes (see the module docstring); ``lines`` is a
    :class:`~trainer.sweep.config_sweep.PointLines`."""

    passes_claims = True

    def __init__(self, lines: Any) -> None:
        self.lines = lines
        self.jobs = 1

    def command(self, point: SweepPoint) -> str:
        return self.lines.command(point)

    @contextlib.contextmanager
    def session(self, jobs: int) -> Iterator[None]:
        self.jobs = jobs
        yield

    def start(self, points: list[SweepPoint], claims: dict[str, folders.Claim]) -> list[_Process]:
        return [self._start(point, claims[point.name]) for point in points]

    def _start(self, point: SweepPoint, claim: folders.Claim) -> _Process:
        on_terminal = self.jobs == 1
        argv = [sys.executable, "-m", "trainer", "fit", *self.lines.arguments(point, progress=on_terminal)]
        popen: dict[str, Any] = {
            "env": {**os.environ, **self.lines.environment(point)},
            "pass_fds": () if claim.fd is None else (claim.fd,),
        }
        if on_terminal:
            process = subprocess.Popen(argv, **popen)
            output = "above"
        else:
            log = point.folder / folders.LOG
            with open(log, "ab") as stream:
                process = subprocess.Popen(argv, stdout=stream, stderr=subprocess.STDOUT, **popen)
            output = str(log)
        claim.record(process.pid)
        return _Process(process, output)

    def poll(self, handle: _Process) -> Outcome | None:
        status = handle.process.poll()
        return None if status is None else Outcome(status, handle.output)

    def signal(self, handle: _Process, signum: int) -> None:
        send_signal(handle.process, signum)

    def kill(self, handle: _Process) -> None:
        handle.process.kill()
        handle.process.wait()
