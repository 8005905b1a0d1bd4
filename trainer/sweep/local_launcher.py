"""The local launcher: each point a ``cadence fit`` process on this machine (``cadence sweep --launcher local``,
the default).

A point's process runs its line of ``points.txt`` (``cadence fit`` with the point's arguments and environment, in
the sweep's working folder) and holds the sweep's lock on its folder (the descriptor is inherited). With one
point at a time its progress bar, labelled with the point, shows on the terminal; with more, each point's output
goes to ``OUT/<point>/log.txt``. A stop reaches it as a signal (:mod:`trainer.sweep.running`); the processes
share the sweep's process group, so Ctrl-C in a terminal reaches them directly.

**Warm starts.** The sweep has imported torch and the trainer to plan its points, so a point's process is a fork
of the sweep that runs ``cadence fit`` at once, instead of a new Python that imports them again (seconds per
point). It is the same command with the same exit status: the fork sets the stop signals the sweep handles back
to their defaults (an ignored one stays ignored), closes the other points' locks, takes the point's environment
and, like ``python -m``, the working folder on ``sys.path``. Where a fork cannot do that — no ``os.fork``, or a
sweep that has started CUDA, which a fork cannot use — the point runs as ``python -m trainer fit``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import runpy
import signal
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from trainer.sweep import folders
from trainer.sweep.plan import SweepPoint
from trainer.sweep.remote import send_signal
from trainer.sweep.running import Outcome

__all__ = ["LocalLauncher"]


@attrs.define
class _Process:
    process: Any  # a subprocess.Popen, or a _Fork
    output: str


class LocalLauncher:
    """Runs points as local processes (see the module docstring).

    Args:
        lines: The points' ``cadence fit`` lines and environments
            (a :class:`~trainer.sweep.config_sweep.PointLines`).

    Returns:
        The launcher the sweep's runner drives: :meth:`start` points, :meth:`poll`, :meth:`signal` and
        :meth:`kill` them. A point is forked from the sweep's warm process where it can be (no CUDA initialized),
        else started as ``python -m trainer fit ...``.

    >>> LocalLauncher(None).passes_claims
    True
    """

    passes_claims = True

    def __init__(self, lines: Any) -> None:
        self.lines = lines
        self.jobs = 1

    def command(self, point: SweepPoint) -> str:
        """The line of ``points.txt`` that runs ``point`` on its own.

        Args:
            point: The point.

        Returns:
            Its ``cadence fit ...`` line, with its environment.
        """
        return self.lines.command(point)

    @contextlib.contextmanager
    def session(self, jobs: int) -> Iterator[None]:
        """Around the sweep's runs: ``jobs`` points at once.

        Args:
            jobs: The points run at once (with one, a point writes to the terminal; with more, to its log).

        Returns:
            A context manager; the points run inside it.
        """
        self.jobs = jobs
        yield

    def start(self, points: list[SweepPoint], claims: dict[str, folders.Claim]) -> list[_Process]:
        """Start each of ``points`` in its process.

        Args:
            points: The points to start.
            claims: Each point's lock on its folder by name, passed on to its process.

        Returns:
            One handle per point, for :meth:`poll`, :meth:`signal` and :meth:`kill`.
        """
        return [self._start(point, claims[point.name]) for point in points]

    def _start(self, point: SweepPoint, claim: folders.Claim) -> _Process:
        on_terminal = self.jobs == 1
        arguments = ["fit", *self.lines.arguments(point, progress=on_terminal)]
        environment = self.lines.environment(point)
        log = None if on_terminal else point.folder / folders.LOG
        if _can_fork():
            process: Any = _Fork.start(arguments, environment, log, claim.fd)
        else:
            process = _popen(arguments, environment, log, claim.fd)
        claim.record(process.pid)
        return _Process(process, "above" if log is None else str(log))

    def poll(self, handle: _Process) -> Outcome | None:
        """The point's outcome once its process has ended.

        Args:
            handle: What :meth:`start` gave for the point.

        Returns:
            Its exit status and where its output went; None while it runs.
        """
        status = handle.process.poll()
        return None if status is None else Outcome(status, handle.output)

    def signal(self, handle: _Process, signum: int) -> None:
        """Send ``signum`` to the point's process, if it still runs.

        Args:
            handle: What :meth:`start` gave for the point.
            signum: The signal (the sweep forwards SIGTERM, SIGINT and SIGHUP to every running point).
        """
        send_signal(handle.process, signum)

    def kill(self, handle: _Process) -> None:
        """End the point's process at once and wait for it.

        Args:
            handle: What :meth:`start` gave for the point.
        """
        handle.process.kill()
        handle.process.wait()


def _popen(arguments: list[str], environment: dict[str, str], log: Path | None, fd: int | None) -> subprocess.Popen:
    """``python -m trainer ARGUMENTS``, a new interpreter (output to ``log``, or the sweep's terminal)."""
    popen: dict[str, Any] = {"env": {**os.environ, **environment}, "pass_fds": () if fd is None else (fd,)}
    argv = [sys.executable, "-m", "trainer", *arguments]
    if log is None:
        return subprocess.Popen(argv, **popen)
    with open(log, "ab") as stream:
        return subprocess.Popen(argv, stdout=stream, stderr=subprocess.STDOUT, **popen)


def _can_fork() -> bool:
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    return hasattr(os, "fork") and not (cuda is not None and cuda.is_initialized())


class _Fork:
    """A point's process forked from the sweep, with what the launcher uses of ``subprocess.Popen``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    @classmethod
    def start(cls, arguments: list[str], environment: dict[str, str], log: Path | None, fd: int | None) -> _Fork:
        for stream in (sys.stdout, sys.stderr):  # else the child would write what the sweep buffered again
            with contextlib.suppress(Exception):
                stream.flush()
        pid = os.fork()
        if pid:
            return cls(pid)
        status = 1
        try:  # the child: never returns into the sweep
            status = _run_fit(arguments, environment, log, fd)
        except BaseException:  # as an uncaught exception ends `python -m trainer fit`
            with contextlib.suppress(BaseException):
                import traceback

                traceback.print_exc()
        finally:  # what the end of an interpreter does for a run: its loaders' workers end, its output is out
            with contextlib.suppress(BaseException):
                gc.collect()
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(BaseException):
                    stream.flush()
            os._exit(status)

    def poll(self) -> int | None:
        """The exit status once the process has ended (negative: the signal that ended it), else None."""
        if self.returncode is None:
            self._wait(os.WNOHANG)
        return self.returncode

    def wait(self) -> int:
        """Wait for the process to end; its exit status."""
        if self.returncode is None:
            self._wait(0)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Send ``signum`` to the process, unless it has ended and been waited for."""
        if self.returncode is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        """SIGKILL the process."""
        self.send_signal(signal.SIGKILL)

    def _wait(self, options: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, options)
        except ChildProcessError:  # waited for elsewhere: it has ended
            self.returncode = self.returncode if self.returncode is not None else 1
            return
        if pid:
            self.returncode = os.waitstatus_to_exitcode(status)


def _run_fit(arguments: list[str], environment: dict[str, str], log: Path | None, fd: int | None) -> int:
    """In the forked child: become the process ``python -m trainer ARGUMENTS`` would be, run it, its exit status."""
    for held in folders.held_claims() - {fd}:  # the other points' locks stay the sweep's
        os.close(held)
    for signum in (signal.SIGTERM, signal.SIGHUP):  # the sweep's stop handlers; an ignored signal stays ignored
        if callable(signal.getsignal(signum)):
            signal.signal(signum, signal.SIG_DFL)
    if log is not None:
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
    # the process's own streams, as a new interpreter has them (the sweep's may be a notebook's or a capture)
    sys.stdout = open(1, "w", buffering=1 if os.isatty(1) else -1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    added = environment.get("PYTHONWARNINGS", "").split(",")
    known = os.environ.get("PYTHONWARNINGS", "").split(",")
    os.environ.update(environment)
    for option in added:  # what a new interpreter would read from PYTHONWARNINGS
        if option and option not in known:
            _warning_filter(option)
    if os.getcwd() not in sys.path and "" not in sys.path:  # python -m puts the working folder first
        sys.path.insert(0, os.getcwd())
    sys.argv = [sys.argv[0], *arguments]
    try:  # `python -m trainer ARGUMENTS`, the command itself: what the exec'd process would run
        runpy.run_module("trainer", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        return _exit_status(stop.code)
    return 0


def _warning_filter(option: str) -> None:
    """A ``PYTHONWARNINGS`` entry ``action:message`` (the part of its syntax the sweep writes) as a filter."""
    action, _, rest = option.partition(":")
    message = rest.split(":", 1)[0]
    warnings.filterwarnings(action or "default", message=re.escape(message), append=False)


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
