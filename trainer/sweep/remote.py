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
from pathlib import Path

import attrs

from trainer.signals import exit_status, stop_requests
from trainer.sweep import folders

__all__ = ["FOLDER_IN_USE", "PointActor", "PointJob", "run_job"]

#: The exit status of a job whose point another process is training (``EX_TEMPFAIL``: rerun later).
FOLDER_IN_USE = 75


@attrs.frozen
class PointJob:
    """What a cluster needs to run a point: its ``points.txt`` line, the sweep's working directory, the
    environment the sweep adds (``PYTHONPATH``, a branch's expected warning), the log file and the folder.

    Args:
        line: The point's line of ``points.txt`` (``cadence fit ...``).
        cwd: The sweep's working directory, where the line runs.
        env: The variables the sweep adds to the node's environment.
        log: The file the point's output is appended to (``OUT/<point>/log.txt``).
        folder: The point's run folder, whose lock the job takes.

    Returns:
        A frozen, picklable value that a Ray actor or a Slurm job gets and runs with :func:`run_job`.

    >>> job = PointJob("cadence fit run.yaml --set trainer.init.seed=1", ".", {}, "out/p/log.txt", "out/p")
    >>> job.argv()[1:]
    ['-m', 'trainer', 'fit', 'run.yaml', '--set', 'trainer.init.seed=1']
    """

    line: str
    cwd: str
    env: dict[str, str]
    log: str
    folder: str

    def argv(self) -> list[str]:
        """The line as this node runs it: ``cadence`` is ``python -m trainer`` of this node's Python.

        Returns:
            The line's words (split as a POSIX shell does), ``cadence`` replaced by this Python's ``-m trainer``.

        Raises:
            ValueError: The line does not start with ``cadence``.
        """
        words = shlex.split(self.line)
        if words[:1] != ["cadence"]:
            raise ValueError(f"a point's line must start with 'cadence', got {self.line[:60]!r}")
        return [sys.executable, "-m", "trainer", *words[1:]]


def run_job(job: PointJob, on_start: Callable[[subprocess.Popen], None] | None = None) -> int:
    """Run ``job``'s line (see the module docstring) and return its exit status; ``on_start`` gets the process.

    Args:
        job: The point's job.
        on_start: Called with the point's process once it has started (a Ray actor keeps it to pass a stop on).

    Returns:
        The point's exit status (0: trained to its end; 128 + a signal after a stop), or :data:`FOLDER_IN_USE`
        when another process holds the folder's lock (then nothing runs, and the log says who holds it).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:       # the folder is locked: the job runs nothing
    ...     held = folders.claim(Path(folder))
    ...     status = run_job(PointJob("cadence fit run.yaml", folder, {}, f"{folder}/log.txt", folder))
    ...     held.release()
    ...     print(status, open(f"{folder}/log.txt").read().startswith("cadence: error:"))
    75 True
    """
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
    """``signum`` to ``process`` if it still runs.

    Args:
        process: The point's process (a ``subprocess.Popen``, or one with its ``poll`` and ``send_signal``).
        signum: The signal to send; none is sent to a process that has ended.

    >>> from types import SimpleNamespace
    >>> sent = lambda signum: print("sent", signal.Signals(signum).name)
    >>> send_signal(SimpleNamespace(poll=lambda: None, send_signal=sent), signal.SIGTERM)      # running
    sent SIGTERM
    >>> send_signal(SimpleNamespace(poll=lambda: 0, send_signal=sent), signal.SIGTERM)         # ended: nothing
    """
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)


class PointActor:
    """A Ray actor (threaded: ``run`` and ``stop`` may overlap) that runs one point's job.

    Returns:
        The class :class:`~trainer.sweep.ray_launcher.RayLauncher` makes a Ray actor of, one per point: ``run``
        runs the job and ``stop`` passes a stop signal on to it, even one that comes before the job has started.

    >>> actor = PointActor()
    >>> actor.stop(signal.SIGTERM)                 # stopped while it waited for its resources
    >>> actor.run(PointJob("cadence fit run.yaml", ".", {}, "log.txt", "."))   # never starts: 128 + SIGTERM
    143
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._stop: int | None = None

    def run(self, job: PointJob) -> int:
        """Run ``job`` (:func:`run_job`), unless a stop came first.

        Args:
            job: The point's job.

        Returns:
            The job's exit status; 128 + the signal, without starting the job, when :meth:`stop` came first.
        """
        with self._lock:
            if self._stop is not None:  # stopped while it waited for its resources: it never starts
                return exit_status(self._stop)
        return run_job(job, on_start=self._started)

    def stop(self, signum: int) -> None:
        """Pass a stop signal on to the point (also when it comes before the point has started).

        Args:
            signum: The stop signal (SIGKILL when the sweep kills the point).
        """
        with self._lock:
            self._stop = signum
            if self._process is not None:
                send_signal(self._process, signum)

    def _started(self, process: subprocess.Popen) -> None:
        with self._lock:
            self._process = process
            if self._stop is not None:
                send_signal(process, self._stop)
