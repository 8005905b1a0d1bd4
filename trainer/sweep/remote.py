"""A point's job wherever it runs (a Ray actor, a Slurm job): run exactly its ``points.txt`` line.

:func:`run_job` is what the cluster executes for a point: it takes the lock on the point's folder (as the
sweep does for a local point: a point is never trained by two processes at once), runs the line — ``cadence
fit ...`` as ``python -m trainer fit ...`` with the node's own Python, from the sweep's working directory,
output appended to ``OUT/<point>/log.txt`` — and returns its exit status. The point runs in a session of its
own, and a stop signal that reaches the job (Slurm's ``scancel --signal=TERM``, a time limit, a preemption)
is passed on to it, so it saves a checkpoint and ends; so is SIGUSR2, the warning submitit has Slurm send
90 s before the time limit (as SIGTERM). A Ray actor passes its ``stop`` call on the same way
(:class:`PointActor`). The sweep's folder must be
on a file system every node sees at the same path (docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trainer.signals import exit_status, stop_requests
from trainer.sweep import folders

__all__ = ["FOLDER_IN_USE", "PointActor", "PointJob", "run_job"]

#: The exit status of a job whose point another process is training (``EX_TEMPFAIL``: rerun later).
FOLDER_IN_USE = 75


@dataclass(frozen=True)
class PointJob:
    """What a cluster needs to run a point: its ``points.txt`` line, the sweep's working directory, the
    environment the sweep adds (``PYTHONPATH``, a branch's expected warning), the log file and the folder."""

    line: str
    cwd: str
    env: dict[str, str]
    log: str
    folder: str

    def argv(self) -> list[str]:
        """The line as this node runs it: ``cadence`` is ``python -m trainer`` of this node's Python."""
        words = shlex.split(self.line)
        if words[:1] != ["cadence"]:
            raise ValueError(f"a point's line must start with 'cadence', got {self.line[:60]!r}")
        return [sys.executable, "-m", "trainer", *words[1:]]


def run_job(job: PointJob, on_start: Callable[[subprocess.Popen], None] | None = None) -> int:
    """Run ``job``'s line (see the module docstring) and return its exit status; ``on_start`` gets the process."""
    log = Path(job.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        claim = folders.claim(Path(job.folder))
    except folders.FolderInUse as error:
        with open(log, "a", encoding="utf-8") as stream:
            stream.write(f"cadence: error: {error}\n")
        return FOLDER_IN_USE
    try:
        env = dict(os.environ, **job.env)
        with open(log, "ab") as stream:  # its own session: the signals Slurm sends the job reach it through here
            process = subprocess.Popen(
                job.argv(),
                cwd=job.cwd,
                env=env,
                stdout=stream,
                stderr=subprocess.STDOUT,
                pass_fds=() if claim.fd is None else (claim.fd,),
                start_new_session=True,
            )
        claim.record(process.pid)
        if on_start is not None:
            on_start(process)
        return _wait(process)
    finally:
        claim.release()


def _wait(process: subprocess.Popen) -> int:
    """Wait for the point; in a Slurm job's main thread, pass a stop on: SIGTERM and SIGHUP as they are, and
    SIGUSR2 (the warning submitit has Slurm send before the time limit) as SIGTERM. Interrupted, end it."""
    warning = getattr(signal, "SIGUSR2", None)
    previous = None
    if warning is not None and threading.current_thread() is threading.main_thread():
        previous = signal.signal(warning, lambda signum, frame: send_signal(process, signal.SIGTERM))
    try:
        with stop_requests(lambda signum: send_signal(process, signum)):
            return process.wait()
    except BaseException:  # KeyboardInterrupt: the job is being cancelled; nothing is left behind
        process.kill()
        process.wait()
        raise
    finally:
        if previous is not None:
            signal.signal(warning, previous)


def send_signal(process: subprocess.Popen, signum: int) -> None:
    """``signum`` to ``process`` if it still runs."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)


class PointActor:
    """A Ray actor (threaded: ``run`` and ``stop`` may overlap) that runs one point's job."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._stop: int | None = None

    def run(self, job: PointJob) -> int:
        with self._lock:
            if self._stop is not None:  # stopped while it waited for its resources: it never starts
                return exit_status(self._stop)
        return run_job(job, on_start=self._started)

    def stop(self, signum: int) -> None:
        """Pass a stop signal on to the point (also when it comes before the point has started)."""
        with self._lock:
            self._stop = signum
            if self._process is not None:
                send_signal(self._process, signum)

    def _started(self, process: subprocess.Popen) -> None:
        with self._lock:
            self._process = process
            if self._stop is not None:
                send_signal(process, self._stop)
